// The CLI's program (bin/wasi-thread-pool.js): the process is the program's,
// as wasmtime's is. Where the program's C WASI serves (lib/program/wasi.js),
// the guest's main thread runs on this process's main thread, with no
// supervisor thread and no worker of its own, and the program's end ends the
// process at once with its exit status (lib/program/wasi-c.js,
// exitProcessNow): proc_exit or a trap on any thread, or _start's return.
// Threads run on pool workers as under runWasiThreadsProgram; the queue's
// watcher, the supervisor's duty there, runs in a worker of its own started
// at the first queued thread (lib/program/watch-worker.js). With node:wasi
// (no C WASI here, or WASI_THREAD_POOL_NODE_WASI=1), or with an addon built
// before its exitProcess, the program runs under
// runWasiThreadsProgram, which needs a supervisor (stdio through it), and
// its {exitCode} is returned. Docs: docs/runner.md, "The CLI's process".

import { native } from "../native/binding.js";
import { runGuestMainThread } from "./runtime.js";
import { loadProgram, makeProgram, normalizeOptions } from "./setup.js";
import { runProgramMain } from "./wasi-c.js";
import { programWasiUnavailable } from "./wasi.js";

// options: runWasiThreadsProgram's. Never settles where the C WASI serves
// (the process ends with the program); rejects as runWasiThreadsProgram does
// for an option, a module or a preopen refused before the program runs.
export async function runProgramAsProcess(wasm, options) {
  if (programWasiUnavailable() !== null || typeof native.binding.exitProcess !== "function") {
    const { runWasiThreadsProgram } = await import("./run.js");
    return runWasiThreadsProgram(wasm, options);
  }
  const opts = normalizeOptions(options);
  const { program, wasmModule, memory, plainMemory } = await makeProgram(opts, await loadProgram(wasm), {
    ownsProcess: true,
  });
  runGuestMainThread(runProgramMain, { wasmModule, memory, plainMemory, processState: { program } });
}
