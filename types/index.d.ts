// Types of the package root, wasi-thread-pool: the pool API, the host, the
// per-thread runtime and (Node only) the Liftoff guard and the program runner.

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
export {
  WASI_THREAD_HOSTCALL_MESSAGE,
  WasiExitError,
  createWasiThreadWorkerRuntime,
  resolveModuleExtraImports,
} from "./runtime.js";
export type { WasiThreadWorkerRuntime, WasiThreadWorkerRuntimeOptions } from "./runtime.js";
export {
  compileWasiThreadGuest,
  compileWasiThreadGuestSync,
  liftoffHazardAffected,
  liftoffHazardState,
  protectFromLiftoffHazard,
} from "./liftoff.js";
export { TRAP_EXIT_CODE, describeWasiThreadsMemory, runWasiThreadsProgram } from "./program.js";
export type {
  RunWasiThreadsProgramOptions,
  WasiDirectoryHandle,
  WasiMemoryDirectory,
  WasiProgramInputStream,
  WasiProgramOutput,
  WasiProgramReadableStream,
  WasiProgramResult,
  WasiThreadsMemoryImport,
} from "./program.js";
