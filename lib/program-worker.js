// The guest's main thread of a program run by runWasiThreadsProgram
// (lib/program.js). It runs in a worker so that the supervisor (the caller's
// thread) can stop it whatever it is doing: worker.terminate() interrupts
// wasm code in a loop and Atomics.wait alike.
//
// workerData: {wasmModule, memory, processState}
// It never returns: _start's end ends the program.

import { workerData } from "node:worker_threads";
import { runProgramMain } from "./wasi-node.js";

// No Liftoff step here: lib/program.js compiled the guest with
// compileWasiThreadGuest, which protected the process first.

const { wasmModule, memory, processState } = workerData;

// Its spawns start pool workers as this worker's children (lib/program-pool.js):
// the supervisor's terminate of this worker ends them too.
runProgramMain({ wasmModule, memory, processState });
