// Stand-in for lib/pool.js while it is being written: the SDK-named API over
// the JS twin only. Used by test/support/impls.js when lib/pool.js is absent.

import * as twin from "../../lib/pool-js.js";
import {
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  WASI_THREAD_POOL_PROTOCOL,
  WASI_THREAD_POOL_SLOT,
} from "../../lib/layout.js";

export { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, WASI_THREAD_POOL_PROTOCOL, WASI_THREAD_POOL_SLOT };

export function resolveSpawnWaitMs(value) {
  if (value === undefined || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError("spawnWaitMs must be a finite, non-negative number of milliseconds.");
  }
  return value;
}

export function createWasiThreadPool({ capacity, spawnWaitMs } = {}) {
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new RangeError("pool capacity must be a non-negative integer.");
  }
  const control = new Int32Array(new SharedArrayBuffer(4 * (8 + 8 * capacity)));
  twin.formatWasiThreadPool(control, capacity);
  return { control, spawnWaitMs: resolveSpawnWaitMs(spawnWaitMs) };
}

export function getWasiThreadPoolImplementation() {
  return {
    implementation: "js",
    reason: "lib/pool.js not present (test shim)",
    native: { available: false, error: "test shim" },
  };
}

export function wasiThreadPoolImplementationOf() {
  return "js";
}

export const {
  openWasiThreadPoolSlots,
  armWasiThreadPoolSlot,
  retireWasiThreadPoolSlot,
  wasiThreadPoolSlotState,
  wasiThreadPoolLastTid,
  wasiThreadPoolRunningTid,
  releaseWasiThreadPoolSlotIfRunning,
  takeWasiThreadPoolAssignment,
  finishWasiThreadPoolRun,
  serveWasiThreadPoolSlot,
  readWasiThreadPoolReport,
  createWasiThreadPoolSpawn,
} = twin;
