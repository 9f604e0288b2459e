// The memory pass (issue 26, docs/runtime.md "Memory growth across threads"):
// a wasi-threads program's memory.size and memory.grow become calls of two
// host functions over a page counter every thread shares, so that the host
// can reserve the real memory at its maximum before any thread runs and
// never grow it again. V8 keeps a per-instance copy of a shared memory's
// size, refreshed on another thread's growth only at the next stack check;
// bulk memory operations (every platform) and stores on linux-arm64 (every
// access on Node 20 there, which has no trap handler) are checked against
// that copy, so a thread that touches
// memory another thread has just grown can trap. A memory that never grows
// has no stale copy.
//
//   rewriteMemoryGrowth(bytes) -> {bytes, rewritten}
//     bytes unchanged (the same object, rewritten false) when the module has
//     no memory.size/memory.grow; otherwise the module with two function
//     imports added (MEMORY_IMPORT_MODULE "memory_size" () -> i32 and
//     "memory_grow" (i32) -> i32, after the existing imports) and every
//     memory.size/memory.grow replaced by a call of them.
//   createMemoryCounter, memoryGrowthImports: lib/wasm/memory-counter.js
//     (the host side, small enough for the pool workers' bundles).

import { Reader, concatBytes, encodeU } from "./reader.js";
import { OP } from "./instructions.js";
import { scanCode, transformModule } from "./module.js";
import { MEMORY_IMPORT_MODULE } from "./memory-counter.js";

export { MEMORY_IMPORT_MODULE, createMemoryCounter, memoryGrowthImports } from "./memory-counter.js";

const I32 = 0x7f;

function isGrowth(ins) {
  return ins.op === OP.memorySize || ins.op === OP.memoryGrow;
}

export function hasMemoryGrowth(bytes) {
  let found = false;
  scanCode(bytes, (ins) => {
    if (isGrowth(ins)) found = true;
  });
  return found;
}

export function rewriteMemoryGrowth(bytes) {
  let calls = null; // [call size, call grow], made once
  const out = transformModule(bytes, {
    onlyIfReplaced: true,
    ops: [OP.memorySize, OP.memoryGrow],
    // replace's promise (lib/wasm/module.js): the code is rewritten in wasm.
    callsFor: [
      [OP.memorySize, 0],
      [OP.memoryGrow, 1],
    ],
    imports: [
      { module: MEMORY_IMPORT_MODULE, name: "memory_size", params: [], results: [I32] },
      { module: MEMORY_IMPORT_MODULE, name: "memory_grow", params: [I32], results: [I32] },
    ],
    replace(ins, indices) {
      if (!isGrowth(ins)) return undefined;
      if (new Reader(bytes, ins.start + 1, ins.end).u() !== 0) {
        throw new TypeError("the memory pass handles one memory (memory index 0) only.");
      }
      calls ??= indices.imports.map((index) => concatBytes([Uint8Array.of(OP.call), encodeU(index)]));
      return ins.op === OP.memorySize ? calls[0] : calls[1];
    },
  });
  return { bytes: out, rewritten: out !== bytes };
}
