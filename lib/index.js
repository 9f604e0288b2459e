// wasi-thread-pool for Node: the pool API (native core, or the JS twin when
// the addon cannot load), the wasi-threads host, the per-thread runtime, and
// the Node 20 Liftoff guard.

import { protectFromLiftoffHazard } from "./liftoff.js";

export * from "./pool.js";
export {
  BROWSER_POOL_PROBE_TIMEOUT_MS,
  DEFAULT_BROWSER_WORKER_URL,
  WasiThreadWorkerUnreachableError,
  createWasiThreadSpawn,
  getBrowserWasiThreadWorkerBase,
  isWasiThreadsModule,
  resolveBrowserWorkerUrl,
  setBrowserWasiThreadWorkerBase,
} from "./host.js";
export {
  WASI_THREAD_HOSTCALL_MESSAGE,
  WasiExitError,
  createWasiThreadWorkerRuntime,
  resolveModuleExtraImports,
} from "./runtime.js";
export {
  compileWasiThreadGuest,
  compileWasiThreadGuestSync,
  liftoffHazardAffected,
  liftoffHazardState,
  protectFromLiftoffHazard,
} from "./liftoff.js";
export { TRAP_EXIT_CODE, runWasiThreadsProgram } from "./program.js";
export { describeWasiThreadsMemory } from "./wasm-memory.js";

// Node 20's Liftoff tier can lose a wasm local across memory.atomic.wait32
// (docs/runtime.md). Importing the package means guests are about to be
// compiled, so protect them now: this probes the engine once and sets
// --no-liftoff only where the bug is present.
protectFromLiftoffHazard();
