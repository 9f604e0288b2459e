// The Node pool worker (SDK-CONTRACT 3.1): serves one pool slot, running a
// guest thread each time the slot is assigned: on the instance the worker's
// last thread ran on (this package's default), or on a fresh
// WebAssembly.Instance (the SDK's, with freshInstances: true); see
// createThreadRunner in lib/worker/runtime.js.
//
// It is told nothing by messages: it blocks in serveWasiThreadPoolSlot until a
// spawner (the owner, or any guest thread) assigns its slot, and it reports
// nothing by messages either. It ends when its slot is retired.
//
// workerData: {wasmModule, memory, hostcallChannel, processState,
//              extraImports, pool, slot, execArgv, runtimeModule,
//              freshInstances, lineage}
// (runtimeModule, freshInstances and lineage are this package's additions:
// the URL of a module whose createWasiThreadWorkerRuntime replaces
// lib/worker/runtime.js's, the instance policy, and the owner's record of which
// worker grew which slot, absent when the owner keeps none.)

import { Worker, workerData } from "node:worker_threads";
// The addon for native pools, handed to lib/pool/backend.js before the pool is bound.
import "../native/backend.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { checkSlot } from "../pool/validate.js";
import { startRuntime } from "./shared.js";
import { serveSlot, startOrRetire } from "./slot.js";
import { writeAllSync } from "./write-sync.js";
import { registerMemoryCounter } from "../wasm/memory-counter.js";

const { pool, slot, execArgv } = workerData;
// A rewritten guest's page counter (lib/wasm/memory-counter.js), which the
// host reserved with the memory: the runtime finds it by the memory.
if (workerData.memoryPages) registerMemoryCounter(workerData.memory, workerData.memoryPages);
const freshInstances = workerData.freshInstances === true;
// The one check of the pool and of this worker's slot (lib/pool/internal.js).
const poolOps = bindWasiThreadPool(pool);
checkSlot(pool.control, slot);

// Workers started by guest threads of this worker. Node ends them when this
// thread ends; their slots are retired here first, so that no spawner waits
// on, or claims, a slot whose worker is about to disappear, and a thread
// they are running gets a moment to finish (see settleChildren).
const children = new Map(); // slot -> {worker, exited: Promise}
const CHILD_GRACE_MS = 1000;

// grow for spawns from this worker's guest threads: a sibling of this file,
// owned by this thread. Faults of such workers are reported on stderr by the
// workers themselves; nobody here could deliver an event anyway (this thread
// is blocked in its serve loop).
function grow(nextSlot) {
  // Parentage, for the owner: when this worker's owner sees it exit, the
  // slots it grew lost their workers too (lib/host/node.js, lineage).
  if (workerData.lineage && nextSlot < workerData.lineage.length) Atomics.store(workerData.lineage, nextSlot, slot + 1);
  const worker = new Worker(new URL(import.meta.url), {
    execArgv,
    workerData: { ...workerData, slot: nextSlot },
  });
  worker.unref();
  worker.on("error", () => {});
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  children.set(nextSlot, { worker, exited });
}

function retireChildren() {
  for (const childSlot of children.keys()) poolOps.retire(childSlot);
}

// Retires the children's slots, then lets this thread's event loop run until
// they have left their serve loops (each finishes the thread it is running
// first), for at most CHILD_GRACE_MS. Ending this thread earlier would kill a
// running guest thread midway.
async function settleChildren() {
  retireChildren();
  if (children.size === 0) return;
  let timer;
  await Promise.race([
    Promise.all([...children.values()].map((child) => child.exited)),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CHILD_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  children.clear();
}

// Starts this worker's runtime, serves its slot until the slot is retired,
// then lets its children finish. A trap ends this worker with the error.
async function servePoolSlot() {
  const started = await startOrRetire(poolOps, slot, () => {
    const spawn = poolOps.createSpawn({ grow });
    return startRuntime({
      runtimeModule: workerData.runtimeModule,
      extraImports: workerData.extraImports,
      options: {
        wasmModule: workerData.wasmModule,
        memory: workerData.memory,
        hostcallChannel: workerData.hostcallChannel ?? null,
        processState: workerData.processState,
        workerIndex: slot,
        threadSpawn: (startArg) => spawn(startArg).tid,
      },
      // Our runtime writes fds 1 and 2 straight to the process's.
      ownOptions: { writeOutput: writeAllSync },
      freshInstances,
      nodeDescriptors: true,
    });
  });

  let fault;
  try {
    fault = serveSlot(poolOps, slot, started);
  } catch (error) {
    retireChildren();
    throw error;
  }

  await settleChildren();

  // The owner's "error" event (and so onGuestError) comes from this throw.
  if (fault) throw fault;
}

// A rejection is this worker's "error" event (an unhandled rejection), as a
// throw from a module's top level would be. No top-level await: the host
// starts this file's one-file build (lib/worker/node.bundle.cjs,
// scripts/bundle-workers.js).
servePoolSlot();
