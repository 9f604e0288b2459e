// The pool's operations for this package's own hosts and workers, without the
// public API's argument checks.
//
// lib/pool/api.js checks every argument of every call and reads the pool's
// implementation tag each time, since a caller may hand it anything. The hosts
// (lib/host/node.js, lib/host/browser.js) and the pool workers
// (lib/worker/node.js, lib/wasiThreadBrowserWorker.mjs, lib/program/pool.js)
// call with a pool they created or were given and with slots they own: they
// check the descriptor once, with bindWasiThreadPool, and then call its
// operations, which pass their arguments straight to the JS twin or to the
// addon (a native pool's addon handle is looked up once, too). A slot given to
// an operation must be one the buffer holds.
//
// Browser-safe, as lib/pool/api.js is: the addon comes only through
// lib/pool/backend.js, so a Node worker imports lib/native/backend.js first.
// Internal: no entry point exports this module.

import * as twin from "./twin.js";
import { H_IMPL, IMPL_JS, IMPL_MASK, IMPL_NATIVE } from "./layout.js";
import { backend } from "./backend.js";
import { DECLINE, POOL_DECLINE_REASONS } from "./reasons.js";
import { checkPool, checkPoolSpawnWaitMs } from "./validate.js";

// One addon handle per typed array and thread: a handle caches the data
// pointer so that calls skip the typed-array inspection. The handle holds
// a reference to the SharedArrayBuffer, so the words it points into live as
// long as it does; not to the typed array (a WeakMap value that kept its
// own key alive through a native reference would never be collected). A
// spawner references the buffer too. Calls still pass the typed array as
// their last argument (src/node/binding.c, "Handles").
const handles = new WeakMap();
export function handleOf(control) {
  let handle = handles.get(control);
  if (handle === undefined) {
    backend.beforeNativeUse();
    handle = backend.addon.open(control);
    handles.set(control, handle);
  }
  return handle;
}

function nativeUnavailable() {
  const why = backend.native?.error ?? "the native addon is not available in this runtime";
  return new Error(
    `wasi-thread-pool: this pool uses native waits, but the addon is not loaded in this thread (${why}). ` +
      'Create the pool with implementation: "js" to share it with threads that cannot load the addon.',
  );
}

// true for a native pool, false for a JS one; throws for an unknown tag.
export function isNative(control) {
  // Bit 31 is the "closed" flag (terminateWasiThreadPool), not the tag.
  const tag = control[H_IMPL] & IMPL_MASK;
  if (tag === IMPL_NATIVE) {
    if (backend.addon === null) throw nativeUnavailable();
    return true;
  }
  if (tag === IMPL_JS) return false;
  throw new Error(
    `wasi-thread-pool: pool.control word ${H_IMPL} holds ${control[H_IMPL]}, which names no wait mechanism; the pool header was overwritten.`,
  );
}

// The spawn closure over the native core (see createWasiThreadPoolSpawn in
// lib/pool/api.js for the contract); its arguments are already checked.
export function createNativeSpawn(control, handle, spawnWaitMs, { owner = false, grow = null, dispatchMessage = null } = {}) {
  // The SDK hands dispatchMessage the caller's startArg as given, not the
  // int32 stored in the slot; the core only carries the int32, so the
  // closure keeps the original for the duration of the call.
  let currentStartArg;
  const dispatch = dispatchMessage && ((slot, tid) => dispatchMessage(slot, tid, currentStartArg));
  // Over a SharedArrayBuffer, which can never be detached: the addon keeps
  // a pointer to it (and a reference to the buffer) for the spawner's life.
  const out = new Int32Array(new SharedArrayBuffer(4));
  const spawner = backend.addon.createSpawner(handle, spawnWaitMs, owner, grow, dispatch, out, backend.native.threadId, control);
  const spawn = backend.addon.spawn;
  return function spawnWasiThread(startArg) {
    currentStartArg = startArg;
    // grow and dispatch go with every call rather than being kept by the
    // addon, so that a host holding this closure stays collectable.
    const result = spawn(spawner, startArg | 0, grow, dispatch);
    if (result > 0) return { tid: result, slot: out[0], reason: null };
    return { tid: -1, slot: -1, reason: POOL_DECLINE_REASONS[-result] ?? DECLINE.POOL_EXHAUSTED };
  };
}

// The JS twin's spawn over a descriptor whose spawnWaitMs is the checked one.
export function createTwinSpawn(pool, control, spawnWaitMs, options) {
  const descriptor = pool.spawnWaitMs === spawnWaitMs ? pool : { control, spawnWaitMs };
  return twin.createWasiThreadPoolSpawn(descriptor, options);
}

function nativeOperations(control, spawnWaitMs) {
  const addon = backend.addon;
  const handle = handleOf(control);
  return {
    openSlots: (count) => addon.openSlots(handle, count, control),
    arm: (slot, messageDispatch) => addon.arm(handle, slot, messageDispatch, control),
    retire: (slot) => addon.retire(handle, slot, control),
    slotState: (slot) => addon.slotState(handle, slot, control),
    lastTid: (slot) => addon.lastTid(handle, slot, control),
    runningTid: (slot) => addon.runningTid(handle, slot, control),
    release: (slot, tid) => addon.release(handle, slot, tid, control),
    serve: (slot, runThread, osThreadId = 0) =>
      addon.serve(handle, slot, runThread, osThreadId, backend.native.threadId, control),
    report: () => addon.report(handle, control),
    terminate: () => addon.close(handle, control),
    createSpawn: (options) => createNativeSpawn(control, handle, spawnWaitMs, options),
  };
}

function twinOperations(pool, control, spawnWaitMs) {
  return {
    openSlots: (count) => twin.openWasiThreadPoolSlots(pool, count),
    arm: (slot, messageDispatch) => twin.armWasiThreadPoolSlot(pool, slot, { messageDispatch }),
    retire: (slot) => twin.retireWasiThreadPoolSlot(pool, slot),
    slotState: (slot) => twin.wasiThreadPoolSlotState(pool, slot),
    lastTid: (slot) => twin.wasiThreadPoolLastTid(pool, slot),
    runningTid: (slot) => twin.wasiThreadPoolRunningTid(pool, slot),
    release: (slot, tid) => twin.releaseWasiThreadPoolSlotIfRunning(pool, slot, tid),
    serve: (slot, runThread, osThreadId = 0) => twin.serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId }),
    report: () => twin.readWasiThreadPoolReport(pool),
    terminate: () => twin.terminateWasiThreadPool(pool),
    createSpawn: (options) => createTwinSpawn(pool, control, spawnWaitMs, options),
  };
}

// The one check at the boundary: `pool` must be a descriptor (TypeError or
// RangeError as in lib/pool/api.js) whose tag this thread can follow. Returns
// the pool's operations:
//   openSlots(count), arm(slot, messageDispatch), retire(slot),
//   slotState(slot), lastTid(slot), runningTid(slot), release(slot, tid),
//   serve(slot, runThread, osThreadId), report(), terminate(),
//   createSpawn({owner, grow, dispatchMessage})
// with the public functions' results (lib/pool/api.js, same order).
export function bindWasiThreadPool(pool) {
  const control = checkPool(pool);
  const spawnWaitMs = checkPoolSpawnWaitMs(pool);
  return isNative(control) ? nativeOperations(control, spawnWaitMs) : twinOperations(pool, control, spawnWaitMs);
}
