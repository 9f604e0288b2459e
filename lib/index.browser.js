// wasi-thread-pool for browsers: the pool API on the JS twin (no addon, no
// node: module) and the wasi-threads host.

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
