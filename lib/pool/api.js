// The public pool API, by the SDK's names, over two implementations.
//
// The room: lib/pool/ owns the pool protocol by the SDK's names: this API, the JS twin, the
// unchecked internal path, the backend slot, the buffer layout, the decline reasons and the
// argument checks. It imports only its own files: never the addon (lib/native/ fills the backend
// slot) and never a node: module, so that a browser loads it as it is.
//
// The implementation is a property of the pool, recorded in its H_IMPL word
// when the pool is created: JavaScript Atomics (the JS twin, lib/pool/twin.js)
// or the native core (the addon). The two wait mechanisms never wake each
// other, so every function reads the pool's tag and follows it, whatever
// thread calls it, and a thread that cannot honour the tag (no addon here)
// throws instead of waiting on the wrong mechanism.
//
// This module is browser-safe: it never imports the addon. The Node entries
// (lib/pool.js, lib/index.js) hand the addon over through lib/pool/backend.js
// before anything can call in; the browser entries do not, so there the JS
// twin is all there is. Both entries are `export *` over this file: every
// export below is public API (types/pool.d.ts).

import * as twin from "./twin.js";
import { HEADER_WORDS, IMPL_NATIVE, SLOT_WORDS } from "./layout.js";
import { backend } from "./backend.js";
import { createNativeSpawn, createTwinSpawn, handleOf, isNative } from "./internal.js";
import {
  checkCapacity,
  checkFunction,
  checkInt32,
  checkOptionalFunction,
  checkOptions,
  checkPool,
  checkPoolSpawnWaitMs,
  checkSlot,
  resolveSpawnWaitMs,
} from "./validate.js";

export { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, WASI_THREAD_POOL_PROTOCOL, WASI_THREAD_POOL_SLOT } from "./layout.js";
export { resolveSpawnWaitMs } from "./validate.js";

const ENV_OVERRIDE = "WASI_THREAD_POOL_IMPLEMENTATION";

function defaultImplementation() {
  const requested = backend.env?.[ENV_OVERRIDE];
  if (requested !== undefined && requested !== "") {
    if (requested !== "js" && requested !== "native") {
      return { implementation: null, reason: `${ENV_OVERRIDE}=${requested} is neither "js" nor "native"` };
    }
    return { implementation: requested, reason: `${ENV_OVERRIDE}=${requested}` };
  }
  if (backend.addon !== null) return { implementation: "native", reason: `the native addon loaded from ${backend.native.path}` };
  if (backend.native === null) return { implementation: "js", reason: "this runtime has no native addon (browser build)" };
  return { implementation: "js", reason: `the native addon did not load: ${backend.native.error}` };
}

// A bad WASI_THREAD_POOL_IMPLEMENTATION is the RangeError that
// createWasiThreadPool throws, not a quiet "js" it would not use.
export function getWasiThreadPoolImplementation() {
  const { implementation, reason } = defaultImplementation();
  if (implementation === null) throw new RangeError(`${reason}.`);
  return {
    implementation,
    reason,
    native: {
      available: backend.addon !== null,
      error: backend.addon !== null ? null : (backend.native?.error ?? "no native addon in this runtime"),
    },
  };
}

function chooseImplementation(requested) {
  if (requested === undefined || requested === null) {
    const chosen = defaultImplementation();
    if (chosen.implementation === null) throw new RangeError(`${chosen.reason}.`);
    requested = chosen.implementation;
  } else if (requested !== "js" && requested !== "native") {
    throw new RangeError('implementation must be "native" or "js".');
  }
  if (requested === "native" && backend.addon === null) {
    throw new Error(
      `wasi-thread-pool: the native implementation was requested, but ${backend.native === null ? "this runtime has no native addon" : `the addon did not load: ${backend.native.error}`}.`,
    );
  }
  return requested;
}

export function createWasiThreadPool(options) {
  const { capacity, spawnWaitMs, implementation } = checkOptions(options, "options");
  checkCapacity(capacity);
  const waitMs = resolveSpawnWaitMs(spawnWaitMs);
  const chosen = chooseImplementation(implementation);
  const control = new Int32Array(new SharedArrayBuffer(4 * (HEADER_WORDS + SLOT_WORDS * capacity)));
  if (chosen === "native") backend.addon.format(handleOf(control), capacity, IMPL_NATIVE, control);
  else twin.formatWasiThreadPool(control, capacity);
  return { control, spawnWaitMs: waitMs };
}

export function wasiThreadPoolImplementationOf(pool) {
  return isNative(checkPool(pool)) ? "native" : "js";
}

export function openWasiThreadPoolSlots(pool, count) {
  const control = checkPool(pool);
  checkInt32(count, "count");
  if (isNative(control)) backend.addon.openSlots(handleOf(control), count, control);
  else twin.openWasiThreadPoolSlots(pool, count);
}

export function armWasiThreadPoolSlot(pool, slot, options) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  const { messageDispatch = false } = checkOptions(options, "options");
  const dispatch = Boolean(messageDispatch);
  if (isNative(control)) backend.addon.arm(handleOf(control), slot, dispatch, control);
  else twin.armWasiThreadPoolSlot(pool, slot, { messageDispatch: dispatch });
}

export function retireWasiThreadPoolSlot(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  if (isNative(control)) backend.addon.retire(handleOf(control), slot, control);
  else twin.retireWasiThreadPoolSlot(pool, slot);
}

export function wasiThreadPoolSlotState(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  return isNative(control) ? backend.addon.slotState(handleOf(control), slot, control) : twin.wasiThreadPoolSlotState(pool, slot);
}

export function wasiThreadPoolLastTid(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  return isNative(control) ? backend.addon.lastTid(handleOf(control), slot, control) : twin.wasiThreadPoolLastTid(pool, slot);
}

export function wasiThreadPoolRunningTid(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  return isNative(control)
    ? backend.addon.runningTid(handleOf(control), slot, control)
    : twin.wasiThreadPoolRunningTid(pool, slot);
}

export function releaseWasiThreadPoolSlotIfRunning(pool, slot, tid) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  checkInt32(tid, "tid");
  return isNative(control)
    ? backend.addon.release(handleOf(control), slot, tid, control)
    : twin.releaseWasiThreadPoolSlotIfRunning(pool, slot, tid);
}

export function takeWasiThreadPoolAssignment(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  return isNative(control) ? backend.addon.take(handleOf(control), slot, control) : twin.takeWasiThreadPoolAssignment(pool, slot);
}

export function finishWasiThreadPoolRun(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  if (isNative(control)) backend.addon.finish(handleOf(control), slot, control);
  else twin.finishWasiThreadPoolRun(pool, slot);
}

// Blocks the calling thread until the slot is retired (or, native only,
// until this thread's environment stops: see src/node/binding.c).
export function serveWasiThreadPoolSlot(pool, slot, options) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  const { runThread, osThreadId = 0 } = checkOptions(options, "options");
  checkFunction(runThread, "runThread");
  checkInt32(osThreadId, "osThreadId");
  if (isNative(control)) backend.addon.serve(handleOf(control), slot, runThread, osThreadId, backend.native.threadId, control);
  else twin.serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId });
}

export function readWasiThreadPoolReport(pool) {
  const control = checkPool(pool);
  return isNative(control) ? backend.addon.report(handleOf(control), control) : twin.readWasiThreadPoolReport(pool);
}

// Closes the pool (this package's addition, for terminateAll): every later
// spawn from any thread declines "terminated"; every slot in service is
// retired. See src/core/wtp.h, "Closing a pool".
export function terminateWasiThreadPool(pool) {
  const control = checkPool(pool);
  return isNative(control) ? backend.addon.close(handleOf(control), control) : twin.terminateWasiThreadPool(pool);
}

export function wasiThreadPoolTerminated(pool) {
  const control = checkPool(pool);
  return isNative(control) ? backend.addon.closed(handleOf(control), control) : twin.wasiThreadPoolTerminated(pool);
}

export function createWasiThreadPoolSpawn(pool, options) {
  const control = checkPool(pool);
  const spawnWaitMs = checkPoolSpawnWaitMs(pool);
  const opts = checkOptions(options, "options");
  const owner = Boolean(opts.owner);
  const grow = checkOptionalFunction(opts.grow, "grow");
  const dispatchMessage = checkOptionalFunction(opts.dispatchMessage, "dispatchMessage");
  const spawnOptions = { owner, grow, dispatchMessage };
  return isNative(control)
    ? createNativeSpawn(control, handleOf(control), spawnWaitMs, spawnOptions)
    : createTwinSpawn(pool, control, spawnWaitMs, spawnOptions);
}
