// The pool side of a program's threads (lib/program/threads.js): the spawns
// every thread of a program uses, and the workers they start. Node only.
//
// Workers are lib/program/pool-worker.js, started as its one-file build
// (dist/pool-worker.cjs, scripts/bundle-workers.js) where there is one
// (lib/worker/entries.js), with the
// program's runtime: lib/program/wasi-c.js when the supervisor made a C WASI
// (program.wasiId), else lib/program/wasi-node.js (both through
// lib/program/runtime.js); a worker is the child of the thread that started
// it (the guest's main thread's worker, a pool worker, or the supervisor), so
// the supervisor's terminate of the main thread's worker and of its own
// workers ends them all.

import { Worker } from "node:worker_threads";
import { native } from "../native/binding.js";
import { H_CAPACITY, H_SLOTS } from "../pool/layout.js";
// lib/pool.js first: it hands the addon to lib/pool/backend.js.
import "../pool.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { cpuCount, createProgramSpawn, noteGrow } from "./threads.js";
import { workerEntryUrl } from "../worker/entries.js";

// Pool workers for a program; onWorker(worker) hears of each one started.
function createWorkerGrower({ wasmModule, memory, processState, onWorker = null }) {
  const { program } = processState;
  return function grow(slot) {
    noteGrow(program, slot);
    const worker = new Worker(workerEntryUrl("program"), {
      execArgv: program.execArgv,
      workerData: { wasmModule, memory, processState, pool: program.pool, slot, wasiThreadPoolAddonPath: native.path },
    });
    worker.unref();
    // Faults of guest threads reach the supervisor through the program's
    // control words (lib/program/control.js), not through this event.
    worker.on("error", () => {});
    onWorker?.(worker);
  };
}

// The pool's two spawns without a wait (the pool's spawnWaitMs is 0 for a
// program): claim() takes an idle worker; growing() also starts a worker
// when none is idle and the pool has room, and says whether it did.
function createPoolSpawns(options) {
  const { pool } = options.processState.program;
  const grower = createWorkerGrower(options);
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

export function startSpare({ wasmModule, memory, processState }, slot) {
  const { program } = processState;
  const worker = new Worker(workerEntryUrl("program"), {
    execArgv: program.execArgv,
    workerData: { wasmModule, memory, processState, pool: program.pool, slot, spare: true, wasiThreadPoolAddonPath: native.path },
  });
  worker.unref();
  worker.on("error", () => {});
  return worker;
}

// thread-spawn for one thread of the program: a tid, or -1 (EAGAIN).
export function createProgramThreadSpawn({ wasmModule, memory, processState }) {
  const { claim, growing, hasRoom } = createPoolSpawns({ wasmModule, memory, processState });
  return createProgramSpawn(processState.program, { claim, grow: growing, hasRoom });
}

// The supervisor's spawn of trampolines (watchThreadQueue), and its workers
// (to be terminated with the program).
export function createSupervisorSpawn({ wasmModule, memory, processState }) {
  const ownWorkers = [];
  const { claim, growing, hasRoom, workers } = createPoolSpawns({
    wasmModule,
    memory,
    processState,
    onWorker: (worker) => ownWorkers.push(worker),
  });
  return { claim, spawnTrampoline: growing, hasRoom, workers, cpus: cpuCount(), ownWorkers };
}
