// An SDK-style module harness, cut down to the part that touches the
// wasi-threads host. Its imports are spelled the way space-data-module-sdk's
// own modules reach the host (src/host/wasiThreadHost.js and
// src/host/wasiThreadPool.js); the "imports" field of package.json maps the
// two specifiers to wasi-thread-pool/host and wasi-thread-pool/pool. That
// alias is the whole switch-over: this file does not change.

import { createWasiThreadSpawn, isWasiThreadsModule } from "#sdk/host/wasiThreadHost.js";
import { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, readWasiThreadPoolReport, WASI_THREAD_POOL_SLOT } from "#sdk/host/wasiThreadPool.js";

export { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, readWasiThreadPoolReport, WASI_THREAD_POOL_SLOT };

// Instantiates a wasi-threads module as the SDK's harness does: a shared
// imported memory, a thread host for the instance, and the host's
// threadSpawn as the guest's wasi.thread-spawn import.
export async function instantiateThreadedModule(wasmModule, options = {}) {
  if (!isWasiThreadsModule(wasmModule)) {
    throw new TypeError("not a wasi-threads module (no wasi.thread-spawn import)");
  }
  const memory = new WebAssembly.Memory({
    initial: options.initialPages ?? 1,
    maximum: options.maximumPages ?? 16,
    shared: true,
  });
  const threadHost = await createWasiThreadSpawn({
    wasmModule,
    memory,
    poolSize: options.wasiThreadPoolSize,
    spawnWaitMs: options.wasiThreadSpawnWaitMs,
  });
  let instance;
  try {
    instance = new WebAssembly.Instance(wasmModule, {
      env: { memory },
      wasi: { "thread-spawn": threadHost.threadSpawn },
    });
  } catch (error) {
    await threadHost.terminateAll();
    throw error;
  }
  return {
    instance,
    memory,
    threadHost,
    async destroy() {
      await threadHost.terminateAll();
    },
  };
}
