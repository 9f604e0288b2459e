// What the two pool workers share (lib/worker/node.js for Node,
// lib/wasiThreadBrowserWorker.mjs for browsers): loading the runtime (ours, or
// the one a host's runtimeModule option names), choosing its extraImports
// resolver, making the runtime and the instance policy's runner, and running
// one guest thread. Browser-safe: it imports only lib/worker/runtime.js and
// lib/wasm/memory-counter.js.
//
// The room: lib/worker/ owns what runs in a pool worker: the Node worker (node.js), what it shares
// with the browser worker (lib/wasiThreadBrowserWorker.mjs), the per-thread runtime and the Liftoff
// guard. It may import lib/pool/ and lib/wasm/; only its Node-only files (node.js, liftoff.js, write-sync.js)
// import node: modules or lib/native/.

import * as ownRuntime from "./runtime.js";
import { createRunThread, startThreadRunner } from "./thread-runner.js";
import { MEMORY_IMPORT_MODULE, memoryCounterOf, memoryGrowthImports } from "../wasm/memory-counter.js";

// The runtime API: this package's, or the module named by runtimeModule
// (space-data-module-sdk's, for SDK-specific extraImports and hostcalls),
// which must export createWasiThreadWorkerRuntime.
export async function loadRuntime(runtimeModule) {
  if (!runtimeModule) return ownRuntime;
  const plugged = await import(runtimeModule);
  if (typeof plugged.createWasiThreadWorkerRuntime !== "function") {
    throw new TypeError(`runtimeModule ${runtimeModule} exports no createWasiThreadWorkerRuntime function.`);
  }
  return plugged;
}

// Makes this worker's runtime and runner, and instantiates once as a probe: a
// module this worker cannot instantiate fails here, before it takes any
// thread (with reuse, the first thread runs on this instance).
//
//   runtimeModule   string | null: see loadRuntime
//   extraImports    the descriptors as posted; resolved here
//   options         the SDK's runtime options, without extraImports
//   ownOptions      added only for this package's runtime (a plugged one gets
//                   exactly the SDK's options)
//   freshInstances  the instance policy (lib/worker/runtime.js createThreadRunner)
//   nodeDescriptors pass the descriptors through a plugged runtime's
//                   resolveNodeFlatsqlIoDescriptors, when it has one (Node)
//
// Returns a promise of {runtime, runner} (lib/worker/thread-runner.js,
// startThreadRunner: on failure the runtime is closed and the error thrown).
export function startRuntime({
  runtimeModule,
  extraImports = [],
  options,
  ownOptions = {},
  freshInstances = false,
  nodeDescriptors = false,
}) {
  return startThreadRunner(
    async () => {
      const runtimeApi = await loadRuntime(runtimeModule);
      const own = runtimeApi === ownRuntime;
      const resolveModules =
        typeof runtimeApi.resolveModuleExtraImports === "function"
          ? runtimeApi.resolveModuleExtraImports
          : ownRuntime.resolveModuleExtraImports;
      let resolved = await resolveModules(extraImports ?? []);
      // A plugged runtime (the SDK's) may come with its Node-only descriptor
      // resolver (flatsql-io-node).
      if (nodeDescriptors && typeof runtimeApi.resolveNodeFlatsqlIoDescriptors === "function") {
        resolved = runtimeApi.resolveNodeFlatsqlIoDescriptors(resolved);
      }
      const all = { ...options, extraImports: resolved };
      if (own) Object.assign(all, ownOptions, { freshInstances });
      const runtime = await runtimeApi.createWasiThreadWorkerRuntime(all);
      // A plugged runtime knows nothing of the memory pass: its import
      // object gets the counter's functions (lib/wasm/memory-counter.js).
      const pages = memoryCounterOf(options.memory);
      if (pages && runtime?.imports && !runtime.imports[MEMORY_IMPORT_MODULE]) {
        runtime.imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(pages);
      }
      return runtime;
    },
    { freshInstances },
  );
}

// createRunThread: lib/worker/thread-runner.js (shared with the runner's pool
// worker, which loads neither this file nor lib/worker/runtime.js).
export { createRunThread };
