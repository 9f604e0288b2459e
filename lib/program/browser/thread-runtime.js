// The per-thread runtime of a browser program (the `runtimeModule` the
// program's host gives its pool workers, and the guest's main thread's
// runtime in program-worker.js): the SDK's createWasiThreadWorkerRuntime
// shape, with preview1 from client.js (every thread on the page's one WASI)
// instead of a WASI per thread, and a trap on any thread ending the program.
// Browser-safe, and free of bare specifiers (a pool worker imports it by URL,
// whatever way its own code was served).
//
// processState.browserProgram: the channel's SharedArrayBuffer (channel.js).

import { createWasiClient } from "./client.js";
import { MEMORY_IMPORT_MODULE, memoryCounterOf, memoryGrowthImports } from "../../wasm/memory-counter.js";
import { moduleImports } from "../../wasm/module-imports.js";

function memoryImportOf(wasmModule) {
  const entry = moduleImports(wasmModule)?.find((e) => e.kind === "memory");
  return entry ? { module: entry.module, name: entry.name } : { module: "env", name: "memory" };
}

// An instance whose wasi_thread_start reports a trap to the program before
// letting it through (proc_exit's WasiExitError is the thread's normal end).
function reportingTraps(instance, client) {
  const start = instance.exports.wasi_thread_start;
  if (typeof start !== "function") return instance;
  const exports = Object.assign(Object.create(null), instance.exports, {
    wasi_thread_start(tid, startArg) {
      try {
        return start(tid, startArg);
      } catch (error) {
        if (error?.name !== "WasiExitError") client.trap(`thread ${tid}`, error);
        throw error;
      }
    },
  });
  return { exports };
}

export function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn } = {}) {
  const buffer = processState?.browserProgram;
  if (!(buffer instanceof SharedArrayBuffer)) {
    throw new TypeError("This runtime serves runWasiThreadsProgram's threads only (processState.browserProgram).");
  }
  const client = createWasiClient(buffer, memory);
  const memoryImport = memoryImportOf(wasmModule);
  const imports = {
    wasi_snapshot_preview1: client.imports,
    wasi: { "thread-spawn": typeof threadSpawn === "function" ? threadSpawn : () => -1 },
  };
  imports[memoryImport.module] = { ...imports[memoryImport.module], [memoryImport.name]: memory };
  // The page counter of a guest the memory pass rewrote: the one the host
  // registered for this memory (the program worker's host; a pool worker
  // registers the probe's). A pool worker served as one bundled file has its
  // own copy of the registry, which this file does not see: there the worker
  // adds the counter's imports itself (lib/worker/shared.js).
  const memoryPages = memoryCounterOf(memory);
  if (memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(memoryPages);
  return {
    imports,
    client,
    instantiate: () => reportingTraps(new WebAssembly.Instance(wasmModule, imports), client),
    close() {},
  };
}
