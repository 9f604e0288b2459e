// The end of the CLI's process on its main thread (lib/program/wasi-c.js,
// exitMainThread; docs/runner.md "The CLI's process"): the process's "exit"
// listeners run with the program's status, the status is the program's, and
// what a thread wrote is there, whether or not the program's workers are
// alive (busy in guest code); then the process ends at once (_exit), without
// Node's teardown of the workers. Under --cpu-prof the profiles are written
// (Node's own exit: test/cli-process.test.js counts them).

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { native } from "../lib/native/binding.js";
import { programWasiUnavailable } from "../lib/program/wasi.js";
import { watToBytes } from "./fixtures/build.js";
import { CLI, runChild } from "./support/cli-child.js";

const unavailable = programWasiUnavailable();
const skip = unavailable
  ? `needs the program's C WASI (${unavailable.reason})`
  : typeof native.binding.exitProcess !== "function"
    ? "the addon predates exitProcess (node scripts/install.js --force)"
    : false;
const dir = mkdtempSync(join(tmpdir(), "wtp-cli-exit-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// A preload whose "exit" listener writes the status it is given and the
// process's exitCode to the file WTP_EXIT_FILE.
const PRELOAD = join(dir, "exit-listener.mjs");
writeFileSync(
  PRELOAD,
  `import { writeFileSync } from "node:fs";
process.on("exit", (code) => writeFileSync(process.env.WTP_EXIT_FILE, JSON.stringify([code, process.exitCode])));
`,
);

// The main thread spawns `threads` threads that each write a line and then
// spin in guest code for ever, waits until all have written (a counter at
// address 0), writes its own line and ends the program with proc_exit(5) or
// by returning from _start.
const program = (threads, ending) => `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (data (i32.const 64) "thread\\nmain\\n")
  (func $write (param $at i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $at))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func (export "_start") (local $i i32)
    (loop $more
      (drop (call $spawn (i32.const 0)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $more (i32.lt_u (local.get $i) (i32.const ${threads}))))
    (loop $wait (br_if $wait (i32.lt_u (i32.atomic.load (i32.const 0)) (i32.const ${threads}))))
    (call $write (i32.const 71) (i32.const 5))
    ${ending})
  (func (export "wasi_thread_start") (param i32 i32)
    (call $write (i32.const 64) (i32.const 7))
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
    (loop $spin (br $spin))))`;

async function run(threads, ending, expected) {
  const file = join(dir, `p${threads}-${expected}.wasm`);
  writeFileSync(file, await watToBytes(program(threads, ending), "cli-exit.wat"));
  const exitFile = join(dir, `exit-${threads}-${expected}.json`);
  const r = await runChild(process.execPath, ["--import", PRELOAD, CLI, "run", file], {
    env: { ...process.env, WTP_EXIT_FILE: exitFile },
    timeoutMs: 60_000,
  });
  assert.equal(r.code, expected, r.stderr);
  assert.equal(r.stdout, `${"thread\n".repeat(threads)}main\n`);
  assert.deepEqual(JSON.parse(readFileSync(exitFile, "utf8")), [expected, expected]);
}

describe("the CLI's main thread ends the process", { skip }, () => {
  test("proc_exit(5) with 3 threads spinning on their workers: status 5, every line, the exit listeners told 5", () =>
    run(3, "(call $proc_exit (i32.const 5))", 5));

  test("_start returns with a thread spinning on its worker: status 0, the exit listeners told 0", () => run(1, "", 0));
});
