// A child process for test/program-wasi-*.test.js: runs one program of
// .tmp/wasi-programs (test/wasi-programs, built by
// scripts/build-wasi-programs.sh) or any .wasm file with
// runWasiThreadsProgram, with this process's stdin, stdout and stderr.
//
//   WTP_WASM      the .wasm file
//   WTP_IMPL      the pool implementation ("native" or "js")
//   WTP_ARGS      JSON array: the program's args (args[0] included)
//   WTP_PREOPENS  JSON object { "/guest": "/host/dir" }
//   WTP_ENV       JSON object: the program's environment
//   WTP_AFTER     text this process writes to its fd 1 after the program
//                 (the host's stdout must still be open)
//   WTP_REST_OF_STDIN=1  after the program, this process reads the rest of
//                 its stdin (blocking) and writes it to stdout after "rest: "
//
// It touches process.stdout first, as a Node application does: for a pipe,
// that makes the descriptor non-blocking (libuv), the case the runner's
// writes must survive. Then it writes `RESULT <json>` to stderr on a line of
// its own and ends by itself.

import { readFileSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { runWasiThreadsProgram } from "../../lib/index.js";

void process.stdout;
const bytes = await readFile(process.env.WTP_WASM);
const started = performance.now();
const { exitCode } = await runWasiThreadsProgram(bytes, {
  implementation: process.env.WTP_IMPL,
  args: process.env.WTP_ARGS ? JSON.parse(process.env.WTP_ARGS) : undefined,
  preopens: process.env.WTP_PREOPENS ? JSON.parse(process.env.WTP_PREOPENS) : undefined,
  env: process.env.WTP_ENV ? JSON.parse(process.env.WTP_ENV) : undefined,
  poolSize: 8,
});
const ms = performance.now() - started;
let after = null;
if (process.env.WTP_AFTER) {
  try {
    writeSync(1, process.env.WTP_AFTER);
    after = "written";
  } catch (error) {
    after = error.code ?? String(error);
  }
}
let rest = null;
if (process.env.WTP_REST_OF_STDIN === "1") {
  try {
    rest = readFileSync(0, "utf8");
    writeSync(1, `rest: ${rest}`);
  } catch (error) {
    rest = error.code ?? String(error);
  }
}
process.stderr.write(`\nRESULT ${JSON.stringify({ exitCode, ms, after, rest })}\n`);
