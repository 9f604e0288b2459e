#!/usr/bin/env node
// wasi-thread-pool [run] [OPTIONS] <WASM> [ARGS]...: runs a WASI command
// program and exits with its exit code (lib/program/cli-main.js). CommonJS
// (bin/package.json), loading the CLI's one-file build where there is one
// (dist/cli-main.cjs: no ES module loader, no module graph to resolve at
// start-up; docs/runner.md, "What a run costs"), else the module itself.
// The paths are lib/worker/entries.js's "cli" entry (an ES module, which this
// CommonJS file cannot load synchronously); WASI_THREAD_POOL_WORKER_BUNDLES=0
// takes the module, as it does for the workers. The built file is named to
// runCli: the module cache keys what it keeps on the code that made it
// (lib/program/module-cache.js). The built file is loaded through the
// runner's code cache (lib/program/code-cache.cjs): a run after the first
// takes V8's compiled code of it instead of compiling it.
"use strict";

const { existsSync } = require("node:fs");
const { join } = require("node:path");

const built = join(__dirname, "..", "dist", "cli-main.cjs");
if (process.env.WASI_THREAD_POOL_WORKER_BUNDLES !== "0" && existsSync(built)) {
  const { exports: cli, keepCode } = require("../lib/program/code-cache.cjs").loadWithCodeCache(built);
  cli.runCli({ codeFile: built, keepCode });
} else {
  import("../lib/program/cli-main.js").then((cli) => cli.runCli());
}
