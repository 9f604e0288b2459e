#!/usr/bin/env node
// wasi-thread-pool [run] [OPTIONS] <WASM> [ARGS]...: runs a WASI command
// program with runWasiThreadsProgram and exits with its exit code. The
// command line is wasmtime's (lib/program/cli.js).

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { HELP, NotUtf8Error, UsageError, parseCommandLine } from "../lib/program/cli.js";
import { hostArgvBytes, hostEnvBytes } from "../lib/program/host-bytes.js";

function usage(message) {
  process.stderr.write(`wasi-thread-pool: ${message}\n\nRun wasi-thread-pool --help for usage.\n`);
  process.exit(2);
}

if (process.argv.length === 2) {
  process.stderr.write(HELP);
  process.exit(2);
}
// Node decoded the arguments and the environment as UTF-8, with U+FFFD for
// bytes that are not: where one has a U+FFFD, the exact bytes are read from
// the host (Linux) so that the program gets them (lib/program/host-bytes.js).
const argv = process.argv.slice(2);
const mayBeAltered = (texts) => texts.some((text) => typeof text === "string" && text.includes("\uFFFD"));
const hostBytes =
  mayBeAltered(argv) || mayBeAltered(Object.values(process.env))
    ? { argvBytes: hostArgvBytes(argv), envBytes: hostEnvBytes() }
    : {};
let opts;
try {
  opts = parseCommandLine(argv, process.env, hostBytes);
} catch (error) {
  if (error instanceof NotUtf8Error) {
    process.stderr.write(`wasi-thread-pool: ${error.message}\n`);
    process.exit(1);
  }
  if (!(error instanceof UsageError)) throw error;
  usage(error.message);
}
if (opts.action === "help") {
  process.stdout.write(HELP);
  process.exit(0);
}
if (opts.action === "version") {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`wasi-thread-pool ${version}\n`);
  process.exit(0);
}

let bytes;
try {
  bytes = readFileSync(opts.file);
} catch (error) {
  process.stderr.write(`wasi-thread-pool: cannot read the module ${opts.file}: ${error.message}\n`);
  process.exit(1);
}

// A program that imports thread-spawn gets its first thread's worker started
// now, while the runner loads and compiles (lib/program/spare-worker.js).
const { startSpareWorkers } = await import("../lib/program/spare-worker.js");
const spares = startSpareWorkers(bytes);

// The runner alone, not the whole package (start-up time). The process is
// the program's: where the C WASI serves, runProgramAsProcess runs the guest's
// main thread right here and the process ends when the program does; with
// node:wasi it resolves the program's {exitCode} (lib/program/process.js).
const { runProgramAsProcess } = await import("../lib/program/process.js");
try {
  const { exitCode } = await runProgramAsProcess(
    bytes,
    {
      args: [opts.argv0 ?? basename(opts.file), ...opts.args],
      env: opts.env,
      preopens: opts.preopens,
      poolSize: opts.poolSize,
      maxThreads: opts.maxThreads,
      implementation: opts.implementation,
    },
    spares,
  );
  process.exitCode = exitCode;
} catch (error) {
  process.stderr.write(`wasi-thread-pool: ${error.message}\n`);
  process.exitCode = 1;
}
// stdin may still be open (a program that never read it to its end): it must
// not keep this process alive.
process.stdin.unref?.();
process.stdin.destroy?.();
