// runWasiThreadsProgram with a caller's stream (no file descriptor) as the
// program's stdout, on the C WASI (its output pipes) and on the node:wasi
// fallback (its output ring): the stream is the reader of a pipe
// (docs/runner.md, "A caller's streams").
//   - A stream that is destroyed, ended or fails is a reader that has gone:
//     the program ends as a write into a closed pipe ends it, with 141,
//     whether it writes from the main thread or another thread.
//   - A stream that is not read makes the program's writer wait, with the
//     stream's buffer bounded: nothing grows while it waits, every byte
//     arrives, in order, once the stream is read, and proc_exit or a trap on
//     another thread still ends the program.
// Every run is a child process (test/support/stream-child.js) with a bound.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { programWasiUnavailable } from "../lib/program/wasi.js";
import { CHUNK_BYTES } from "./support/stream-guests.js";

const CHILD = fileURLToPath(new URL("./support/stream-child.js", import.meta.url));
// A run takes a few seconds here (1.5 of them watching a stream no one
// reads); a hang is what this catches.
const BOUND_MS = 60_000;
// The stream's own buffer (16 KiB) plus what the runner hands it in one
// go (a 64 KiB pipe read, a ring record of at most 256 KiB); the runner
// before it waited for 'drain' buffered the whole output (64 MiB here).
const MOST_BUFFERED = 1 << 20;
// RSS growth while the writer waits: a few MiB of noise; the runner that
// buffered grew by the output's size (and more) within the watch.
const MOST_RSS_GROWTH = 48 << 20;
const CHUNKS = 1024; // 64 MiB

function runCase(shape, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...env, WTP_STREAM_CASE: JSON.stringify(shape) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stdout.resume();
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${JSON.stringify(shape)} did not end within ${BOUND_MS} ms\nstderr:\n${stderr}`));
    }, BOUND_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stderr.split("\n").find((l) => l.startsWith("RESULT "));
      assert.equal(code, 0, `child exit ${code} (${signal})\nstderr:\n${stderr}`);
      assert.ok(line, `no RESULT line\nstderr:\n${stderr}`);
      resolve({ ...JSON.parse(line.slice(7)), stderr });
    });
  });
}

// The writer waited while no one read: the run did not end, and neither the
// stream's buffer nor the process grew.
function assertWaited(r) {
  assert.equal(r.endedUnread, false, "the run ended while its stdout was not read: the writer did not wait");
  assert.ok(r.mostBuffered <= MOST_BUFFERED, `the stream buffered ${r.mostBuffered} bytes while not read`);
  assert.ok(r.rssGrowth <= MOST_RSS_GROWTH, `RSS grew by ${(r.rssGrowth / 2 ** 20).toFixed(1)} MiB while not read`);
}

const THREAD = { main: "the main thread", thread: "another thread" };

const WASIS = [
  { name: "the C WASI", env: {}, skip: programWasiUnavailable() ? "no C WASI here" : false },
  { name: "the node:wasi fallback", env: { WASI_THREAD_POOL_NODE_WASI: "1" }, skip: false },
];

for (const { name, env, skip } of WASIS) {
  describe(`a caller's stream as stdout, on ${name}`, { skip }, () => {
    for (const writer of ["main", "thread"]) {
      test(`a destroyed stream: a writer on ${THREAD[writer]} ends the program with 141`, async () => {
        const r = await runCase({ writer, stdout: "destroyed" }, env);
        assert.equal(r.exitCode, 141, r.stderr);
      });
    }

    test("an ended stream: the program ends with 141, and the caller's process gets no write-after-end error", async () => {
      const r = await runCase({ writer: "main", stdout: "ended" }, env);
      assert.equal(r.exitCode, 141, r.stderr);
    });

    test("a stream whose writes fail: the program ends with 141, and the caller's process gets no 'error'", async () => {
      const r = await runCase({ writer: "thread", stdout: "failing" }, env);
      assert.equal(r.exitCode, 141, r.stderr);
    });

    test("a stream whose write() throws: the program ends with 141, and the run settles", async () => {
      const r = await runCase({ writer: "main", stdout: "throwing" }, env);
      assert.equal(r.exitCode, 141, r.stderr);
    });

    test("a stream destroyed while the writer waits for it: the wait ends, and the program with 141", async () => {
      const r = await runCase({ writer: "thread", stdout: "paused", act: "destroy" }, env);
      assertWaited(r);
      assert.equal(r.exitCode, 141, r.stderr);
    });

    for (const writer of ["main", "thread"]) {
      test(`a stream no one reads: the writer on ${THREAD[writer]} waits; once read, every byte in order`, async () => {
        const r = await runCase({ writer, chunks: CHUNKS, stdout: "paused", act: "read" }, env);
        assertWaited(r);
        assert.equal(r.exitCode, 0, r.stderr);
        assert.equal(r.bytes, CHUNKS * CHUNK_BYTES);
        assert.ok(r.inOrder, "the bytes arrived out of order");
      });
    }

    for (const [writer, then, exitCode] of [
      ["main", "exit", 7],
      ["main", "trap", 134],
      ["thread", "exit", 7],
      ["thread", "trap", 134],
    ]) {
      const ender = writer === "main" ? "another thread" : "the main thread";
      test(`${then === "exit" ? "proc_exit" : "a trap"} on ${ender} ends the program while a write on ${THREAD[writer]} waits`, async () => {
        const r = await runCase({ writer, then, stdout: "paused", act: "stdin" }, env);
        assertWaited(r);
        assert.equal(r.exitCode, exitCode, r.stderr);
        if (then === "trap") assert.match(r.stderr, /trapped/);
        assert.ok(r.inOrder, "the bytes written before the end arrived out of order");
      });
    }
  });
}
