// The per-thread runtime of runWasiThreadsProgram's threads over the
// program's one C WASI (src/wasi/, through src/node/binding_wasi.c): the
// guest's main thread (lib/program/main-worker.js) and every pool worker, which
// loads this file as its `runtimeModule` (lib/worker/node.js). Used when the
// addon loads with its WASI (Linux, macOS); lib/program/wasi-node.js is the
// fallback (docs/runner.md, "The WASI layer").
//
// The supervisor (lib/program/run.js) made the WASI and put its id in
// processState.program.wasiId; every thread attaches to it with its own
// view of the program's memory, so every thread sees one fd table. Added
// here:
//   - proc_exit ends the whole program (lib/program/control.js) and stops
//     the WASI, so that calls blocked in C on other threads return;
//   - an fd_write that answers EPIPE ends the program with 141, as SIGPIPE
//     ends a native process (endOnBrokenPipe);
//   - a call that returns because the WASI stopped never returns to the
//     guest: the thread parks until its worker is terminated;
//   - thread-spawn parks a thread whose program has ended;
//   - in a program that owns its process (the CLI: lib/program/process.js),
//     the thread that ends the program ends the process (exitProcessNow).

import { writeSync } from "node:fs";
import { isMainThread } from "node:worker_threads";
import { native } from "../native/binding.js";
import { endOnBrokenPipe, endProgram, parkForever, programOutcome, setProcessEnder } from "./control.js";
import { createProgramWorkerRuntime, programImports, programOf, programThreadSpawn, runProgramMainWith } from "./runtime.js";
import { createQueueFeeder } from "./pool.js";

const FILE = "lib/program/wasi-c.js";
const ERRNO_FAULT = 21;

function bindingOf() {
  const binding = native.binding;
  if (typeof binding?.wasiImports !== "function") {
    throw new Error(`${FILE}: the addon with the program's C WASI did not load here (${native.error ?? "no WASI in it"}).`);
  }
  return binding;
}

// {imports, wasi, stopWasi, attachMemory}: wasi is the attachment
// (wasiDetach(wasi) drops it; the worker's end drops it otherwise). memory
// null (a plain program whose module defines its own): the imports call
// through to an attachment that attachMemory(memory) makes once the module
// is instantiated (a call before that, from a start function, has no
// memory to act on and answers EFAULT, 21).
function createImports({ wasmModule, memory, program, threadSpawn }) {
  const binding = bindingOf();
  if (program.ownsProcess) setProcessEnder(exitProcessNow);
  const id = program.wasiId;
  const stopWasi = () => binding.wasiStop(id);
  const attach = (programMemory) => binding.wasiImports(id, programMemory, () => parkForever(program.control));
  const own = (wasi) => ({
    ...wasi,
    proc_exit: (code) => endProgram(program, code >>> 0, stopWasi),
    fd_write: endOnBrokenPipe(program, wasi.fd_write, stopWasi),
  });
  if (memory) {
    const wasi = attach(memory);
    const imports = programImports({ preview1: own(wasi), program, threadSpawn, wasmModule, memory });
    return { imports, wasi, stopWasi };
  }
  let current = null;
  const preview1 = {};
  for (const { module, name, kind } of WebAssembly.Module.imports(wasmModule)) {
    if (module !== "wasi_snapshot_preview1" || kind !== "function") continue;
    preview1[name] = (...args) => (current ? current[name](...args) : ERRNO_FAULT);
  }
  preview1.proc_exit = (code) => endProgram(program, code >>> 0, stopWasi);
  if (preview1.fd_write) preview1.fd_write = endOnBrokenPipe(program, preview1.fd_write, stopWasi);
  const attachMemory = (programMemory) => {
    current = attach(programMemory);
  };
  return { imports: programImports({ preview1, program, threadSpawn, wasmModule, memory }), stopWasi, attachMemory };
}

// The program has ended (this thread decided how, the WASI is stopped): its
// process ends now with the program's exit status, after the runner's line
// for a trap or a failure. The main thread runs its "exit" listeners and
// ends the process at once (exitMainThread: as Node's exit, workers
// terminated, where --cpu-prof or coverage is to be written); any other
// thread cannot reach the main thread, which may be blocked in guest code,
// and ends the process at once (exitProcess: _exit). Nothing a thread wrote
// is lost either way: the WASI writes with write(2), unbuffered. Never returns.
function exitProcessNow(program) {
  const { exitCode, message } = programOutcome(program);
  if (message !== null) {
    try {
      writeSync(program.stderrFd, message);
    } catch {
      // stderr closed: the status still says it
    }
  }
  if (isMainThread) exitMainThread(exitCode);
  native.binding.exitProcess(exitCode);
}

// Flags under which Node writes something when the process exits (profiles,
// coverage, trace events) or waits for a debugger.
const WRITES_AT_EXIT = /^--(?:cpu-prof|heap-prof|prof|trace-event|trace-events-enabled|inspect)/;

function nodeWritesAtExit() {
  if (process.env.NODE_V8_COVERAGE) return true;
  const options = (process.env.NODE_OPTIONS ?? "").split(/\s+/);
  return [...process.execArgv, ...options].some((arg) => WRITES_AT_EXIT.test(arg));
}

// The main thread's end of the process: its "exit" listeners, then _exit.
// Node's own exit (process.exit) also tears every worker's environment down
// and joins its thread, 10 to 60 ms with a few workers on 2 CPUs (the bench's
// group 13), for nothing: the process is the program's. Where
// Node writes at exit (a profile, coverage), process.exit.
function exitMainThread(exitCode) {
  if (nodeWritesAtExit()) process.exit(exitCode);
  process.exitCode = exitCode;
  try {
    process.emit("exit", exitCode);
  } finally {
    native.binding.exitProcess(exitCode);
  }
}

// For lib/worker/node.js (runtimeModule): lib/program/runtime.js's worker
// runtime over this file's imports; close() detaches the thread. Its threads
// spawn by the program's rules (programThreadSpawn), not the pool's.
export function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, workerIndex, spare = false } = {}) {
  const program = programOf(processState, FILE);
  const threadSpawn = programThreadSpawn({ wasmModule, memory, processState });
  const { imports, wasi } = createImports({ wasmModule, memory, program, threadSpawn });
  const close = () => native.binding.wasiDetach(wasi);
  return createProgramWorkerRuntime({
    wasmModule,
    program,
    imports,
    workerIndex,
    close,
    spare,
    feedQueue: createQueueFeeder({ wasmModule, memory, processState }),
  });
}

// For lib/program/main-worker.js: the guest's main thread (never returns). The
// end of _start stops the WASI as proc_exit does. A plain program
// (threadSpawn null): memory is its imported non-shared memory, or null when
// it defines its own.
export function runProgramMain({ wasmModule, memory, processState, threadSpawn }) {
  const program = programOf(processState, FILE);
  const { imports, stopWasi, attachMemory } = createImports({ wasmModule, memory, program, threadSpawn });
  runProgramMainWith({ wasmModule, program, imports, attachMemory, onEnd: stopWasi });
}
