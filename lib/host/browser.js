// The browser branch of createWasiThreadSpawn (SDK-CONTRACT 2.7, 2.8, 2.11):
// a fixed pool of pre-started Workers (lib/wasiThreadBrowserWorker.mjs), armed
// by a probe, over the pure-JS pool protocol.
//
// lib/host/host.js validates and normalises the options, then calls
// createBrowserHost. Browser-safe: no node: module, no addon.

import { createWasiThreadPool } from "../pool/api.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { WASI_THREAD_POOL_PROTOCOL, WASI_THREAD_POOL_SLOT } from "../pool/layout.js";
import { createSpawnLedger, reportGuestError } from "./ledger.js";
import { DECLINE } from "../pool/reasons.js";
import { WasiThreadWorkerUnreachableError, resolveBrowserWorkerUrl } from "./worker-url.js";
import { guestMemoryCounter } from "../wasm/memory-counter.js";
import { declaredSharedMaximum } from "../worker/wasm-memory.js";

export const BROWSER_POOL_PROBE_TIMEOUT_MS = 1500;

const { RETIRED } = WASI_THREAD_POOL_SLOT;

function hardwareConcurrency() {
  const candidates = [globalThis.navigator?.hardwareConcurrency, globalThis.self?.navigator?.hardwareConcurrency];
  for (const value of candidates) if (Number.isFinite(value)) return value;
  return 1;
}

function browserThreadsArmed(opts) {
  const enabled = opts.enableBrowserThreads ?? globalThis.__SDM_ENABLE_BROWSER_WASI_THREADS__ === true;
  return (
    enabled === true &&
    globalThis.crossOriginIsolated === true &&
    typeof SharedArrayBuffer === "function" &&
    opts.memory?.buffer instanceof SharedArrayBuffer
  );
}

// 2.7 step 2. An explicit poolSize is taken as is; the implicit size leaves
// one core to the owning thread.
function browserPoolSize(opts, armed) {
  if (!armed) return 0;
  if (opts.poolSize !== undefined) return opts.poolSize;
  const hc = hardwareConcurrency();
  const requested = Number.isFinite(opts.requestedThreads) ? Math.floor(opts.requestedThreads) : hc;
  return Math.max(0, Math.min(Math.floor(hc) - 1, requested));
}

function terminateQuietly(worker) {
  try {
    worker.terminate();
  } catch {
    // Already gone.
  }
}

// A classic worker gets no options argument at all: some classic-only
// environments reject an options bag.
function constructWorkers(count, workerUrl, browserWorkerType) {
  const created = [];
  try {
    for (let i = 0; i < count; i++) {
      created.push(browserWorkerType === "classic" ? new Worker(workerUrl) : new Worker(workerUrl, { type: "module" }));
    }
  } catch (error) {
    created.forEach(terminateQuietly);
    throw new WasiThreadWorkerUnreachableError(workerUrl, error);
  }
  return created;
}

function probeMessage(opts, pool, slot, memoryPages) {
  const message = {
    t: "probe",
    wasmModule: opts.wasmModule,
    memory: opts.memory,
    hostcallChannel: opts.hostcallChannel ?? null,
    processState: opts.processState,
    extraImports: opts.extraImports ?? [],
    workerIndex: slot,
    pool,
    slot,
  };
  // Ours, not the SDK's: an SDK worker ignores it, ours loads this runtime.
  if (opts.runtimeModule !== undefined) message.runtimeModule = opts.runtimeModule;
  // Ours too: only when set, so the probe of the default is the SDK's shape.
  if (opts.freshInstances === true) message.freshInstances = true;
  // Ours: the page counter of a guest rewritten by the memory pass
  // (docs/api.md, "Memory growth"), only then; every worker registers it
  // for the memory, so that all instances share one guest size.
  if (memoryPages) message.memoryPages = memoryPages;
  return message;
}

function errorOf(event) {
  return event?.error ?? event?.message ?? event;
}

export async function createBrowserHost(opts) {
  const armed = browserThreadsArmed(opts);
  const explicit = opts.poolSize !== undefined;
  const poolSize = browserPoolSize(opts, armed);

  let pool = null;
  // The pool's operations, checked once (lib/pool/internal.js).
  let poolOps = null;
  let poolDisabled = true;
  let disabledReason = armed ? null : DECLINE.THREADS_UNAVAILABLE;
  let slotWorkers = []; // worker i serves slot i
  let poolWorkers = []; // the kept ones
  let spawn = null;

  const { ledger, decline, report } = createSpawnLedger({
    poolSize,
    onSpawnDeclined: opts.onSpawnDeclined,
    getPool: () => pool,
    readReport: () => poolOps.report(),
  });

  const slotOf = (worker) => slotWorkers.indexOf(worker);
  // Workers armed as message-dispatch slots (protocol !== 2): they run each
  // thread on a {t:"run"} and keep serving after a trap.
  let legacyWorkers = new Set();

  // Takes a kept worker out of service: retires its slot, drops it from the
  // kept list and terminates it. false if it was not (or no longer) kept.
  function dropWorker(worker) {
    const index = poolWorkers.indexOf(worker);
    if (index < 0) return false;
    poolOps.retire(slotOf(worker));
    poolWorkers.splice(index, 1);
    // Such a worker may still be alive; it no longer owns a slot, so nothing
    // would ever end it.
    terminateQuietly(worker);
    return true;
  }

  // After arming, a worker's messages and errors come here.
  function onWorkerMessage(worker, msg) {
    if (msg?.t === "exit") {
      const slot = slotOf(worker);
      if (pool && slot >= 0) poolOps.release(slot, msg.tid);
    } else if (msg?.t === "error") {
      // A pool worker (protocol 2) that reports a trap has left its serve
      // loop for good: its slot is retired (by the worker, and here too, for
      // a worker that reports before it retires) and it is terminated, as on
      // onerror. Not in the SDK, which leaves it running, idle, for the life
      // of the page. A legacy worker goes on serving {t:"run"} messages.
      if (!legacyWorkers.has(worker)) dropWorker(worker);
      console.error("[wasi-thread] pooled worker guest error:", msg.error);
      reportGuestError(opts.onGuestError, opts.instanceId, msg.tid ?? null, msg.error);
    }
  }

  // "onWorkerError": the error event goes to onGuestError unchanged, as the
  // SDK passes it (its .message, .error, .filename ... are the caller's).
  function onWorkerError(worker, event) {
    if (!poolWorkers.includes(worker)) return;
    const tid = poolOps.runningTid(slotOf(worker));
    dropWorker(worker);
    reportGuestError(opts.onGuestError, opts.instanceId, tid, event);
  }

  if (armed && poolSize === 0) disabledReason = DECLINE.POOL_EMPTY;

  if (poolSize > 0) {
    // A guest rewritten by compileWasiThreadGuest's memory pass: its memory
    // is grown to its maximum now, once (as on Node, lib/host/node.js), and
    // its size kept in this counter, which the probe gives every worker.
    const memoryPages = guestMemoryCounter(opts.wasmModule, opts.memory, declaredSharedMaximum(opts.wasmModule));
    const workerUrl = resolveBrowserWorkerUrl(opts);
    slotWorkers = constructWorkers(poolSize, workerUrl, opts.browserWorkerType);
    pool = createWasiThreadPool({
      capacity: slotWorkers.length,
      spawnWaitMs: opts.spawnWaitMs,
      implementation: "js",
    });
    poolOps = bindWasiThreadPool(pool);
    poolOps.openSlots(slotWorkers.length);

    const result = await probeWorkers(opts, pool, slotWorkers, explicit, memoryPages, {
      onMessage: onWorkerMessage,
      onError: onWorkerError,
    });

    if (result.unreachable) {
      slotWorkers.forEach((worker, slot) => {
        poolOps.retire(slot);
        terminateQuietly(worker);
      });
      throw new WasiThreadWorkerUnreachableError(workerUrl, result.error);
    }
    if (result.ok) {
      const keep = explicit ? result.readyWorkers : new Set(slotWorkers);
      legacyWorkers = new Set(slotWorkers.filter((worker) => result.protocols.get(worker) !== WASI_THREAD_POOL_PROTOCOL));
      slotWorkers.forEach((worker, slot) => {
        if (keep.has(worker)) {
          poolWorkers.push(worker);
          poolOps.arm(slot, result.protocols.get(worker) !== WASI_THREAD_POOL_PROTOCOL);
        } else {
          poolOps.retire(slot);
          terminateQuietly(worker);
        }
      });
      ledger.armed = keep.size;
      ledger.failedToArm = slotWorkers.length - keep.size;
      poolDisabled = false;
      spawn = poolOps.createSpawn({
        owner: true,
        dispatchMessage: (slot, tid, startArg) => slotWorkers[slot].postMessage({ t: "run", tid, startArg }),
      });
    } else {
      slotWorkers.forEach((worker, slot) => {
        poolOps.retire(slot);
        terminateQuietly(worker);
      });
      ledger.failedToArm = slotWorkers.length;
      disabledReason = DECLINE.POOL_NOT_ARMED;
    }
  }

  const counts = () => (pool ? poolOps.report() : null);

  return {
    threadSpawn(startArg) {
      if (poolDisabled) return decline(disabledReason ?? DECLINE.POOL_DISABLED);
      const result = spawn(startArg);
      return result.slot >= 0 ? result.tid : decline(result.reason ?? DECLINE.POOL_EXHAUSTED);
    },
    activeThreadCount: () => counts()?.active ?? 0,
    spawnCount: () => counts()?.spawned ?? 0,
    distinctOsThreadCount: () => poolWorkers.filter((worker) => poolOps.slotState(slotOf(worker)) !== RETIRED).length,
    spawnReport() {
      const pooled = counts();
      return {
        ...report(),
        active: pooled?.active ?? 0,
        idle: pool && !poolDisabled ? pooled.idle : 0,
      };
    },
    async terminateAll() {
      poolDisabled = true;
      disabledReason = DECLINE.TERMINATED;
      // Closing retires every slot and makes every later spawn, guest threads'
      // on the workers included, decline "terminated" (lib/pool/twin.js).
      if (pool) poolOps.terminate();
      poolWorkers.forEach(terminateQuietly);
      poolWorkers = [];
    },
  };
}

// 2.7 step 4. Resolves {ok, unreachable, error, readyWorkers, failed,
// protocols}. Implicit pools are all or nothing and stop at the first loser;
// an explicit pool waits for every worker and keeps the ready ones. Only a
// worker that errors before it ever spoke is "unreachable": its script (or
// an import of it) could not be loaded, which no fallback can fix.
function probeWorkers(opts, pool, workers, explicit, memoryPages, after) {
  const timeoutMs =
    Number.isFinite(opts.probeTimeoutMs) && opts.probeTimeoutMs > 0 ? opts.probeTimeoutMs : BROWSER_POOL_PROBE_TIMEOUT_MS;
  const readyWorkers = new Set();
  const failed = new Set();
  const protocols = new Map();
  const spoke = new Set();
  const timers = new Map();
  let decided = false;

  return new Promise((resolve) => {
    function finish(ok, extra = {}) {
      if (decided) return;
      decided = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      resolve({ ok, unreachable: false, error: undefined, readyWorkers, failed, protocols, ...extra });
    }

    function settleOne(worker, ok) {
      if (decided || readyWorkers.has(worker) || failed.has(worker)) return;
      clearTimeout(timers.get(worker));
      timers.delete(worker);
      (ok ? readyWorkers : failed).add(worker);
      if (!ok && !explicit) return finish(false);
      if (readyWorkers.size + failed.size === workers.length) {
        finish(explicit ? readyWorkers.size > 0 : readyWorkers.size === workers.length);
      }
    }

    function onMessage(worker, msg) {
      if (decided) return after.onMessage(worker, msg);
      spoke.add(worker);
      if (msg?.t !== "ready") return;
      clearTimeout(timers.get(worker));
      protocols.set(worker, Number.isInteger(msg.protocol) ? msg.protocol : 1);
      if (msg.ok !== true && msg.error) {
        console.error("[wasi-thread] pooled worker not ready:", msg.error);
      }
      settleOne(worker, msg.ok === true);
    }

    function onError(worker, event) {
      if (decided) return after.onError(worker, event);
      clearTimeout(timers.get(worker));
      const error = errorOf(event);
      console.error("[wasi-thread] pooled worker error:", event?.message ?? event);
      if (!spoke.has(worker)) return finish(false, { unreachable: true, error });
      // A worker that answered ready and then failed before the decision is
      // a loser after all: never arm a dead worker.
      if (readyWorkers.delete(worker)) {
        failed.add(worker);
        if (!explicit) finish(false);
        return;
      }
      settleOne(worker, false);
    }

    workers.forEach((worker, slot) => {
      // An earlier probe could not be posted and decided already.
      if (decided) return;
      timers.set(
        worker,
        setTimeout(() => settleOne(worker, false), timeoutMs),
      );
      worker.onmessage = (event) => onMessage(worker, event?.data);
      worker.onerror = (event) => onError(worker, event);
      try {
        worker.postMessage(probeMessage(opts, pool, slot, memoryPages));
      } catch (error) {
        // Not in the SDK's description: a probe that cannot even be posted
        // (say, a DataCloneError) is a worker that cannot arm, a soft failure.
        console.error("[wasi-thread] pooled worker probe could not be posted:", error);
        spoke.add(worker);
        settleOne(worker, false);
      }
    });
  });
}
