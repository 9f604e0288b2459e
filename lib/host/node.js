// The Node branch of createWasiThreadSpawn (SDK-CONTRACT 2.6).
//
// lib/host/host.js validates and normalises the options, then imports this file
// (by a specifier built at run time, so bundlers for browsers never follow it)
// and calls createNodeWasiThreadHost. Node-only: static node: imports are
// fine here.
//
// The pool grows on demand: a spawn that finds no idle worker (after
// GROW_AFTER_MS) reserves a new slot and calls grow(slot), which starts a
// worker for it. Workers never receive messages; they serve their slot until
// it is retired.
//
// One deliberate difference from the SDK: after terminateAll(), every spawn is
// declined with reason "terminated", from any thread: terminateAll closes the
// pool (terminateWasiThreadPool), whose closed bit every spawner reads. The
// SDK's Node host would quietly grow new workers into the retired pool
// (docs/runtime.md).

import { Worker } from "node:worker_threads";
import { native } from "../native/binding.js";
import { createSpawnLedger, reportGuestError } from "./ledger.js";
import { noteGuestModule } from "../worker/liftoff.js";
import { guestMemoryCounter } from "../wasm/memory-counter.js";
import { declaredSharedMaximum } from "../worker/wasm-memory.js";
import { WASI_THREAD_POOL_SLOT } from "../pool/layout.js";
import { createWasiThreadPool } from "../pool.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { DECLINE } from "../pool/reasons.js";

export const NODE_POOL_CAPACITY = 1024;
// The pool worker, lib/worker/node.js, as its one-file build (scripts/bundle-workers.js):
// one CommonJS file starts faster than its graph of ES modules (docs/runner.md,
// "What a thread costs").
export const WORKER_URL = new URL("../worker/node.bundle.cjs", import.meta.url);

// How often running threads' workers are re-checked for ref/unref.
const SETTLE_REFS_MS = 20;

const EVAL_FLAGS = ["--input-type", "--eval", "-e", "--print", "-p"];

// A worker that inherits --input-type (from `node --input-type=module -e ...`)
// fails to load its file. If the parent has --input-type, the eval/print
// flags, their `=` forms and the argument right after a bare flag are removed;
// otherwise the worker inherits execArgv as usual (undefined).
export function workerExecArgv(parentExecArgv = process.execArgv) {
  if (!parentExecArgv.some((arg) => arg.startsWith("--input-type"))) return undefined;
  const kept = [];
  for (let i = 0; i < parentExecArgv.length; i++) {
    const arg = parentExecArgv[i];
    if (EVAL_FLAGS.includes(arg)) {
      i++; // the flag's value follows it
      continue;
    }
    if (EVAL_FLAGS.some((flag) => arg.startsWith(`${flag}=`))) continue;
    kept.push(arg);
  }
  return kept;
}

// What one Node host keeps: the pool and its operations (checked once,
// lib/pool/internal.js), the ledger, what every worker it starts is given,
// and the workers and threads that keep the process alive.
function createHostState(options) {
  const {
    wasmModule,
    memory,
    processState,
    extraImports = [],
    hostcallChannel = null,
    poolSize,
    spawnWaitMs,
    instanceId = null,
    onGuestError,
    onSpawnDeclined,
    implementation,
    runtimeModule,
    freshInstances = false,
  } = options;

  const capacity = poolSize ?? NODE_POOL_CAPACITY;
  const pool = createWasiThreadPool({ capacity, spawnWaitMs, implementation });
  const poolOps = bindWasiThreadPool(pool);
  // lineage[slot]: 1 + the slot of the worker whose guest thread grew this
  // slot's worker (lib/worker/node.js writes it), 0 for this thread's own.
  // Node ends a worker's child workers with it, so when one of this thread's
  // workers exits, the slots of its descendants have lost their workers too.
  const lineage = new Int32Array(new SharedArrayBuffer(4 * capacity));
  const ledger = createSpawnLedger({
    poolSize: poolSize ?? null,
    onSpawnDeclined,
    getPool: () => pool,
    readReport: poolOps.report,
  });

  const execArgv = workerExecArgv(process.execArgv);
  // A guest rewritten by compileWasiThreadGuest's memory pass: its memory is
  // grown to its maximum now, once, and its size kept in memoryPages
  // (docs/api.md, "Memory growth"); the workers get the counter with it.
  const memoryPages = guestMemoryCounter(wasmModule, memory, declaredSharedMaximum(wasmModule));
  const workerData = {
    wasmModule,
    memory,
    memoryPages,
    hostcallChannel: hostcallChannel ?? null,
    processState,
    extraImports: extraImports ?? [],
    pool,
    execArgv,
    runtimeModule: runtimeModule ?? null,
    freshInstances: freshInstances === true,
    lineage,
    // Where this thread found the addon: the workers skip the search (lib/native/binding.js).
    wasiThreadPoolAddonPath: native.path,
  };

  return {
    poolOps,
    capacity,
    lineage,
    ledger,
    execArgv,
    workerData,
    instanceId,
    onGuestError,
    workers: new Map(), // slot -> Worker, the ones this thread started
    // slot -> tid: threads this thread spawned onto workers started by guest
    // threads. Those Worker objects belong to other threads and cannot be
    // ref'd from here, so the settle timer itself is ref'd while one runs.
    foreign: new Map(),
    settleTimer: null,
    terminated: false,
    spawn: null,
  };
}

// grow: runs inside a spawn, on this thread. A throw here becomes the
// decline "worker-create-failed" and retires the slot.
function startWorker(host, slot) {
  const worker = new Worker(WORKER_URL, { execArgv: host.execArgv, workerData: { ...host.workerData, slot } });
  // Idle workers must never keep the process alive; a worker is ref'd only
  // while a thread this host spawned runs on it.
  worker.unref();
  const fate = { errorReported: false };
  worker.on("error", (error) => onWorkerError(host, slot, error, fate));
  worker.once("exit", () => onWorkerExit(host, slot, worker, fate));
  host.workers.set(slot, worker);
}

function onWorkerError(host, slot, error, fate) {
  fate.errorReported = true;
  console.error("[wasi-thread] worker error:", error);
  reportGuestError(host.onGuestError, host.instanceId, host.poolOps.lastTid(slot) || null, error);
}

function onWorkerExit(host, slot, worker, fate) {
  if (host.workers.get(slot) === worker) host.workers.delete(slot);
  retireLost(host, slot, !fate.errorReported);
  // Its descendants (workers its guest threads grew, and theirs) ended
  // with it, whether or not they had reached their serve loops.
  for (const descendant of descendantsOf(host, slot)) retireLost(host, descendant, true);
}

// A slot whose worker is gone: nothing serves it any more, so no spawner
// may claim it or wait for it: retire it. A thread assigned to it and
// never taken will never run; unless the worker's own error already told,
// its joiner learns that the way a trap is reported (stderr, onGuestError).
function retireLost(host, slot, reportNeverRan) {
  const { poolOps } = host;
  const state = poolOps.slotState(slot);
  if (state === WASI_THREAD_POOL_SLOT.RETIRED) return;
  const tid = state === WASI_THREAD_POOL_SLOT.ASSIGNED ? poolOps.lastTid(slot) : 0;
  poolOps.retire(slot);
  if (tid > 0 && reportNeverRan) {
    const error = new Error(`guest thread ${tid} never ran: the worker of slot ${slot} ended before it served`);
    console.error(`[wasi-thread] guest thread ${tid} never ran: its worker ended before serving`);
    reportGuestError(host.onGuestError, host.instanceId, tid, error);
  }
}

// The slots whose lineage reaches `ancestor` (bounded walk: lineage is
// written once per slot, by its grower, so it holds no cycle).
function descendantsOf(host, ancestor) {
  const { lineage, capacity } = host;
  const found = [];
  const slots = Math.min(host.poolOps.report().slots, capacity);
  for (let slot = 0; slot < slots; slot++) {
    let parent = Atomics.load(lineage, slot) - 1;
    for (let hops = 0; parent >= 0 && hops < capacity; hops++) {
      if (parent === ancestor) {
        found.push(slot);
        break;
      }
      parent = Atomics.load(lineage, parent) - 1;
    }
  }
  return found;
}

// Keeps the process alive exactly while a thread runs on one of this host's
// workers: the owner may return to its event loop with threads still
// running (a detached thread), and the process must not exit under them.
function settleRefs(host) {
  const { poolOps, foreign } = host;
  let busy = false;
  for (const [slot, worker] of host.workers) {
    if (poolOps.runningTid(slot) !== null) {
      worker.ref();
      busy = true;
    } else {
      worker.unref();
    }
  }
  // The slot's tid guards against a slot that has moved on to another
  // thread (or was retired): that one is not ours to wait for.
  for (const [slot, tid] of foreign) {
    if (poolOps.runningTid(slot) !== tid) foreign.delete(slot);
  }
  if (host.settleTimer === null) return;
  if (foreign.size > 0) host.settleTimer.ref();
  else host.settleTimer.unref();
  if (!busy && foreign.size === 0) {
    clearInterval(host.settleTimer);
    host.settleTimer = null;
  }
}

// Holds the process for the thread just spawned as `tid` on `slot`.
function holdForThread(host, slot, tid) {
  const worker = host.workers.get(slot);
  if (host.settleTimer === null) {
    host.settleTimer = setInterval(() => settleRefs(host), SETTLE_REFS_MS);
    host.settleTimer.unref();
  }
  if (worker) {
    worker.ref();
  } else {
    // A worker a guest thread started: keep the process alive through
    // the (ref'd) settle timer while this thread runs on it.
    host.foreign.set(slot, tid);
    host.settleTimer.ref();
  }
}

function threadSpawn(host, startArg) {
  if (host.terminated) return host.ledger.decline(DECLINE.TERMINATED);
  const { tid, slot, reason } = host.spawn(startArg);
  if (tid > 0) {
    holdForThread(host, slot, tid);
    return tid;
  }
  return host.ledger.decline(reason ?? DECLINE.POOL_EXHAUSTED);
}

async function terminateAll(host) {
  host.terminated = true;
  if (host.settleTimer !== null) {
    clearInterval(host.settleTimer);
    host.settleTimer = null;
  }
  host.foreign.clear();
  // Closing the pool retires every slot, which ends every serve loop (also
  // those of workers started by guest threads, which this thread cannot
  // terminate), and makes every later spawn on any thread decline
  // "terminated" before it can grow a worker (src/core/wtp.h, "Closing a pool").
  host.poolOps.terminate();
  const list = [...host.workers.values()];
  host.workers.clear();
  await Promise.all(
    list.map((worker) =>
      worker.terminate().then(
        () => undefined,
        () => undefined,
      ),
    ),
  );
}

export async function createNodeWasiThreadHost(options) {
  // On Node 20 a guest compiled with Liftoff can lose a local across an
  // atomic wait: warn once if this module was compiled unprotected (the
  // host sets no V8 flag itself; compileWasiThreadGuest does).
  noteGuestModule(options.wasmModule);

  const host = createHostState(options);
  host.spawn = host.poolOps.createSpawn({ owner: true, grow: (slot) => startWorker(host, slot) });
  const report = host.poolOps.report;

  return {
    threadSpawn: (startArg) => threadSpawn(host, startArg),
    activeThreadCount: () => report().active,
    spawnCount: () => report().spawned,
    distinctOsThreadCount: () => report().workers,
    spawnReport() {
      const { active, idle, workers: osThreads } = report();
      return { ...host.ledger.report(), active, idle, workers: osThreads };
    },
    terminateAll: () => terminateAll(host),
  };
}
