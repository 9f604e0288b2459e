// The pool side of a program's threads (lib/program/threads.js): the spawns
// every thread of a program uses, and the workers they start. Node only.
//
// Workers are lib/program/pool-worker.js, started as its one-file build
// (dist/pool-worker.cjs, scripts/bundle-workers.js) where there is one
// (lib/worker/entries.js), with the
// program's runtime: lib/program/wasi-c.js when the supervisor made a C WASI
// (program.wasiId), else lib/program/wasi-node.js (both through
// lib/program/runtime.js). Under runWasiThreadsProgram every worker is the
// supervisor's: a guest thread's spawn asks the supervisor to start it
// (lib/program/starts.js), and the supervisor terminates them all with the
// program. A program that owns its process (the CLI) starts a worker on the
// thread that spawns (the main thread, a pool worker or the queue's watcher).

import { Worker } from "node:worker_threads";
import { native } from "../native/binding.js";
import { H_CAPACITY, H_SLOTS } from "../pool/layout.js";
// lib/pool.js first: it hands the addon to lib/pool/backend.js.
import "../pool.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { requestWorkerStart, takeWorkerStarts } from "./starts.js";
import { cpuCount, createProgramSpawn, feedQueue, noteGrow } from "./threads.js";
import { workerEntryUrl } from "../worker/entries.js";

// Slot's pool worker, on this thread ({spare: true}: a spare,
// lib/program/spare-worker.js).
function startPoolWorker({ wasmModule, memory, processState }, slot, { spare = false } = {}) {
  const { program } = processState;
  const workerData = { wasmModule, memory, processState, pool: program.pool, slot, wasiThreadPoolAddonPath: native.path };
  if (spare) workerData.spare = true;
  const worker = new Worker(workerEntryUrl("program"), { execArgv: program.execArgv, workerData });
  worker.unref();
  // Faults of guest threads reach the supervisor through the program's
  // control words (lib/program/control.js), not through this event.
  worker.on("error", () => {});
  return worker;
}

// The pool's grow(slot): notes when slot's worker was asked for, then
// start(slot).
function createWorkerGrower(program, start) {
  return function grow(slot) {
    noteGrow(program, slot);
    start(slot);
  };
}

// The pool's two spawns without a wait (the pool's spawnWaitMs is 0 for a
// program): claim() takes an idle worker; growing() also starts a worker
// when none is idle and the pool has room, and says whether it did.
function createPoolSpawns(options, start) {
  const { program } = options.processState;
  const { pool } = program;
  const grower = createWorkerGrower(program, start);
  let grew = false;
  const poolOps = bindWasiThreadPool(pool);
  const claim = poolOps.createSpawn({});
  const growSpawn = poolOps.createSpawn({
    grow(slot) {
      grower(slot);
      grew = true;
    },
  });
  const growing = (startArg) => {
    grew = false;
    return { ...growSpawn(startArg), grew };
  };
  const control = pool.control;
  const hasRoom = () => Atomics.load(control, H_SLOTS) < Atomics.load(control, H_CAPACITY);
  const workers = () => Atomics.load(control, H_SLOTS);
  return { claim, growing, hasRoom, workers };
}

// runWasiThreadsProgram's spare workers (lib/program/spare-worker.js). Before
// any thread of the program runs, openSpareSlots opens pool slots
// 0..n-1 and arms them (idle: the first spawns claim them at once) and
// returns n (at most count and poolSize); then startSpare(options, slot)
// starts each slot's worker (the supervisor's, terminated with the program).
export function openSpareSlots(program, count) {
  const n = Math.min(count, program.poolSize);
  if (!(n > 0)) return 0;
  const poolOps = bindWasiThreadPool(program.pool);
  poolOps.openSlots(n);
  for (let slot = 0; slot < n; slot++) poolOps.arm(slot, false);
  return n;
}

export function startSpare(options, slot) {
  return startPoolWorker(options, slot, { spare: true });
}

// thread-spawn for one thread of the program: a tid, or -1 (EAGAIN).
// A program under a supervisor has its workers started there
// (lib/program/starts.js).
export function createProgramThreadSpawn(options) {
  const { program } = options.processState;
  const { claim, growing, hasRoom } = createPoolSpawns(options, threadWorkerStart(options));
  return createProgramSpawn(program, { claim, grow: growing, hasRoom });
}

// How one thread of the program starts slot's worker.
function threadWorkerStart(options) {
  const { program } = options.processState;
  if (program.ownsProcess) return (slot) => startPoolWorker(options, slot);
  return (slot) => requestWorkerStart(program, slot) || startPoolWorker(options, slot);
}

// For one thread of the program, what its worker does once it is up:
// lib/program/threads.js, feedQueue.
export function createQueueFeeder(options) {
  const { program } = options.processState;
  const { growing, hasRoom } = createPoolSpawns(options, threadWorkerStart(options));
  return () => feedQueue(program, { spawnTrampoline: growing, hasRoom });
}

// The supervisor's spawn of trampolines (watchThreadQueue), its workers (to
// be terminated with the program), and startRequested(), which starts the
// workers the program's threads asked for (lib/program/starts.js).
export function createSupervisorSpawn(options) {
  const ownWorkers = [];
  const start = (slot) => ownWorkers.push(startPoolWorker(options, slot));
  const { claim, growing, hasRoom, workers } = createPoolSpawns(options, start);
  const { program } = options.processState;
  const startRequested = () => takeWorkerStarts(program, start);
  return { claim, spawnTrampoline: growing, hasRoom, workers, cpus: cpuCount(), ownWorkers, startRequested };
}
