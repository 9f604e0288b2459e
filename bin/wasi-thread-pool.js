#!/usr/bin/env node
// wasi-thread-pool [run] [OPTIONS] <WASM> [ARGS]...: runs a WASI command
// program and exits with its exit code (lib/program/cli-main.js). CommonJS
// (bin/package.json), loading the CLI's one-file build: no ES module loader,
// no module graph to resolve at start-up (docs/runner.md, "What a thread
// costs"). The build is made by scripts/bundle-workers.js.
"use strict";

require("../lib/program/cli-main.bundle.cjs").runCli();
