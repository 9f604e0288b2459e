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
import { armWasiThreadPoolSlot, openWasiThreadPoolSlots } from "../pool.js";
import { runGuestMainThread } from "./runtime.js";
import { loadProgram, makeProgram, normalizeOptions } from "./setup.js";
import { runProgramMain } from "./wasi-c.js";
import { programWasiUnavailable } from "./wasi.js";

// options: runWasiThreadsProgram's; spares: the CLI's spare workers
// (lib/program/spare-worker.js); moduleStore: the module cache's entry for
// this module (lib/program/module-cache.js) or null. Never settles where the C WASI
// serves (the process ends with the program); rejects as
// runWasiThreadsProgram does for an option, a module or a preopen refused
// before the program runs.
export async function runProgramAsProcess(wasm, options, spares = [], moduleStore = null) {
  if (programWasiUnavailable() !== null || typeof native.binding.exitProcess !== "function") {
    for (const spare of spares) spare.terminate();
    const { runWasiThreadsProgram } = await import("./run.js");
    return runWasiThreadsProgram(wasm, options);
  }
  const opts = normalizeOptions(options);
  const { program, wasmModule, memory, plainMemory } = await makeProgram(opts, await loadProgram(wasm, { store: moduleStore }), {
    ownsProcess: true,
  });
  const processState = { program };
  if (program.pool !== null && program.execArgv === undefined) handOverSpares(spares, { wasmModule, memory, processState });
  else for (const spare of spares) spare.terminate();
  runGuestMainThread(runProgramMain, { wasmModule, memory, plainMemory, processState });
}

// The program is made and no thread runs yet: pool slot 0 becomes the
// spare's, idle, so that the first spawn claims it at once; the spare gets
// what a grown worker gets in its workerData (lib/program/pool.js).
function handOverSpares(spares, { wasmModule, memory, processState }) {
  const { pool, poolSize } = processState.program;
  const kept = spares.slice(0, poolSize);
  for (const spare of spares.slice(kept.length)) spare.terminate();
  if (kept.length === 0) return;
  openWasiThreadPoolSlots(pool, kept.length);
  kept.forEach((spare, slot) => {
    armWasiThreadPoolSlot(pool, slot);
    spare.postMessage({ wasmModule, memory, processState, pool, slot, wasiThreadPoolAddonPath: native.path });
  });
}
