// The guest's main thread of a program run by runWasiThreadsProgram
// (lib/program/run.js). It runs in a worker so that the supervisor (the caller's
// thread) can stop it whatever it is doing: worker.terminate() interrupts
// wasm code in a loop and Atomics.wait alike. (The CLI runs it on its own
// main thread instead: lib/program/process.js.)
//
// workerData: {wasmModule, memory, plainMemory, pool, processState}
// Its runtime is the program's: lib/program/wasi-c.js when the supervisor made a C
// WASI (processState.program.wasiId), else lib/program/wasi-node.js; it never
// returns: _start's end ends the program. Its spawns follow the program's
// rules (lib/program/threads.js); the pool workers they need are started by
// the supervisor (lib/program/starts.js), which terminates them with this
// one.
// A plain program (pool null) runs here alone, on the same runtime: memory is
// null, and plainMemory is the non-shared memory it imports ({initial,
// maximum}) or null when it defines its own.

import { workerData } from "node:worker_threads";
import "../native/backend.js";
import { runGuestMainThread } from "./runtime.js";

// No Liftoff step here: lib/program/run.js compiled the guest with
// compileWasiThreadGuest, which protected the process first.

const { wasmModule, memory, plainMemory, processState } = workerData;
const RUNTIME_URL = new URL(processState.program.wasiId ? "./wasi-c.js" : "./wasi-node.js", import.meta.url).href;
const { runProgramMain } = await import(RUNTIME_URL);

runGuestMainThread(runProgramMain, { wasmModule, memory, plainMemory, processState });
