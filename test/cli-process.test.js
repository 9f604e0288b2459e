// The CLI's process is the program's (lib/program/process.js,
// docs/runner.md "The CLI's process"): where the program's C WASI serves,
// the guest's main thread runs on the process's main thread, with no worker
// of its own, and the program's end on any thread ends the process with the
// program's status, whatever the main thread is doing. With node:wasi the
// CLI runs the program under runWasiThreadsProgram (a supervisor, the main
// thread in a worker).

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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

// guest/spawn/spawn.c (scripts/build-c-guests.sh: clang-19 and
// ../shared/wasi-threads-sysroot).
const SPAWN_WASM = fileURLToPath(new URL("../guest/out/spawn.wasm", import.meta.url));
function spawnGuestMissing() {
  if (!existsSync(SPAWN_WASM)) {
    try {
      execFileSync("sh", ["scripts/build-c-guests.sh"], { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: "ignore" });
    } catch {
      // said below
    }
  }
  return existsSync(SPAWN_WASM) ? false : "guest/out/spawn.wasm not built (clang-19 and ../shared/wasi-threads-sysroot)";
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
  // Without the spare worker (lib/program/spare-worker.js), a third.
  const profiles = await profilesOf(["run", await wasmFile(EMPTY_THREADED)], {
    WASI_THREAD_POOL_NODE_WASI: "1",
    WASI_THREAD_POOL_SPARE: "0",
  });
  assert.equal(profiles, 2);
});

describe("the CLI's process is the program's", { skip }, () => {
  test("the guest's main thread runs on the process's main thread: no worker, one CPU profile", async () => {
    // Before, the main thread ran in a worker: two profiles.
    for (const wat of [EMPTY_THREADED, EMPTY_PLAIN]) {
      // The threaded one without its spare worker (lib/program/spare-worker.js).
      assert.equal(await profilesOf(["run", await wasmFile(wat)], { WASI_THREAD_POOL_SPARE: "0" }), 1);
    }
  });

  // Workers started ahead for a burst (lib/program/threads.js, feedQueue)
  // are for threads already queued: a program that spawns nothing, one
  // thread, or one thread at a time gets a worker per thread and its spare,
  // never more (one CPU profile per thread of the process).
  describe("no worker is started ahead of a thread", { skip: spawnGuestMissing() }, () => {
    test("a plain program: one profile; a threaded one that spawns nothing: at most its spare's too", async () => {
      assert.equal(await profilesOf(["run", await wasmFile(EMPTY_PLAIN)]), 1);
      // The spare's profile is written only if the spare got as far as its
      // own JavaScript before the program's end ended it (on Node 24 and 26
      // a program that does nothing often ends first): one or two, never more.
      const threaded = await profilesOf(["run", await wasmFile(EMPTY_THREADED)]);
      assert.ok(threaded === 1 || threaded === 2, `${threaded} profiles`);
    });

    test("a program that spawns one thread: it runs on the spare, two profiles", async () => {
      assert.equal(await profilesOf(["run", SPAWN_WASM, "alive", "1"]), 2);
    });

    test("three threads spawned one after another, each staying alive: the spare and two new workers", async () => {
      assert.equal(await profilesOf(["run", SPAWN_WASM, "starts", "3"]), 4);
    });
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

// A trap's report: the runner's one line and the guest's frames, innermost
// first, none of the runner's own JS frames (install paths) below them.
describe("a trap's report shows the guest's frames, not the runner's", () => {
  const nested = (where) => `(module ${THREADED_IMPORTS}
    (func $inner (unreachable))
    (func $outer (call $inner))
    (func (export "_start") ${where === "main" ? "(call $outer)" : "(drop (call $spawn (i32.const 0))) (loop $spin (br $spin))"})
    (func (export "wasi_thread_start") (param i32 i32) (call $outer)))`;
  const cases = [
    ...IMPLEMENTATIONS.map((implementation) => ({ where: "thread", implementation, env: {} })),
    { where: "main", implementation: IMPLEMENTATIONS[0], env: {} },
    { where: "thread", implementation: IMPLEMENTATIONS[0], env: { WASI_THREAD_POOL_NODE_WASI: "1" } },
  ];
  for (const { where, implementation, env } of cases) {
    const name = `${where === "main" ? "the main thread" : "a thread"} (${implementation} pool${env.WASI_THREAD_POOL_NODE_WASI ? ", node:wasi" : ""})`;
    test(`a trap on ${name}`, async () => {
      const r = await runCli(["run", "--implementation", implementation, await wasmFile(nested(where))], {
        env,
        timeoutMs: BOUND_MS,
      });
      assert.equal(r.code, 134, r.stderr);
      const lines = r.stderr.trimEnd().split("\n");
      const who = where === "main" ? "the main thread" : "thread 1";
      assert.equal(lines[0], `wasi-thread-pool: ${who} trapped: RuntimeError: unreachable`, r.stderr);
      // $inner, $outer, and _start or wasi_thread_start: three guest frames, nothing else.
      assert.equal(lines.length, 4, r.stderr);
      for (const frame of lines.slice(1))
        assert.match(frame, /^ {4}at wasm:\/\/wasm\/[0-9a-f]+:wasm-function\[\d+\]:0x[0-9a-f]+$/);
    });
  }
});

// A program that writes into a pipe no one reads any more, ignoring the
// error (`yes | head -1`), ends with 141 (128 + SIGPIPE) as a native one does,
// instead of retrying for ever (docs/runner.md, "A write into a closed pipe
// ends the program").
describe("a write into a closed pipe ends the program with 141", () => {
  const yes = (where) => `(module ${where === "plain" ? "" : THREADED_IMPORTS}
    (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
    ${where === "plain" ? '(memory (export "memory") 1)' : ""}
    (data (i32.const 64) "y\\n")
    (func $yes
      (i32.store (i32.const 16) (i32.const 64))
      (i32.store (i32.const 20) (i32.const 2))
      (loop $again (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))) (br $again)))
    (func (export "_start") ${where === "thread" ? "(drop (call $spawn (i32.const 0))) (loop $spin (br $spin))" : "(call $yes)"})
    ${where === "plain" ? "" : '(func (export "wasi_thread_start") (param i32 i32) (call $yes))'})`;

  // Runs the CLI with its stdout a pipe whose reading end closes after the
  // first bytes; resolves its exit code (null: killed at the bound).
  function firstLineOnly(args, env) {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
      child.stdout.once("data", () => child.stdout.destroy());
      const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
  }

  const cases = [
    ...IMPLEMENTATIONS.map((implementation) => ({ where: "thread", implementation, env: {} })),
    { where: "main", implementation: IMPLEMENTATIONS[0], env: {} },
    { where: "plain", implementation: IMPLEMENTATIONS[0], env: {} },
    { where: "thread", implementation: IMPLEMENTATIONS[0], env: { WASI_THREAD_POOL_NODE_WASI: "1" } },
  ];
  for (const { where, implementation, env } of cases) {
    const name = `${where} (${implementation} pool${env.WASI_THREAD_POOL_NODE_WASI ? ", node:wasi" : ""})`;
    test(`yes | head -1: ${name}`, async () => {
      const r = await firstLineOnly(["run", "--implementation", implementation, await wasmFile(yes(where))], env);
      assert.equal(r.code, 141, `exit ${r.code} (null: still writing after ${BOUND_MS} ms)\n${r.stderr}`);
      assert.equal(r.stderr, "");
    });
  }
});
