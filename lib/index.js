// wasi-thread-pool for Node: the pool API (native core, or the JS twin when
// the addon cannot load) and the wasi-threads host.

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
