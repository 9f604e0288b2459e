// Which guests get the memory pass (lib/wasm/memory-pass.js, issue 26), for
// compileWasiThreadGuest (lib/worker/liftoff.js) and the runner
// (lib/program/setup.js): every wasi-threads guest (it imports a shared
// memory) whose code has memory.grow or memory.size, unless
// WASI_THREAD_POOL_RESERVE_MEMORY=0 or the caller's option says no. The
// hazard it removes exists on every platform (bulk memory operations) and on
// linux-arm64 for stores on every Node version (every access on Node 20,
// which runs without the trap handler there): docs/runtime.md "Memory
// growth across threads". Results are cached per module's bytes.
//
//   growthRemedyWanted(env) -> boolean
//   rewriteGuestMemory(bytes, {reserveMemory}) -> {bytes, rewritten}

import { rewriteMemoryGrowth } from "../wasm/memory-pass.js";
import { readMemoryDeclarations } from "./wasm-memory.js";
import { envSwitch } from "./env-switch.js";

export const RESERVE_ENV = "WASI_THREAD_POOL_RESERVE_MEMORY";

export function growthRemedyWanted(env = typeof process === "object" ? process.env : {}) {
  return envSwitch(env, RESERVE_ENV);
}

// The last few modules looked at more than once: {hash, source (a copy),
// bytes (rewritten or null)}; found by a hash, confirmed by comparing the
// bytes. A module's bytes are copied (the caller may change its buffer) at
// its second rewrite, not its first: a process that compiles a module once
// (the CLI) copies nothing (a copy of zstd.wasm's 737 KB cost a fresh
// process 5 to 11 ms). seen: the hashes of the last few rewritten once.
const CACHE_SIZE = 4;
const cache = [];
const seen = [];

// At most HASHED bytes, evenly spread, and the length: a key, not a proof
// (a hit is confirmed byte by byte). Every 8th byte of zstd.wasm was a cold
// loop of 92,000 turns (38 ms of a profiled CLI run).
const HASHED = 4096;

function hashOf(bytes) {
  let h = 0x811c9dc5;
  const step = Math.max(1, Math.floor(bytes.length / HASHED));
  for (let i = 0; i < bytes.length; i += step) h = Math.imul(h ^ bytes[i], 0x01000193);
  return (h ^ bytes.length) >>> 0;
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isThreadedGuest(bytes) {
  try {
    return readMemoryDeclarations(bytes).imports.some((m) => m.shared);
  } catch {
    return false; // not readable here: WebAssembly.compile will say why
  }
}

function rewriteUncached(bytes) {
  if (!isThreadedGuest(bytes)) return { bytes, rewritten: false };
  try {
    return rewriteMemoryGrowth(bytes);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // An encoding the decoder does not know (or a broken module, which the
    // compile reports): compiled as it is, with the hazard.
    const message = `The memory pass could not read this module (${error.message}); it runs without it.`;
    // process.emitWarning on Node; a browser (no process) gets console.warn.
    if (typeof process === "object" && typeof process.emitWarning === "function") {
      process.emitWarning(message, { type: "WasiThreadMemoryWarning", code: "WASI_THREAD_MEMORY_PASS" });
    } else {
      console.warn(`[wasi-thread] ${message}`);
    }
    return { bytes, rewritten: false };
  }
}

export function rewriteGuestMemory(bytes, { reserveMemory } = {}) {
  if (reserveMemory === false || (reserveMemory === undefined && !growthRemedyWanted())) return { bytes, rewritten: false };
  const hash = hashOf(bytes);
  const hit = cache.find((e) => e.hash === hash && sameBytes(e.source, bytes));
  if (hit) return hit.bytes ? { bytes: hit.bytes, rewritten: true } : { bytes, rewritten: false };
  const result = rewriteUncached(bytes);
  if (seen.includes(hash)) {
    cache.unshift({ hash, source: bytes.slice(), bytes: result.rewritten ? result.bytes : null });
    cache.length = Math.min(cache.length, CACHE_SIZE);
  } else {
    seen.unshift(hash);
    seen.length = Math.min(seen.length, CACHE_SIZE);
  }
  return result;
}
