// Protection from the Node 20 Liftoff hazard (docs/runtime.md, FINDINGS).
//
// V8 11.3 (Node 20) has a bug in Liftoff, its baseline wasm compiler: after
// memory.atomic.wait32/wait64 returns at once ("not-equal"), values the
// waiting function keeps in registers read back wrong (its second i32 param
// reads 0; other params, locals and operand-stack values too). A
// wasi-threads guest hits exactly this in its join loop (wait on the
// thread's tid word, which has usually changed already) and loses a local:
// seen as a join that spawns endlessly, intermittently once TurboFan tiers
// the function up.
//
// Two cures, the first preferred:
//   - the module rewritten (lib/wasm/liftoff-pass.js): every wait becomes a
//     call of an appended function that does only the wait, and nothing is
//     live in a register across a call. Liftoff and V8's dynamic tiering
//     stay on; no flag is set. A module without any wait needs nothing.
//   - compiling without Liftoff: v8.setFlagsFromString("--no-liftoff")
//     before the guest is compiled (NODE_OPTIONS refuses the flag), for a
//     module the pass cannot read or whose rewrite does not compile. The
//     flag is process-wide and only affects later compilations: a
//     WebAssembly.Module compiled before it keeps its Liftoff code, even
//     when posted to a worker (workers share the compiled code). Any flag
//     set at run time also costs every later worker Node's built-in code
//     cache (its flag hash changes): tens of ms per worker.
// So:
//   - liftoffHazardAffected() probes this engine (a tiny module, below);
//   - compileWasiThreadGuest(bytes) rewrites (or protects) on an affected
//     engine, then compiles;
//   - protectFromLiftoffHazard() applies the flag if, and only if, this
//     engine shows the bug (for users who compile guests themselves);
//   - noteGuestModule(module) warns once when a module that reached a thread
//     host was compiled neither by compileWasiThreadGuest nor after a
//     protection, on an affected engine.
//
// Node-only (node:v8); the browser worker chain never imports this file.

import { noteCompiledModule } from "./wasm-memory.js";
import { rewriteAtomicWaits } from "../wasm/liftoff-pass.js";
import { rewriteGuestMemory } from "./guest-memory.js";
import { createRequire } from "node:module";
import { moduleImports } from "../wasm/module-imports.js";

// node:v8 is loaded only where the flag is set (rarely: the pass serves every
// module it can read): loading it costs a fresh process about 5 ms.
const loadV8 = () => createRequire(import.meta.url)("node:v8");

// The probe, hand-assembled so that no assembler is needed at run time:
//
//   (module
//     (memory 1 1 shared)
//     (func (export "probe") (param $a i32) (param $b i32) (result i32)
//       (drop (memory.atomic.wait32 (local.get $a) (i32.const 1) (i64.const 0)))
//       (local.get $b)))
//
// Memory word 0 holds 0, not the expected 1, so the wait returns "not-equal"
// at once and never blocks (safe on any thread). A correct engine returns $b.
// One line per wasm construct, each with its comment (kept as written):
// prettier-ignore
const PROBE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32 i32) -> i32
  0x03, 0x02, 0x01, 0x00, // function 0 has type 0
  0x05, 0x04, 0x01, 0x03, 0x01, 0x01, // memory: shared, min 1, max 1
  0x07, 0x09, 0x01, 0x05, 0x70, 0x72, 0x6f, 0x62, 0x65, 0x00, 0x00, // export "probe"
  0x0a, 0x11, 0x01, 0x0f, 0x00, // code: one body, 15 bytes, no locals
  0x20, 0x00, // local.get 0
  0x41, 0x01, // i32.const 1
  0x42, 0x00, // i64.const 0
  0xfe, 0x01, 0x02, 0x00, // memory.atomic.wait32 align=2 offset=0
  0x1a, // drop
  0x20, 0x01, // local.get 1
  0x0b, // end
]);

const PROBE_VALUE = 0x5a5a5a5;

let affected = null; // null: not probed yet; then the probe's answer
let protectedNow = false; // --no-liftoff applied by this module
let warned = false;
const safeModules = new WeakSet(); // compiled by compileWasiThreadGuest

// The raw probe: true when this engine, as currently configured, loses the
// param. Exported for tests; use liftoffHazardAffected() for the cached one.
// transform(bytes) -> bytes: the probe module as given to the engine (the
// tests prove the rewrite with it); the probe's own bytes by default.
export function probeLiftoffHazard(transform = (bytes) => bytes) {
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(transform(PROBE_BYTES)));
    // Two different values: a bug that returned the first param instead of 0
    // would be caught as well.
    return instance.exports.probe(0, PROBE_VALUE) !== PROBE_VALUE || instance.exports.probe(0, 7) !== 7;
  } catch {
    // No shared memory or no threads proposal: no atomic waits, no hazard
    // this code can do anything about.
    return false;
  }
}

// Whether the engine (before this module protected it) shows the hazard.
// Probed once per thread; cheap (one tiny compile, two calls).
export function liftoffHazardAffected() {
  if (affected === null) affected = probeLiftoffHazard();
  return affected;
}

// Applies --no-liftoff when the engine is affected. Idempotent. Returns true
// when the process is (now) safe to compile guests in. Call it before guest
// modules are compiled. (Once applied, the probe cannot re-check itself: V8
// hands back the probe's cached Liftoff code for the same bytes.)
export function protectFromLiftoffHazard() {
  if (protectedNow) return true;
  if (!liftoffHazardAffected()) return true;
  try {
    loadV8().setFlagsFromString("--no-liftoff");
  } catch {
    return false;
  }
  protectedNow = true;
  return true;
}

export function liftoffHazardState() {
  return { affected: liftoffHazardAffected(), protected: protectedNow };
}

// V8 caches compiled modules by their wire bytes, whatever the flags: bytes
// compiled once before the protection (and still alive) come back with their
// Liftoff code. On an affected engine the guest's bytes are therefore given a
// small trailing custom section, always the same one, so that protected
// compilations differ from any earlier unprotected one but still share the
// cache among themselves. A custom section has no effect on what runs.
const CACHE_TAG_NAME = "wasi-thread-pool.no-liftoff";
const CACHE_TAG = (() => {
  const name = new TextEncoder().encode(CACHE_TAG_NAME);
  // id 0, size (one LEB byte: name length byte + name), name length, name
  return Uint8Array.of(0, name.length + 1, name.length, ...name);
})();

function bytesOf(source) {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) {
    return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  }
  if (source instanceof ArrayBuffer || source instanceof SharedArrayBuffer) {
    return new Uint8Array(source);
  }
  throw new TypeError("compileWasiThreadGuest expects the module's bytes (a BufferSource).");
}

function guestBytes(source, options) {
  return rewriteGuestMemory(bytesOf(source), options ?? {}).bytes;
}

function taggedBytes(bytes) {
  const tagged = new Uint8Array(bytes.length + CACHE_TAG.length);
  tagged.set(bytes, 0);
  tagged.set(CACHE_TAG, bytes.length);
  return tagged;
}

// The bytes to compile, and how they were made safe: "engine" (not
// affected), "rewritten" (the pass replaced its waits, or it has none), or
// "flag" (--no-liftoff applied: the pass could not read the module, or
// `flag` asked for it because the rewrite did not compile).
function safeBytes(source, flag = false) {
  const bytes = bytesOf(source);
  if (!liftoffHazardAffected()) return { bytes, how: "engine" };
  if (!flag) {
    try {
      return { bytes: rewriteAtomicWaits(bytes).bytes, how: "rewritten" };
    } catch {
      // a binary the decoder does not read: the flag below
    }
  }
  if (!protectFromLiftoffHazard()) return { bytes, how: "flag" };
  return { bytes: taggedBytes(bytes), how: "flag" };
}

function compiled(module, bytes) {
  safeModules.add(module);
  noteCompiledModule(module, bytes);
  return module;
}

// Compiles a wasi-threads guest safely: a guest whose memory grows gets the
// memory pass first (issue 26, lib/worker/guest-memory.js;
// options.reserveMemory: false skips it); then, on an affected engine, the
// Liftoff pass (or the protection); then the compile. A Liftoff rewrite that
// does not compile (a memory64 module) is compiled again the flag's way, so
// that a module's own error is reported as it is.
export function compileWasiThreadGuest(bytes, options) {
  return compileWasiThreadGuestStored(bytes, options, null);
}

// compileWasiThreadGuest with a store of the bytes it compiles (the CLI's
// module cache, lib/program/module-cache.js): store.get() -> the bytes the
// passes made for this module before, or null; store.compile(), where the
// store has it, the compile of those bytes, started once (early: the CLI's
// module cache); store.put(bytes) keeps them.
// Stored bytes that do not compile are made again. Only bytes the passes
// changed and that compile without the process-wide flag are kept: the flag
// is the process's state, not the module's.
export async function compileWasiThreadGuestStored(bytes, options, store) {
  const stored = store?.get() ?? null;
  if (stored !== null) {
    try {
      return compiled(await (store.compile?.() ?? WebAssembly.compile(stored)), bytes);
    } catch {
      // a stale or damaged entry: the passes run again, and put() replaces it
    }
  }
  const source = guestBytes(bytes, options);
  const safe = safeBytes(source);
  try {
    const module = compiled(await WebAssembly.compile(safe.bytes), bytes);
    if (store !== null && safe.how !== "flag" && safe.bytes !== bytesOf(bytes)) store.put(safe.bytes);
    return module;
  } catch (error) {
    if (safe.how !== "rewritten") throw error;
  }
  return compiled(await WebAssembly.compile(safeBytes(source, true).bytes), bytes);
}

export function compileWasiThreadGuestSync(bytes, options) {
  const source = guestBytes(bytes, options);
  const safe = safeBytes(source);
  try {
    return compiled(new WebAssembly.Module(safe.bytes), bytes);
  } catch (error) {
    if (safe.how !== "rewritten") throw error;
  }
  return compiled(new WebAssembly.Module(safeBytes(source, true).bytes), bytes);
}

// Called by the thread host with the guest module it was given. On an
// affected engine that has not been protected, a module that
// compileWasiThreadGuest did not compile has Liftoff code and may misbehave:
// warn once, and say how to fix it. It only warns: the host never sets the
// process-wide flag itself (a user who did not ask for --no-liftoff does not
// get it); compileWasiThreadGuest and protectFromLiftoffHazard are the only
// steps that do. A process that wants neither compiles its guests with
// WebAssembly.compile and takes the warning (or the hazard) as it is.
export function noteGuestModule(module) {
  // A value that is not a module (an SDK test's stand-in) has no code to warn about.
  if (warned || protectedNow || moduleImports(module) === null || !liftoffHazardAffected()) return false;
  if (module && safeModules.has(module)) return false;
  warned = true;
  process.emitWarning(
    "This WebAssembly module was compiled before the Node 20 Liftoff hazard " +
      "protection was applied: a guest thread's join loop may lose a local after " +
      "memory.atomic.wait. Compile guests with compileWasiThreadGuest(bytes), or call " +
      "protectFromLiftoffHazard() before compiling them.",
    { type: "WasiThreadLiftoffWarning", code: "WASI_THREAD_LIFTOFF" },
  );
  return true;
}
