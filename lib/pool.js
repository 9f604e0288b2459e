// The pool API for Node: the native core when the addon loads, the JS twin
// otherwise (see lib/pool-api.js for how a pool's implementation is chosen
// and followed).

import { native } from "./binding.js";
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
} = createPoolApi({ native, env: process.env });
