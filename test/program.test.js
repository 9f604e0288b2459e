// runWasiThreadsProgram and the CLI: WASI's process semantics for programs of
// many threads (docs/runner.md). Every program runs in a child process with
// a bound, on both pool implementations, with a real pipe as its stdin.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileWasiThreadGuest, describeWasiThreadsMemory, runWasiThreadsProgram } from "../lib/index.js";
import { describeProgramMemory } from "../lib/worker/wasm-memory.js";
import { watToBytes } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { REFUSED, buildProgram } from "./support/program-guests.js";

const CHILD = fileURLToPath(new URL("./support/program-child.js", import.meta.url));
const CLI = fileURLToPath(new URL("../bin/wasi-thread-pool.js", import.meta.url));
// Generous: a run takes well under a second here; a hang is what this catches.
const BOUND_MS = 60_000;

// Runs `args` with node; writes `input` to its stdin and keeps stdin open
// (unless `end`), so that a thread reading stdin stays blocked in fd_read.
function run(args, { env = {}, input = "x", end = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.stdin.on("error", () => {});
    child.stdin.write(input);
    if (end) child.stdin.end();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not end within ${BOUND_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, BOUND_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      child.stdin.destroy();
      const line = stderr.split("\n").find((l) => l.startsWith("RESULT "));
      resolve({ code, signal, stdout, stderr, result: line ? JSON.parse(line.slice(7)) : null });
    });
  });
}

function runProgram(name, implementation, { env = {}, ...options } = {}) {
  return run([CHILD], { ...options, env: { ...env, WTP_SCENARIO: name, WTP_IMPL: implementation } });
}

// A host directory holding hello.txt, for the preopen programs.
const FILES = mkdtempSync(join(tmpdir(), "wtp-preopen-"));
writeFileSync(join(FILES, "hello.txt"), "hello from a preopened directory\n");
after(() => rmSync(FILES, { recursive: true, force: true }));

function assertExit(r, exitCode) {
  assert.equal(r.code, 0, `child exit ${r.code} (${r.signal})\nstderr:\n${r.stderr}`);
  assert.ok(r.result, `no RESULT line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.equal(r.result.exitCode, exitCode, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
}

// Each writer thread's lines, in the order they reached stdout: every thread
// wrote t<tid>-00 .. t<tid>-99, then "t<tid> end" without a newline, where
// <tid> is the character "0" + tid. The tids are whatever the spawns returned
// (unique and positive: the runner's trampolines take tids from the same
// counter, so a program's threads need not be 1, 2, 3), so the writers are
// told apart by their tids and counted.
function assertWriters(stdout, count) {
  const seen = new Map();
  for (const match of stdout.matchAll(/t([\s\S])(-\d\d\n| end)/g)) {
    const tid = match[1].charCodeAt(0) - 48;
    assert.ok(tid > 0, `writer tid ${tid}`);
    if (!seen.has(tid)) seen.set(tid, []);
    seen.get(tid).push(match[2] === " end" ? "end" : match[2].slice(1, 3));
  }
  assert.equal(seen.size, count, `writers ${[...seen.keys()].join(", ")}`);
  const expected = [...Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0")), "end"];
  for (const [tid, lines] of seen) assert.deepEqual(lines, expected, `thread ${tid}'s output`);
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`runWasiThreadsProgram on the ${implementation} pool`, () => {
    test("proc_exit on the main thread ends threads blocked in a wait, a loop and fd_read; its partial line is kept", async () => {
      const r = await runProgram("main-exit", implementation);
      assertExit(r, 3);
      assert.equal(r.stdout, "main says bye");
    });

    test("proc_exit on a thread ends the program while the main thread waits", async () => {
      const r = await runProgram("thread-exit-main-waits", implementation);
      assertExit(r, 5);
      assert.equal(r.stdout, "exiter");
    });

    test("proc_exit on a thread ends the program while the main thread busy-loops", async () => {
      const r = await runProgram("thread-exit-main-busy", implementation);
      assertExit(r, 5);
      assert.equal(r.stdout, "exiter");
    });

    test("proc_exit on a thread ends the program while the main thread sits in fd_read", async () => {
      const r = await runProgram("thread-exit-main-reads", implementation);
      assertExit(r, 5);
      assert.equal(r.stdout, "exiter");
    });

    test("_start returning ends the program with 0 while other threads block", async () => {
      const r = await runProgram("start-returns", implementation);
      assertExit(r, 0);
      assert.equal(r.stdout, "");
    });

    test("a trap on a thread ends every thread: exit code 134, the thread and the trap on stderr", async () => {
      const r = await runProgram("thread-trap", implementation);
      assertExit(r, 134);
      assert.match(r.stderr, /wasi-thread-pool: thread 3 trapped: RuntimeError: unreachable/);
    });

    test("a thread whose instance cannot be made ends the program as a trap", async () => {
      const r = await runProgram("thread-instantiate-fails", implementation);
      assertExit(r, 134);
      assert.match(r.stderr, /wasi-thread-pool: thread 1 \(instantiation\) trapped: RuntimeError: unreachable/);
    });

    test("a trap on the main thread ends every thread: exit code 134", async () => {
      const r = await runProgram("main-trap", implementation);
      assertExit(r, 134);
      assert.match(r.stderr, /wasi-thread-pool: the main thread trapped: RuntimeError: unreachable/);
    });

    test("output of every thread reaches stdout in order per thread, nothing lost at proc_exit", async () => {
      const r = await runProgram("output", implementation);
      assertExit(r, 0);
      assertWriters(r.stdout, 3);
      assert.ok(r.stdout.endsWith("main says bye"), JSON.stringify(r.stdout.slice(-40)));
    });

    test("stdout and stderr streams without a file descriptor get every thread's output and the trap", async () => {
      const out = await runProgram("output", implementation, { env: { WTP_STREAMS: "1" } });
      assertExit(out, 0);
      assertWriters(out.stdout, 3);
      assert.ok(out.stdout.endsWith("main says bye"), JSON.stringify(out.stdout.slice(-40)));
      const trap = await runProgram("thread-trap", implementation, { env: { WTP_STREAMS: "1" } });
      assertExit(trap, 134);
      assert.match(trap.stderr, /wasi-thread-pool: thread 3 trapped: RuntimeError: unreachable/);
    });

    test('a memory imported as "a" "b" links in every thread', async () => {
      const r = await runProgram("memory-a-b", implementation);
      assertExit(r, 0);
      assertWriters(r.stdout, 2);
    });

    test("a preopened directory: the program opens and reads a host file", async () => {
      const r = await runProgram("preopen", implementation, { env: { WTP_PREOPENS: JSON.stringify({ "/files": FILES }) } });
      assertExit(r, 0);
      assert.equal(r.stdout, "hello from a preopened directory\n");
    });

    test("a thread reads the process's stdin to its end", async () => {
      const input = "hello\nworld, no newline";
      const r = await runProgram("cat", implementation, { input, end: true });
      assertExit(r, 0);
      assert.equal(r.stdout, input);
    });
  });
}

describe("the wasi-thread-pool CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "wtp-cli-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function wasmFile(name) {
    const file = join(dir, `${name}.wasm`);
    writeFileSync(file, await buildProgram(name));
    return file;
  }

  for (const implementation of IMPLEMENTATIONS) {
    test(`exits with the program's exit code (${implementation})`, async () => {
      const r = await run([CLI, "run", "--implementation", implementation, await wasmFile("thread-exit-main-busy")]);
      assert.equal(r.code, 5, r.stderr);
      assert.equal(r.stdout, "exiter");
    });

    test(`a trap exits with 134 (${implementation})`, async () => {
      const r = await run([CLI, "run", `--implementation=${implementation}`, "--pool", "4", await wasmFile("thread-trap")]);
      assert.equal(r.code, 134);
      assert.match(r.stderr, /thread 3 trapped: RuntimeError: unreachable/);
    });
  }

  test("--dir HOST::GUEST preopens a directory", async () => {
    const r = await run([CLI, "run", "--dir", `${FILES}::/files`, await wasmFile("preopen")], { end: true });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "hello from a preopened directory\n");
  });

  test("--help documents the command and its options", async () => {
    const r = await run([CLI, "--help"], { end: true });
    assert.equal(r.code, 0);
    for (const word of [
      "[run] [OPTIONS] <WASM> [ARGS]...",
      "--env <NAME[=VAL]>",
      "--dir <HOST_DIR[::GUEST_DIR]>",
      "--pool <N>",
      "--implementation",
    ]) {
      assert.ok(r.stdout.includes(word), word);
    }
  });

  test("a bad option exits with 2 and says why", async () => {
    const r = await run([CLI, "run", "--pool", "zero", "app.wasm"], { end: true });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--pool must be an integer from 1 to 268435454 \(got "zero"\)/);
  });
});

describe("programs the runner refuses", () => {
  for (const [name, { source, message }] of Object.entries(REFUSED)) {
    test(`${name}: rejected with a TypeError that says why`, async () => {
      const bytes = await watToBytes(source, `${name}.wat`);
      await assert.rejects(runWasiThreadsProgram(bytes), (error) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.match(error.message, message);
        return true;
      });
    });
  }

  test("the memory's import name and limits are read from the binary", async () => {
    const bytes = await watToBytes('(module (import "a" "b" (memory 3 17 shared)))');
    assert.deepEqual(describeProgramMemory(bytes), { module: "a", name: "b", initial: 3, maximum: 17, shared: true });
  });

  test("options are checked and name themselves", async () => {
    const bytes = await buildProgram("start-returns");
    await assert.rejects(runWasiThreadsProgram(bytes, { poolSize: 0 }), { name: "RangeError", message: /options\.poolSize/ });
    await assert.rejects(runWasiThreadsProgram(bytes, { implementation: "fast" }), {
      name: "RangeError",
      message: /options\.implementation/,
    });
    await assert.rejects(runWasiThreadsProgram(bytes, { env: { A: 1 } }), { name: "TypeError", message: /options\.env\.A/ });
    await assert.rejects(runWasiThreadsProgram(bytes, { colour: true }), {
      name: "TypeError",
      message: /unknown option "colour"/,
    });
    await assert.rejects(runWasiThreadsProgram(new WebAssembly.Module(await watToBytes("(module)"))), {
      name: "TypeError",
      message: /pass the program's bytes/,
    });
  });

  test("a module compiled by compileWasiThreadGuest runs: its memory's limits were kept", async () => {
    const source =
      '(module (import "a" "b" (memory 2 3 shared)) (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32))) ' +
      '(func (export "_start") (if (i32.ne (memory.size) (i32.const 2)) (then (unreachable))) (call $exit (i32.const 9))))';
    const module = await compileWasiThreadGuest(await watToBytes(source));
    assert.deepEqual(describeWasiThreadsMemory(module), { module: "a", name: "b", initial: 2, maximum: 3, shared: true });
    assert.deepEqual(await runWasiThreadsProgram(module, { stdin: null }), { exitCode: 9 });
  });
});

test("the browser entry's runWasiThreadsProgram, outside a cross-origin isolated page, rejects naming the two headers", async () => {
  const browser = await import("../lib/index.browser.js");
  await assert.rejects(
    browser.runWasiThreadsProgram(new Uint8Array(8)),
    /cross-origin isolated page .*Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp/,
  );
  assert.equal(browser.TRAP_EXIT_CODE, 134);
  const bytes = await watToBytes('(module (import "m" "n" (memory 1 2 shared)))');
  assert.deepEqual(browser.describeWasiThreadsMemory(bytes), { module: "m", name: "n", initial: 1, maximum: 2, shared: true });
});
