// The per-thread runtime of runWasiThreadsProgram's threads over the
// program's one C WASI (src/wasi/, through src/node/binding_wasi.c): the
// guest's main thread (lib/program-worker.js) and every pool worker, which
// loads this file as its `runtimeModule` (lib/worker-node.js). Used when the
// addon loads with its WASI (Linux, macOS); lib/wasi-node.js is the
// fallback (docs/runner.md, "The WASI layer").
//
// The supervisor (lib/program.js) made the WASI and put its id in
// processState.program.wasiId; every thread attaches to it with its own
// view of the program's memory, so every thread sees one fd table. Added
// here:
//   - proc_exit ends the whole program (lib/program-control.js) and stops
//     the WASI, so that calls blocked in C on other threads return;
//   - a call that returns because the WASI stopped never returns to the
//     guest: the thread parks until its worker is terminated;
//   - thread-spawn parks a thread whose program has ended.

import { native } from "./binding.js";
import { endProgram, parkForever } from "./program-control.js";
import { createProgramWorkerRuntime, linkMemory, programOf, runProgramMainWith, threadSpawnImport } from "./program-runtime.js";

const FILE = "lib/wasi-c.js";

function bindingOf() {
  const binding = native.binding;
  if (typeof binding?.wasiImports !== "function") {
    throw new Error(`${FILE}: the addon with the program's C WASI did not load here (${native.error ?? "no WASI in it"}).`);
  }
  return binding;
}

// {imports, wasi}: wasi is the attachment (wasiDetach(wasi) drops it; the
// worker's end drops it otherwise).
function createImports({ wasmModule, memory, program, threadSpawn }) {
  const binding = bindingOf();
  const id = program.wasiId;
  const stopWasi = () => binding.wasiStop(id);
  const wasi = binding.wasiImports(id, memory, () => parkForever(program.control));
  const preview1 = { ...wasi, proc_exit: (code) => endProgram(program, code >>> 0, stopWasi) };
  const imports = { wasi_snapshot_preview1: preview1, wasi: { "thread-spawn": threadSpawnImport(program, threadSpawn) } };
  return { imports: linkMemory(imports, wasmModule, memory), wasi, stopWasi };
}

// For lib/worker-node.js (runtimeModule): lib/program-runtime.js's worker
// runtime over this file's imports; close() detaches the thread.
export function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn, workerIndex } = {}) {
  const program = programOf(processState, FILE);
  const { imports, wasi } = createImports({ wasmModule, memory, program, threadSpawn: threadSpawn ?? (() => -1) });
  const close = () => native.binding.wasiDetach(wasi);
  return createProgramWorkerRuntime({ wasmModule, program, imports, workerIndex, close });
}

// For lib/program-worker.js: the guest's main thread (never returns). The
// end of _start stops the WASI as proc_exit does.
export function runProgramMain({ wasmModule, memory, processState, threadSpawn }) {
  const program = programOf(processState, FILE);
  const { imports, stopWasi } = createImports({ wasmModule, memory, program, threadSpawn });
  runProgramMainWith({ wasmModule, program, imports, onEnd: stopWasi });
}
