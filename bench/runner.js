// Start-up and stop times of runWasiThreadsProgram (docs/runner.md):
//
//   node bench/runner.js [--runs N]
//
// Each program reads the monotonic clock (clock_time_get, which is uv_hrtime,
// the clock of process.hrtime) and writes the 8 bytes to fd 1, which the
// bench points at a temporary file:
//   start:   _start's first act; start-up = that time - the call's time
//   exit-N:  N other threads (a wait, a busy loop, an fd_read on a stdin that
//            never ends) started, then the main thread's last act before
//            proc_exit(0); stop = the promise's resolution - that time
//   thread-exit: the same, the stamp and proc_exit on a thread while the
//            main thread waits
// The implementations are interleaved run by run. Wall times; the machine's
// load is not controlled (say so when quoting).

import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { runWasiThreadsProgram } from "../lib/index.js";
import { watToBytes } from "../test/fixtures/build.js";
import { IMPLEMENTATIONS } from "../test/support/impls.js";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 15;

const program = (main) => `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (func $stamp
    (drop (call $clock (i32.const 1) (i64.const 0) (i32.const 256)))
    (i32.store (i32.const 128) (i32.const 256))
    (i32.store (i32.const 132) (i32.const 8))
    (drop (call $fd_write (i32.const 1) (i32.const 128) (i32.const 1) (i32.const 136))))
  (func $started (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1))) (drop (memory.atomic.notify (i32.const 0) (i32.const -1))))
  (func $await (param $n i32) (local $v i32)
    (block $done (loop $again
      (local.set $v (i32.atomic.load (i32.const 0)))
      (br_if $done (i32.ge_u (local.get $v) (local.get $n)))
      (drop (memory.atomic.wait32 (i32.const 0) (local.get $v) (i64.const -1)))
      (br $again))))
  (func (export "wasi_thread_start") (param $tid i32) (param $kind i32)
    (if (i32.eq (local.get $kind) (i32.const 1))
      (then (call $started) (loop $w (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const -1))) (br $w))))
    (if (i32.eq (local.get $kind) (i32.const 2)) (then (call $started) (loop $b (br $b))))
    (if (i32.eq (local.get $kind) (i32.const 3))
      (then (call $started)
        (i32.store (i32.const 160) (i32.const 512)) (i32.store (i32.const 164) (i32.const 16))
        (drop (call $fd_read (i32.const 0) (i32.const 160) (i32.const 1) (i32.const 168)))))
    (if (i32.eq (local.get $kind) (i32.const 4))
      (then (call $await (i32.const 3)) (call $stamp) (call $proc_exit (i32.const 0)))))
  (func (export "_start") ${main}))`;

const PROGRAMS = {
  start: program("(call $stamp)"),
  "exit-0": program("(call $stamp) (call $proc_exit (i32.const 0))"),
  "exit-3": program(
    "(drop (call $spawn (i32.const 1))) (drop (call $spawn (i32.const 2))) (drop (call $spawn (i32.const 3))) (call $await (i32.const 3)) (call $stamp) (call $proc_exit (i32.const 0))",
  ),
  "thread-exit": program(
    "(drop (call $spawn (i32.const 1))) (drop (call $spawn (i32.const 2))) (drop (call $spawn (i32.const 3))) (drop (call $spawn (i32.const 4))) (loop $w (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const -1))) (br $w))",
  ),
};

const dir = mkdtempSync(join(tmpdir(), "wtp-runner-bench-"));
const ms = (ns) => Number(ns) / 1e6;

async function once(bytes, implementation) {
  const file = join(dir, "stamp");
  const fd = openSync(file, "w+");
  const stdin = new PassThrough(); // never ends
  const cpu0 = process.cpuUsage();
  const called = process.hrtime.bigint();
  await runWasiThreadsProgram(bytes, { implementation, stdout: fd, stdin, poolSize: 8 });
  const resolved = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  closeSync(fd);
  const stamp = readFileSync(file).readBigUint64LE(0);
  return {
    startup: ms(stamp - called),
    stop: ms(resolved - stamp),
    total: ms(resolved - called),
    cpu: (cpu.user + cpu.system) / 1000,
  };
}

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `p50 ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms`;
}

const results = {};
for (const [name, source] of Object.entries(PROGRAMS)) {
  const bytes = await watToBytes(source, `${name}.wat`);
  for (let i = 0; i < runs; i++) {
    for (const impl of IMPLEMENTATIONS) {
      const r = await once(bytes, impl);
      const key = `${name} ${impl}`;
      (results[key] ??= []).push(r);
    }
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(`runWasiThreadsProgram, ${runs} runs each, implementations interleaved (process CPU includes every thread)`);
for (const [key, list] of Object.entries(results)) {
  const name = key.split(" ")[0];
  const main = name === "start" ? "start-up" : "proc_exit to resolve";
  const figure = name === "start" ? list.map((r) => r.startup) : list.map((r) => r.stop);
  console.log(
    `${key.padEnd(18)} ${main}: ${summary(figure)}; whole call ${summary(list.map((r) => r.total))}; CPU ${summary(list.map((r) => r.cpu))}`,
  );
}
