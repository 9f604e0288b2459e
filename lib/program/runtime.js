// What the two per-thread runtimes of runWasiThreadsProgram share
// (lib/program/wasi-c.js, the program's one C WASI; lib/program/wasi-node.js, node:wasi per
// thread): finding the program in processState, the import object (the
// guest's memory, thread-spawn for threaded programs only, parked after the
// end), the program's thread-spawn (lib/program/threads.js's rules, through
// lib/program/pool.js), and the two entry points: a pool worker's runtime (a
// trap on any thread ends the whole program; a worker runs queued threads
// after its own) and the main thread's _start. Each runtime brings its own
// createImports and, for the C WASI, what ends the program's WASI with the
// program (onEnd).

import { Worker } from "node:worker_threads";
import { wasiThreadPoolLastTid } from "../pool.js";
import { C_WATCHER, endProgram, parkForever, programEnded, trapProgram } from "./control.js";
import { createProgramThreadSpawn } from "./pool.js";
import { MEMORY_IMPORT_MODULE, memoryGrowthImports } from "../wasm/memory-counter.js";
import { runProgramThread, runQueuedThreads, takeTrampoline, threadsQueued, workerReady } from "./threads.js";

const WATCH_WORKER_URL = new URL("./watch-worker.js", import.meta.url);

export function programOf(processState, file) {
  const program = processState?.program;
  if (!program || !(program.control instanceof Int32Array)) {
    throw new TypeError(`${file} is the runtime of runWasiThreadsProgram: its processState has no program.`);
  }
  return program;
}

// The imports of one thread: preview1, wasi.thread-spawn for a threaded
// program only (threadSpawn null: a plain program, which must not import it),
// and the guest's memory under whatever name the guest imports it (nothing
// when memory is null: the module defines its own).
export function programImports({ preview1, program, threadSpawn, wasmModule, memory }) {
  const imports = { wasi_snapshot_preview1: preview1 };
  // A rewritten program's memory.size/memory.grow (lib/program/memory.js).
  if (program.memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(program.memoryPages);
  if (threadSpawn !== null) imports.wasi = { "thread-spawn": threadSpawnImport(program, threadSpawn) };
  const entry = WebAssembly.Module.imports(wasmModule).find((e) => e.kind === "memory");
  if (entry && memory) imports[entry.module] = { ...imports[entry.module], [entry.name]: memory };
  return imports;
}

// The thread-spawn of one thread of a threaded program (the main thread's
// worker or a pool worker): a tid, or -1 (EAGAIN) only at the program's
// thread limit; it never waits for a worker (lib/program/threads.js). The
// pool's own threadSpawn that lib/worker/node.js offers a runtime is not used.
// In a program that owns its process (the CLI: no supervisor thread), the
// first spawn that leaves a thread queued also starts the queue's watcher
// (lib/program/watch-worker.js), once per program (C_WATCHER).
export function programThreadSpawn({ wasmModule, memory, processState }) {
  const spawn = createProgramThreadSpawn({ wasmModule, memory, processState });
  const { program } = processState;
  if (!program.ownsProcess) return spawn;
  return (startArg) => {
    const tid = spawn(startArg);
    if (tid > 0 && threadsQueued(program) > 0 && Atomics.load(program.control, C_WATCHER) === 0) {
      if (Atomics.compareExchange(program.control, C_WATCHER, 0, 1) === 0) startQueueWatcher(wasmModule, memory, processState);
    }
    return tid;
  };
}

function startQueueWatcher(wasmModule, memory, processState) {
  const worker = new Worker(WATCH_WORKER_URL, {
    execArgv: processState.program.execArgv,
    workerData: { wasmModule, memory, processState },
  });
  // The process ends with the program, whatever the watcher is doing; its
  // failures are not the program's.
  worker.unref();
  worker.on("error", () => {});
}

// wasi.thread-spawn: a thread of an ended program parks instead of starting
// another thread.
function threadSpawnImport(program, threadSpawn) {
  return (startArg) => {
    if (programEnded(program)) parkForever(program.control);
    return threadSpawn(startArg);
  };
}

// For lib/worker/node.js (runtimeModule): {imports, instantiate(), close()},
// as the package's own runtime. The instance it returns has a
// wasi_thread_start that turns a trap into the end of the whole program and,
// after its thread, runs the program's queued threads; the first instance
// tells lib/program/threads.js that this worker's start is over (not a
// spare's: lib/program/spare-worker.js; it took no start of the program's),
// then, before its thread, feedQueue() (lib/program/pool.js, createQueueFeeder) starts workers
// for threads queued meanwhile.
export function createProgramWorkerRuntime({
  wasmModule,
  program,
  imports,
  workerIndex,
  close = () => {},
  spare = false,
  feedQueue = () => {},
}) {
  let ready = false;
  return {
    imports,
    instantiate() {
      let instance;
      try {
        instance = new WebAssembly.Instance(wasmModule, imports);
      } catch (error) {
        // The thread this worker was started for (its slot's last tid)
        // cannot run: that ends the program as its trap would.
        const tid = Number.isInteger(workerIndex) ? wasiThreadPoolLastTid(program.pool, workerIndex) : "?";
        trapProgram(program, `thread ${tid} (instantiation)`, error);
      }
      if (!ready) {
        ready = true;
        if (!spare) workerReady(program, workerIndex);
        feedQueue();
      }
      const guestStart = instance.exports.wasi_thread_start;
      // A trap ends the program (never returns).
      const start = (tid, startArg) => {
        try {
          return guestStart(tid, startArg);
        } catch (error) {
          trapProgram(program, `thread ${tid}`, error);
        }
      };
      const exports = Object.assign(Object.create(null), instance.exports, {
        wasi_thread_start(tid, startArg) {
          if (programEnded(program)) parkForever(program.control);
          // A trampoline (lib/program/threads.js) runs queued threads only;
          // any other thread runs, then this worker runs queued threads.
          if (!takeTrampoline(program, startArg)) runProgramThread(program, start, tid, startArg);
          runQueuedThreads(program, start);
        },
      });
      return { exports };
    },
    close,
  };
}

// The guest's main thread, on the calling thread (lib/program/main-worker.js,
// or the CLI's main thread: lib/program/process.js), with runProgramMain of
// the program's runtime (lib/program/wasi-c.js or wasi-node.js). A plain
// program (no pool) runs alone with its own memory: plainMemory is the
// non-shared memory it imports ({initial, maximum}), or null when it defines
// its own. Never returns.
export function runGuestMainThread(runProgramMain, { wasmModule, memory, plainMemory, processState }) {
  if (processState.program.pool === null) {
    const ownMemory = plainMemory
      ? new WebAssembly.Memory({ initial: plainMemory.initial, maximum: plainMemory.maximum ?? undefined })
      : null;
    runProgramMain({ wasmModule, memory: ownMemory, processState, threadSpawn: null });
  } else {
    const threadSpawn = programThreadSpawn({ wasmModule, memory, processState });
    runProgramMain({ wasmModule, memory, processState, threadSpawn });
  }
}

// For runGuestMainThread: instantiates the guest's main thread and runs
// _start; its return ends the program with 0 (then onEnd()), a trap ends it
// as a trap. Never returns. attachMemory (a plain program whose module
// defines its own memory) receives that memory before _start runs.
export function runProgramMainWith({ wasmModule, program, imports, attachMemory, onEnd }) {
  let instance;
  try {
    instance = new WebAssembly.Instance(wasmModule, imports);
  } catch (error) {
    trapProgram(program, "the main thread (instantiation)", error);
  }
  attachMemory?.(instance.exports.memory ?? new WebAssembly.Memory({ initial: 0 }));
  try {
    instance.exports._start();
  } catch (error) {
    trapProgram(program, "the main thread", error);
  }
  endProgram(program, 0, onEnd);
}
