// Types of the package root, wasi-thread-pool: the pool API and the host.

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
export type {
  FlatsqlIoExtraImport,
  FlatsqlIoNodeExtraImport,
  ModuleExtraImport,
  ResolveBrowserWorkerUrlOptions,
  WasiThreadExtraImport,
  WasiThreadHost,
  WasiThreadHostcallChannel,
  WasiThreadSpawnDeclineReason,
  WasiThreadSpawnDeclined,
  WasiThreadSpawnOptions,
  WasiThreadSpawnReport,
} from "./host.js";
