// What both root entries export, written once: the pool API (by the SDK's
// names), the wasi-threads host, the per-thread runtime and the memory
// description. lib/index.js adds the addon, the Liftoff guard and the program
// runner; lib/index.browser.js adds their browser stand-ins. Browser-safe,
// like everything it imports.

export * from "./pool/api.js";
export * from "./host/host.js";
export {
  WASI_THREAD_HOSTCALL_MESSAGE,
  WasiExitError,
  createWasiThreadWorkerRuntime,
  resolveModuleExtraImports,
} from "./worker/runtime.js";
export { describeWasiThreadsMemory } from "./worker/wasm-memory.js";
