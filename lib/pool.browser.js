// The pool API for browsers: the JS twin only. This module never reaches the
// addon nor any node: module (the package's "browser" export condition).

import { createPoolApi } from "./pool-api.js";

export const {
  WASI_THREAD_POOL_PROTOCOL,
  WASI_THREAD_POOL_SLOT,
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  resolveSpawnWaitMs,
  createWasiThreadPool,
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
  terminateWasiThreadPool,
  wasiThreadPoolTerminated,
  getWasiThreadPoolImplementation,
  wasiThreadPoolImplementationOf,
} = createPoolApi({ native: null, env: null });
