// The CLI's spare worker (docs/runner.md, "The first thread's worker starts
// with the program"): a program that imports wasi.thread-spawn is very
// likely to spawn, and its first thread otherwise waits for a whole worker
// start (Node's worker bootstrap, the runner's bundle, the addon) after its
// pthread_create. So the CLI starts one pool worker as soon as it has read
// the module, before it loads the runner and compiles: the worker
// bootstraps while the main thread does that work, then waits for its
// program (a message). Once the program exists, the main thread opens pool
// slot 0 for it and arms it (idle, before any thread is spawned): the first
// spawn claims it at once, and its thread runs as soon as the worker is up.
// A plain program (no thread-spawn) gets no spare and pays nothing but the
// import scan. Loaded by bin/wasi-thread-pool.js before the runner (no pool
// or addon here); lib/program/process.js hands the program over.
// runWasiThreadsProgram (lib/program/run.js) starts its spare beside the
// main thread's worker instead (lib/program/pool.js, openSpareSlots and
// startSpare), with spareCount().

import { Worker } from "node:worker_threads";
import { declarationsOf } from "../worker/wasm-memory.js";
import { workerEntryUrl } from "../worker/entries.js";
import { envCount } from "../worker/env-switch.js";

// Where the program's C WASI serves (lib/program/wasi.js).
const SERVED = ["linux", "darwin"];

// Whether the module's bytes import wasi.thread-spawn (false when they do
// not parse: the runner says why later).
export function importsThreadSpawn(bytes) {
  try {
    return declarationsOf(bytes).all.some((e) => e.module === "wasi" && e.name === "thread-spawn");
  } catch {
    return false;
  }
}

export const SPARE_ENV = "WASI_THREAD_POOL_SPARE";

// How many spares a threaded program gets: WASI_THREAD_POOL_SPARE, an
// integer from 0 to 8 (0: none, the bench's comparison:
// bench/lib/thread-start.js), 1 by default; any other value is a RangeError
// naming the variable.
export function spareCount(env = process.env) {
  return envCount(env, SPARE_ENV, { least: 0, most: 8, fallback: 1 });
}

// `count` workers that wait for their program (spareCount()), or none when
// the module would not use them (no thread-spawn), the process's flags need
// the workers' execArgv worked out first (--input-type:
// lib/program/setup.js), or the program will run on node:wasi.
export function startSpareWorkers(bytes, count) {
  if (count === 0 || process.execArgv.some((arg) => arg.startsWith("--input-type"))) return [];
  // node:wasi asked for (lib/program/wasi.js): the program runs under a
  // supervisor, with no spare; where the C WASI is missing the spare is
  // found out later, and terminated.
  if (process.env.WASI_THREAD_POOL_NODE_WASI === "1" || !SERVED.includes(process.platform)) return [];
  if (!importsThreadSpawn(bytes)) return [];
  return Array.from({ length: count }, () => {
    const worker = new Worker(workerEntryUrl("program"), { workerData: { spare: true } });
    // It never keeps the process alive, and its failures are not the program's
    // (a spare that fails to start leaves its slot's thread to the queue
    // watcher, as a grown worker that fails does).
    worker.unref();
    worker.on("error", () => {});
    return worker;
  });
}
