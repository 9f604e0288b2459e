// The CLI's process is the program's (lib/program/process.js,
// docs/runner.md "The CLI's process"): where the program's C WASI serves,
// the guest's main thread runs on the process's main thread, with no worker
// of its own, and the program's end on any thread ends the process with the
// program's status, whatever the main thread is doing. With node:wasi the
// CLI runs the program under runWasiThreadsProgram (a supervisor, the main
// thread in a worker).

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { native } from "../lib/native/binding.js";
import { programWasiUnavailable } from "../lib/program/wasi.js";
import { watToBytes } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { CLI, runChild, runCli } from "./support/cli-child.js";

const BOUND_MS = 60_000;
const unavailable = programWasiUnavailable();
const skip = unavailable
  ? `needs the program's C WASI (${unavailable.reason})`
  : typeof native.binding.exitProcess !== "function"
    ? "the addon predates exitProcess (node scripts/install.js --force): the CLI runs the program under a supervisor"
    : false;
const dir = mkdtempSync(join(tmpdir(), "wtp-cli-process-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
async function wasmFile(wat) {
  const file = join(dir, `m${files++}.wasm`);
  writeFileSync(file, await watToBytes(wat, "cli-process.wat"));
  return file;
}

const THREADED_IMPORTS = `(import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))`;

// _start returns at once: a threaded module that spawns nothing, and a plain one.
const EMPTY_THREADED = `(module ${THREADED_IMPORTS}
  (func (export "_start"))
  (func (export "wasi_thread_start") (param i32 i32)))`;
const EMPTY_PLAIN = `(module (memory (export "memory") 1) (func (export "_start")))`;

// The main thread spawns one thread, then spins in guest code for ever (no
// call out, no wait); the thread ends the program with `ending`.
const spinningMain = (ending) => `(module ${THREADED_IMPORTS}
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (func (export "_start") (drop (call $spawn (i32.const 0))) (loop $spin (br $spin)))
  (func (export "wasi_thread_start") (param i32 i32) ${ending}))`;

// CPU profiles written by `node --cpu-prof`: one per thread that ended its
// Node environment (the main thread, and each worker).
async function profilesOf(args, env = {}) {
  const profiles = mkdtempSync(join(dir, "prof-"));
  const r = await runChild(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profiles}`, CLI, ...args], {
    env: { ...process.env, ...env },
    timeoutMs: BOUND_MS,
  });
  assert.equal(r.code, 0, r.stderr);
  return readdirSync(profiles).filter((name) => name.endsWith(".cpuprofile")).length;
}

test("with node:wasi the runner supervises: the main thread in a worker, two CPU profiles", async () => {
  const profiles = await profilesOf(["run", await wasmFile(EMPTY_THREADED)], { WASI_THREAD_POOL_NODE_WASI: "1" });
  assert.equal(profiles, 2);
});

describe("the CLI's process is the program's", { skip }, () => {
  test("the guest's main thread runs on the process's main thread: no worker, one CPU profile", async () => {
    // Before, the main thread ran in a worker: two profiles.
    for (const wat of [EMPTY_THREADED, EMPTY_PLAIN]) {
      assert.equal(await profilesOf(["run", await wasmFile(wat)]), 1);
    }
  });

  test("the main thread's stack holds a guest recursion 12,000 frames deep", async () => {
    // Node's main thread has V8's default stack (about 984 KiB) where a
    // worker had 4 MiB; wasmtime's default is 512 KiB. Guest code starts in
    // Liftoff, whose frames are larger than TurboFan's (lib/worker/liftoff.js
    // no longer turns Liftoff off): some 16,400 frames of this function fit
    // (about 25,000 with --no-liftoff, measured on Node 20). The guard: a
    // deep recursion on the main thread still runs, with a margin.
    const recursion = `(module ${THREADED_IMPORTS}
      (func $down (param i32) (result i32)
        (if (result i32) (i32.eqz (local.get 0))
          (then (i32.const 0))
          (else (i32.add (i32.const 1) (call $down (i32.sub (local.get 0) (i32.const 1)))))))
      (func (export "_start") (drop (call $down (i32.const 12000))))
      (func (export "wasi_thread_start") (param i32 i32)))`;
    const r = await runCli(["run", await wasmFile(recursion)], { timeoutMs: BOUND_MS });
    assert.equal(r.code, 0, r.stderr);
  });

  for (const implementation of IMPLEMENTATIONS) {
    const cli = async (wat) => runCli(["run", "--implementation", implementation, await wasmFile(wat)], { timeoutMs: BOUND_MS });

    test(`a thread's proc_exit ends the process while the main thread spins in guest code (${implementation} pool)`, async () => {
      const r = await cli(spinningMain("(call $proc_exit (i32.const 7))"));
      assert.equal(r.code, 7, r.stderr);
      assert.equal(r.stderr, "");
    });

    test(`a thread's trap ends the process with 134 and says so, the main thread spinning (${implementation} pool)`, async () => {
      const r = await cli(spinningMain("(unreachable)"));
      assert.equal(r.code, 134, r.stderr);
      assert.match(r.stderr, /^wasi-thread-pool: thread 1 trapped: RuntimeError: unreachable/);
    });

    test(`a thread's proc_exit outside [0..126): exit 1 and the error, the main thread spinning (${implementation} pool)`, async () => {
      const r = await cli(spinningMain("(call $proc_exit (i32.const 300))"));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^wasi-thread-pool: proc_exit\(300\): exit with invalid exit status outside of \[0\.\.126\)\n$/);
    });
  }
});
