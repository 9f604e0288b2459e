// The browser pool worker (SDK-CONTRACT 3.2). One module worker per pool
// slot, created and probed by the browser branch of lib/host.js.
//
// Browser-safe only: it imports lib/pool.browser.js (the JS twin, no addon),
// lib/runtime.js and, through it, @bjorn3/browser_wasi_shim. Browsers cannot
// resolve that bare specifier from a served directory: serve the bundle
// dist/wasiThreadBrowserWorker.mjs instead, or let your bundler follow this
// file (docs/browser-workers.md).
//
// Messages:
//   {t:"probe", wasmModule, memory, hostcallChannel, processState,
//    extraImports, workerIndex, pool, slot, runtimeModule?, freshInstances?}
//      -> {t:"ready", ok:true, protocol:2}, then (with a pool) the worker
//         serves its slot inside this very handler, blocked in Atomics.wait,
//         until the slot is retired; it handles no later message.
//      -> {t:"ready", ok:false, error} when the runtime cannot be made.
//   {t:"run", tid, startArg}  (an older host without a pool)
//      -> runs the thread, then {t:"exit", tid}
//   A trap: console.error; the slot is retired and then {t:"error", tid,
//   error} is posted, so that an owner receiving it sees the slot retired.

import {
  WASI_THREAD_POOL_PROTOCOL,
  createWasiThreadPoolSpawn,
  serveWasiThreadPoolSlot,
} from "./pool.browser.js";
import * as ownRuntime from "./runtime.js";

const scope = globalThis;
let runtime = null;
// The last trap, {tid, error}: reported once the slot is retired.
let fault = null;
// The instance policy (lib/runtime.js createThreadRunner): the worker's kept
// instance for every thread, or a fresh one per thread with freshInstances.
let runner = null;

function runThread(tid, startArg) {
  try {
    runner.run(tid, startArg);
    return true;
  } catch (error) {
    // proc_exit on a thread ends that thread normally.
    if (error?.name === "WasiExitError") return true;
    console.error(`[wasi-thread] guest thread ${tid} trapped:`, error);
    fault = { tid, error: String(error?.message ?? error) };
    return false; // retires the slot and ends the serve loop
  }
}

function reportFault() {
  if (fault === null) return;
  const { tid, error } = fault;
  fault = null;
  scope.postMessage({ t: "error", tid, error });
}

// The runtime: ours, or the one named by the host's runtimeModule option
// (space-data-module-sdk's, for SDK-specific extraImports and hostcalls).
async function loadRuntime(runtimeModule) {
  if (!runtimeModule) return ownRuntime;
  const plugged = await import(runtimeModule);
  if (typeof plugged.createWasiThreadWorkerRuntime !== "function") {
    throw new TypeError(`runtimeModule ${runtimeModule} exports no createWasiThreadWorkerRuntime function.`);
  }
  return plugged;
}

async function probe(msg) {
  const pool = msg.pool ?? null;
  try {
    const runtimeApi = await loadRuntime(msg.runtimeModule);
    const resolveModules =
      typeof runtimeApi.resolveModuleExtraImports === "function"
        ? runtimeApi.resolveModuleExtraImports
        : ownRuntime.resolveModuleExtraImports;
    const extraImports = await resolveModules(msg.extraImports ?? []);
    // Guest threads here may spawn threads too: owner false, no grow (the
    // browser pool is fixed), no message dispatch.
    const spawn = pool ? createWasiThreadPoolSpawn(pool) : null;
    const freshInstances = msg.freshInstances === true;
    const options = {
      wasmModule: msg.wasmModule,
      memory: msg.memory,
      hostcallChannel: msg.hostcallChannel ?? null,
      processState: msg.processState,
      extraImports,
      workerIndex: msg.workerIndex,
      threadSpawn: spawn ? (startArg) => spawn(startArg).tid : undefined,
    };
    // A plugged runtime gets exactly the SDK's options.
    if (runtimeApi === ownRuntime) options.freshInstances = freshInstances;
    runtime = runtimeApi.createWasiThreadWorkerRuntime(options);
    runner = ownRuntime.createThreadRunner(runtime, { freshInstances });
    // A module this worker cannot instantiate is a capability failure,
    // reported in the reply rather than at the first thread. With reuse, the
    // first thread runs on this instance.
    runner.adopt(runtime.instantiate());
  } catch (error) {
    try {
      runtime?.close();
    } catch {
      // the probe's error is the one to report
    }
    runtime = null;
    runner = null;
    scope.postMessage({ t: "ready", ok: false, error: String(error?.message ?? error) });
    return;
  }
  scope.postMessage({ t: "ready", ok: true, protocol: WASI_THREAD_POOL_PROTOCOL });
  // Serve inside the handler: the owner arms the slot after every worker
  // answered; until then the slot is PENDING and this loop waits on it.
  if (!pool) return;
  serveWasiThreadPoolSlot(pool, msg.slot, { runThread });
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
    if (runtime) runThread(msg.tid, msg.startArg);
    reportFault();
    scope.postMessage({ t: "exit", tid: msg.tid });
  }
};
