// A threaded program's memory, made so that growth on one thread never traps
// another (issue 26, docs/runtime.md "Memory growth across threads"): a
// guest that compileWasiThreadGuest rewrote (lib/worker/guest-memory.js)
// runs its memory.size/memory.grow on a page counter its threads share, and
// its real shared memory is made at its maximum, so that it never grows
// while threads run.
//
//   reservesMemory(wasmModule) -> boolean: the module imports the counter's
//     functions (it was rewritten).
//   makeProgramMemory(memoryType, reserved) -> {memory, memoryPages}: the
//     shared memory (at its maximum when reserved) and the counter (null
//     when not reserved).

import { createMemoryCounter, importsMemoryCounter } from "../wasm/memory-counter.js";
import { RESERVE_ENV } from "../worker/guest-memory.js";

export function reservesMemory(wasmModule) {
  return importsMemoryCounter(wasmModule);
}

export function makeProgramMemory({ initial, maximum }, reserved) {
  if (!reserved) return { memory: new WebAssembly.Memory({ initial, maximum, shared: true }), memoryPages: null };
  let memory;
  try {
    memory = new WebAssembly.Memory({ initial: maximum, maximum, shared: true });
  } catch (error) {
    throw new RangeError(
      `runWasiThreadsProgram: cannot reserve the program's memory at its maximum (${maximum} pages): ${error.message} ` +
        `(${RESERVE_ENV}=0 grows it on demand instead, docs/runtime.md "Memory growth across threads").`,
      { cause: error },
    );
  }
  return { memory, memoryPages: createMemoryCounter(initial, maximum) };
}
