// Which WASI the program runner uses (lib/program/wasi.js): the program's C
// WASI where the addon has it, with stdio that is not a descriptor carried
// through pipes (stdin bytes in, stdout/stderr streams out, every byte, in
// order); node:wasi per thread otherwise, said once per process on stderr
// with what is lost, or silently when WASI_THREAD_POOL_NODE_WASI=1 asks
// for it. Each case runs two programs in a child process.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { native } from "../lib/native/binding.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HAS_WASI = typeof native.binding?.wasiCreate === "function";

// _start: reads stdin once (up to 100 bytes), writes what it read to stdout
// and to stderr.
const ECHO_WAT = `
(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 100))
    (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 4) (i32.load (i32.const 8)))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (call $write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))))
`;

// Two runs: stdin bytes, stdout and stderr collected from PassThrough
// streams. Prints one JSON line.
const CHILD = `
  import { PassThrough } from "node:stream";
  import { runWasiThreadsProgram } from "./lib/index.js";
  import { watToBytes } from "./test/fixtures/build.js";
  const bytes = await watToBytes(${JSON.stringify(ECHO_WAT)});
  const runs = [];
  for (const text of ["first\\n", "second\\n"]) {
    const collect = () => {
      const stream = new PassThrough();
      let out = "";
      stream.on("data", (chunk) => (out += chunk));
      return { stream, text: () => out };
    };
    const stdout = collect();
    const stderr = collect();
    const { exitCode } = await runWasiThreadsProgram(bytes, { stdin: text, stdout: stdout.stream, stderr: stderr.stream });
    runs.push({ exitCode, stdout: stdout.text(), stderr: stderr.text() });
  }
  process.stdout.write(JSON.stringify(runs) + "\\n");
`;

function runChild(env) {
  const child = spawnSync(process.execPath, ["--input-type=module", "--eval", CHILD], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WASI_THREAD_POOL_NO_ADDON: "", WASI_THREAD_POOL_NODE_WASI: "", ...env },
    timeout: 60000,
  });
  assert.equal(child.status, 0, `child failed:\n${child.stdout}\n${child.stderr}`);
  const runs = JSON.parse(child.stdout.trim().split("\n").pop());
  assert.deepEqual(runs, [
    { exitCode: 0, stdout: "first\n", stderr: "first\n" },
    { exitCode: 0, stdout: "second\n", stderr: "second\n" },
  ]);
  return child.stderr.split("\n").filter((line) => line.startsWith("wasi-thread-pool:"));
}

// _start: writes 8 times the 192 KiB from address 65536 to stdout (1.5 MiB,
// far more than a pipe holds), then returns at once.
const FLOOD_WAT = `
(module
  (import "env" "memory" (memory 4 4 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start") (local $i i32)
    (memory.fill (i32.const 65536) (i32.const 120) (i32.const 196608))
    (i32.store (i32.const 0) (i32.const 65536))
    (i32.store (i32.const 4) (i32.const 196608))
    (loop $again
      (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (br_if $again (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 8))))))
`;

describe("the runner's WASI", () => {
  it("without the addon: node:wasi per thread, said once, naming the reason and what is lost", () => {
    const said = runChild({ WASI_THREAD_POOL_NO_ADDON: "1" });
    assert.equal(said.length, 1, said.join("\n"));
    assert.match(said[0], /node:wasi, one per thread \(the addon did not load: WASI_THREAD_POOL_NO_ADDON=1\)/);
    assert.match(said[0], /one fd table/);
    assert.match(said[0], /sandbox/);
  });

  it("WASI_THREAD_POOL_NODE_WASI=1: node:wasi per thread, without a word", () => {
    assert.deepEqual(runChild({ WASI_THREAD_POOL_NODE_WASI: "1" }), []);
  });

  it("with the addon's WASI: stdin bytes and stdout/stderr streams through pipes, nothing said", { skip: !HAS_WASI }, () => {
    assert.deepEqual(runChild({}), []);
  });

  it("a stdout stream gets every byte written before the program's end", { skip: !HAS_WASI }, () => {
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "--eval",
        `
        import { PassThrough } from "node:stream";
        import { runWasiThreadsProgram } from "./lib/index.js";
        import { watToBytes } from "./test/fixtures/build.js";
        const stdout = new PassThrough();
        let bytes = 0;
        let other = 0;
        stdout.on("data", (chunk) => {
          bytes += chunk.length;
          other += chunk.filter((b) => b !== 120).length;
        });
        const { exitCode } = await runWasiThreadsProgram(await watToBytes(${JSON.stringify(FLOOD_WAT)}), { stdout });
        process.stdout.write(JSON.stringify({ exitCode, bytes, other }) + "\\n");
        `,
      ],
      { cwd: ROOT, encoding: "utf8", timeout: 60000 },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim()), { exitCode: 0, bytes: 8 * 196608, other: 0 });
  });

  it("a preopen that cannot be opened rejects with an Error naming it", { skip: !HAS_WASI }, async () => {
    const { runWasiThreadsProgram } = await import("../lib/index.js");
    const { watToBytes } = await import("./fixtures/build.js");
    const missing = join(tmpdir(), `wtp-no-such-dir-${process.pid}`);
    await assert.rejects(
      runWasiThreadsProgram(await watToBytes(ECHO_WAT), { stdin: "", preopens: { "/data": missing } }),
      (error) => {
        assert.equal(error.name, "Error");
        assert.ok(error.message.includes(missing), error.message);
        return true;
      },
    );
  });

  it("process.exit() while a thread is blocked in a read of stdin ends the process", { skip: !HAS_WASI }, async () => {
    // The child's stdin is a pipe this test keeps open: the program's read
    // blocks in C until the WASI is stopped.
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "--eval",
        `
        import { runWasiThreadsProgram } from "./lib/index.js";
        import { watToBytes } from "./test/fixtures/build.js";
        runWasiThreadsProgram(await watToBytes(${JSON.stringify(ECHO_WAT)}));
        setTimeout(() => process.exit(3), 500);
        `,
      ],
      { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const started = performance.now();
    let timer;
    const code = await new Promise((resolve) => {
      child.once("exit", (exitCode) => resolve(exitCode));
      // Unsticks the child if it hangs, so that the test ends either way.
      timer = setTimeout(() => child.stdin.end(), 20000);
    });
    clearTimeout(timer);
    child.stdin.destroy();
    const ms = performance.now() - started;
    assert.equal(code, 3, stderr);
    assert.ok(ms < 15000, `the process took ${Math.round(ms)} ms to exit`);
  });

  it("a stdin stream reaches the program's read", { skip: !HAS_WASI }, async () => {
    const { runWasiThreadsProgram } = await import("../lib/index.js");
    const { watToBytes } = await import("./fixtures/build.js");
    const { PassThrough, Readable } = await import("node:stream");
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (chunk) => (out += chunk));
    const stdin = Readable.from([Buffer.from("from a stream\n")]);
    const { exitCode } = await runWasiThreadsProgram(await watToBytes(ECHO_WAT), { stdin, stdout, stderr: new PassThrough() });
    assert.equal(exitCode, 0);
    assert.equal(out, "from a stream\n");
  });
});
