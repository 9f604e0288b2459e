// The browser pool worker (SDK-CONTRACT 3.2). One module worker per pool
// slot, created and probed by the browser branch of lib/host/host.js.
//
// Browser-safe only: it imports lib/pool/api.js (the JS twin only here: no
// addon), lib/worker/shared.js, lib/worker/runtime.js and, through it,
// @bjorn3/browser_wasi_shim. Browsers cannot resolve that bare specifier from a served directory: serve the bundle
// dist/wasiThreadBrowserWorker.mjs instead, or let your bundler follow this
// file (docs/browser-workers.md).
//
// Messages:
//   {t:"probe", wasmModule, memory, hostcallChannel, processState,
//    extraImports, workerIndex, pool, slot, runtimeModule?, freshInstances?,
//    memoryPages?}  (memoryPages: the memory pass's page counter, registered
//    for the memory before the runtime is made; lib/wasm/memory-counter.js)
//      -> {t:"ready", ok:true, protocol:2}, then (with a pool) the worker
//         serves its slot inside this very handler, blocked in Atomics.wait,
//         until the slot is retired; it handles no later message.
//      -> {t:"ready", ok:false, error} when the runtime cannot be made.
//   {t:"run", tid, startArg}  (an older host without a pool)
//      -> runs the thread, then {t:"exit", tid}
//   A trap: console.error; the slot is retired and then {t:"error", tid,
//   error} is posted, so that an owner receiving it sees the slot retired.

import { WASI_THREAD_POOL_PROTOCOL } from "./pool/layout.js";
import { bindWasiThreadPool } from "./pool/internal.js";
import { checkSlot } from "./pool/validate.js";
import { createRunThread, startRuntime } from "./worker/shared.js";
import { registerMemoryCounter } from "./wasm/memory-counter.js";

const scope = globalThis;
// The last trap, {tid, error}: reported once the slot is retired.
let fault = null;
// runThread over the instance policy's runner (lib/worker/shared.js): the
// worker's kept instance for every thread, or a fresh one per thread with
// freshInstances.
let runThread = null;

function reportFault() {
  if (fault === null) return;
  const { tid, error } = fault;
  fault = null;
  scope.postMessage({ t: "error", tid, error });
}

async function probe(msg) {
  const pool = msg.pool ?? null;
  let poolOps = null;
  try {
    // Guest threads here may spawn threads too: owner false, no grow (the
    // browser pool is fixed), no message dispatch.
    // The one check of the pool (lib/pool/internal.js).
    if (pool) poolOps = bindWasiThreadPool(pool);
    if (msg.memoryPages && msg.memory) registerMemoryCounter(msg.memory, msg.memoryPages);
    const spawn = poolOps ? poolOps.createSpawn() : null;
    const { runner } = await startRuntime({
      runtimeModule: msg.runtimeModule,
      extraImports: msg.extraImports,
      options: {
        wasmModule: msg.wasmModule,
        memory: msg.memory,
        hostcallChannel: msg.hostcallChannel ?? null,
        processState: msg.processState,
        workerIndex: msg.workerIndex,
        threadSpawn: spawn ? (startArg) => spawn(startArg).tid : undefined,
      },
      freshInstances: msg.freshInstances === true,
    });
    runThread = createRunThread(runner, (tid, error) => {
      console.error(`[wasi-thread] guest thread ${tid} trapped:`, error);
      fault = { tid, error: String(error?.message ?? error) };
    });
  } catch (error) {
    // A module this worker cannot instantiate is a capability failure,
    // reported in the reply rather than at the first thread.
    runThread = null;
    scope.postMessage({ t: "ready", ok: false, error: String(error?.message ?? error) });
    return;
  }
  scope.postMessage({ t: "ready", ok: true, protocol: WASI_THREAD_POOL_PROTOCOL });
  // Serve inside the handler: the owner arms the slot after every worker
  // answered; until then the slot is PENDING and this loop waits on it.
  if (!poolOps) return;
  checkSlot(pool.control, msg.slot);
  poolOps.serve(msg.slot, runThread);
  // The serve loop retired the slot before it returned: report the trap only
  // now, so that the owner never sees the error with the slot still RUNNING.
  reportFault();
}

scope.onmessage = async (event) => {
  const msg = event.data;
  if (!msg || typeof msg !== "object") return;
  if (msg.t === "probe") {
    await probe(msg);
  } else if (msg.t === "run") {
    if (runThread) runThread(msg.tid, msg.startArg);
    reportFault();
    scope.postMessage({ t: "exit", tid: msg.tid });
  }
};
