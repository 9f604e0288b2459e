// The guest's main thread of a program run by runWasiThreadsProgram
// (lib/program.js). It runs in a worker so that the supervisor (the caller's
// thread) can stop it whatever it is doing: worker.terminate() interrupts
// wasm code in a loop and Atomics.wait alike.
//
// workerData: {wasmModule, memory, plainMemory, pool, processState, execArgv}
// It grows the pool with lib/worker-node.js workers whose runtime is the
// program's: lib/wasi-c.js when the supervisor made a C WASI
// (processState.program.wasiId), else lib/wasi-node.js; it never returns:
// _start's end ends the program.
// A plain program (pool null) runs here alone, on the same runtime: memory is
// null, and plainMemory is the non-shared memory it imports ({initial,
// maximum}) or null when it defines its own.

import { Worker, workerData } from "node:worker_threads";
import "./native-backend.js";
import { bindWasiThreadPool } from "./pool-internal.js";

// No Liftoff step here: lib/program.js compiled the guest with
// compileWasiThreadGuest, which protected the process first.

const { wasmModule, memory, plainMemory, pool, processState, execArgv } = workerData;
const POOL_WORKER_URL = new URL("./worker-node.js", import.meta.url);
const RUNTIME_URL = new URL(processState.program.wasiId ? "./wasi-c.js" : "./wasi-node.js", import.meta.url).href;
const { runProgramMain } = await import(RUNTIME_URL);

// grow: runs inside a spawn on this thread. The new worker is this worker's
// child; the supervisor's terminate of this worker ends it too.
function grow(slot) {
  const worker = new Worker(POOL_WORKER_URL, {
    execArgv,
    workerData: {
      wasmModule,
      memory,
      hostcallChannel: null,
      processState,
      extraImports: [],
      pool,
      slot,
      execArgv,
      runtimeModule: RUNTIME_URL,
    },
  });
  worker.unref();
  // Faults of guest threads reach the supervisor through the program's
  // control words (lib/program-control.js), not through this event.
  worker.on("error", () => {});
}

if (pool === null) {
  const ownMemory = plainMemory
    ? new WebAssembly.Memory({ initial: plainMemory.initial, maximum: plainMemory.maximum ?? undefined })
    : null;
  runProgramMain({ wasmModule, memory: ownMemory, processState, threadSpawn: null });
} else {
  const spawn = bindWasiThreadPool(pool).createSpawn({ owner: true, grow });
  runProgramMain({ wasmModule, memory, processState, threadSpawn: (startArg) => spawn(startArg).tid });
}
