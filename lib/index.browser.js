// wasi-thread-pool for browsers: the pool API on the JS twin (no addon, no
// node: module), the wasi-threads host, the per-thread runtime, and the
// Liftoff guard's API (a no-op here), and the program runner's names (the
// runner itself is Node-only: it rejects here).

export * from "./pool.browser.js";
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
} from "./liftoff.browser.js";
export { TRAP_EXIT_CODE, describeWasiThreadsMemory, runWasiThreadsProgram } from "./program.browser.js";
