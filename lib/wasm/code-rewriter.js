// The code section rewrite of transformModule (lib/wasm/module.js) in wasm:
// src/wasm/rewrite_code.c, built into lib/wasm/code-rewriter-wasm.js by
// scripts/build-code-rewriter.js. For a plan whose edits are only function
// indices moved up (added imports) and instructions swapped for calls of
// the added imports (plan.callsFor: the memory pass), it gives the bytes the
// JS walker gives, about ten times sooner on a cold start (the JS walker's
// cost is mostly V8 warming it up: the bench's group 12).
// It gives up (null) on what it does not read (SIMD, GC, try_table, an
// encoding the JS reader refuses, a malformed body): the caller then runs
// the JS walker, which rewrites the module or says what is wrong with it.
//
//   rewriteCodeInWasm(bytes, section, {firstDefined, shift, calls}) ->
//     {content, replaced} | null
//   section: the code section ({contentStart, end}); calls: [[opcode,
//   function index]], at most 4, each an MVP opcode with one u32
//   immediate that must be 0 (memory.size, memory.grow). content: the new
//   section's content (a view of the instance's memory); replaced: the instructions swapped.
//
// No Node or browser API beyond WebAssembly and atob: any thread may load
// this file. An instance is made per call and dropped after it (its memory
// holds a copy of the code section and its output).

import { CODE_REWRITER_WASM } from "./code-rewriter-wasm.js";

const PAGE = 65536;
const STEP = 32;
let compiled = null; // the module, or false where it cannot be made

// A new instance, or null where this thread cannot make one (a browser's
// main thread may refuse to compile a module of several KB synchronously).
function instantiate() {
  if (compiled === false) return null;
  try {
    if (compiled === null) {
      const text = atob(CODE_REWRITER_WASM);
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      compiled = new WebAssembly.Module(bytes);
    }
    return new WebAssembly.Instance(compiled, {});
  } catch {
    compiled = false;
    return null;
  }
}

export function rewriteCodeInWasm(bytes, section, { firstDefined, shift, calls }) {
  if (typeof WebAssembly !== "object" || calls.length > 4) return null;
  const instance = instantiate();
  if (instance === null) return null;
  const { exports } = instance;
  const length = section.end - section.contentStart;
  const inAt = (exports.__heap_base.value + 15) & ~15;
  // The most the rewrite can add: a 2-byte swap becomes a call (up to 6
  // bytes), a moved index one byte more, a body's size up to 5 bytes.
  const capacity = 3 * length + 1024;
  const outAt = inAt + length;
  const need = Math.ceil((outAt + capacity) / PAGE) - exports.memory.buffer.byteLength / PAGE;
  if (need > 0) {
    try {
      exports.memory.grow(need);
    } catch {
      return null; // no memory for it: the JS walker needs less
    }
  }
  new Uint8Array(exports.memory.buffer, inAt, length).set(bytes.subarray(section.contentStart, section.end));
  exports.wtp_swaps_clear();
  calls.forEach(([op, index], slot) => {
    if (exports.wtp_swap(op, slot, index) !== 0) throw new RangeError(`rewriteCodeInWasm: opcode ${op} cannot be swapped.`);
  });
  // In steps of STEP bodies: V8 replaces the baseline code of a wasm
  // function only between its calls.
  let left = exports.wtp_begin(inAt, length, outAt, capacity, firstDefined, shift);
  while (left > 0) left = exports.wtp_step(STEP);
  const written = left < 0 ? left : exports.wtp_finish();
  if (written < 0) return null;
  // A view into the instance's memory, which lives as long as the view.
  return { content: new Uint8Array(exports.memory.buffer, outAt, written), replaced: exports.wtp_replaced() };
}
