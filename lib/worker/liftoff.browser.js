// The Liftoff guard's API for browsers, so that code shared between Node and
// the browser can compile guests the same way. The bug it guards against is
// V8 11.3's (Node 20); the browsers this package serves compile correctly
// (Chromium 156 checked, FINDINGS), and a page cannot set V8 flags anyway.
//
// compileWasiThreadGuest here applies the memory pass as on Node (issue 26,
// lib/worker/guest-memory.js): browsers run V8's bulk memory checks against
// a per-thread copy of the memory's size too (docs/runtime.md, "Memory
// growth across threads"). Browser-safe: no node: module.

import { noteCompiledModule } from "./wasm-memory.js";
import { rewriteGuestMemory } from "./guest-memory.js";

export function liftoffHazardAffected() {
  return false;
}

export function protectFromLiftoffHazard() {
  return true;
}

export function liftoffHazardState() {
  return { affected: false, protected: false };
}

function bytesOf(source) {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && source instanceof SharedArrayBuffer)) {
    return new Uint8Array(source);
  }
  throw new TypeError("compileWasiThreadGuest expects the module's bytes (a BufferSource).");
}

function compiled(module, bytes) {
  noteCompiledModule(module, bytes);
  return module;
}

// options.reserveMemory: false compiles the module as it is (docs/api.md,
// "Memory growth").
export async function compileWasiThreadGuest(bytes, options) {
  const source = bytesOf(bytes);
  return compiled(await WebAssembly.compile(rewriteGuestMemory(source, options ?? {}).bytes), source);
}

export function compileWasiThreadGuestSync(bytes, options) {
  const source = bytesOf(bytes);
  return compiled(new WebAssembly.Module(rewriteGuestMemory(source, options ?? {}).bytes), source);
}
