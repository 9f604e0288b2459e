// Argument checks for the pool API, shared by the Node and browser entries.
//
// Every public function validates before it touches the buffer or calls the
// addon: a wrong kind of value is a TypeError, a value out of range is a
// RangeError, and each message names the argument. The SDK's own module does
// not check (slot -1 there silently reads header word 0); a drop-in that runs
// C over the buffer must.

import { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, HEADER_WORDS, maxSlotsOf } from "./layout.js";

const SPAWN_WAIT_MESSAGE = "spawnWaitMs must be a finite, non-negative number of milliseconds.";

// The SDK's resolveSpawnWaitMs, message included.
export function resolveSpawnWaitMs(value) {
  if (value === undefined || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value === "number" && value >= 0 && value !== Infinity) return value;
  throw new RangeError(SPAWN_WAIT_MESSAGE);
}

export function checkCapacity(capacity) {
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new RangeError("pool capacity must be a non-negative integer.");
  }
  // 4 * (8 + 8 * capacity) bytes must be a valid SharedArrayBuffer length
  // and every word index must fit in an int32.
  if (capacity > 0x0fffffff - 1) {
    throw new RangeError("pool capacity must be at most 268435454 slots.");
  }
  return capacity;
}

// Returns pool.control after checking that pool is a pool descriptor.
export function checkPool(pool) {
  if (pool === null || typeof pool !== "object") {
    throw new TypeError("pool must be a pool descriptor ({ control, spawnWaitMs }).");
  }
  const { control } = pool;
  if (!(control instanceof Int32Array)) {
    throw new TypeError("pool.control must be an Int32Array.");
  }
  if (typeof SharedArrayBuffer === "undefined" || !(control.buffer instanceof SharedArrayBuffer)) {
    throw new TypeError("pool.control must be backed by a SharedArrayBuffer.");
  }
  if (control.length < HEADER_WORDS) {
    throw new RangeError(`pool.control must hold at least ${HEADER_WORDS} words (the pool header).`);
  }
  return control;
}

// A slot index must name a slot the buffer really holds; header words such
// as the capacity can be rewritten by any thread and are not trusted.
export function checkSlot(control, slot) {
  if (typeof slot !== "number") {
    throw new TypeError("slot must be a number.");
  }
  const limit = maxSlotsOf(control.length);
  if (!Number.isInteger(slot) || slot < 0 || slot >= limit) {
    throw new RangeError(`slot must be an integer in [0, ${limit}) for this pool buffer.`);
  }
  return slot;
}

export function checkInt32(value, name) {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number.`);
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
    throw new RangeError(`${name} must be a 32-bit integer.`);
  }
  return value;
}

export function checkFunction(value, name) {
  if (typeof value !== "function") throw new TypeError(`${name} must be a function.`);
  return value;
}

export function checkOptionalFunction(value, name) {
  if (value === undefined || value === null) return null;
  return checkFunction(value, name);
}

export function checkOptions(options, name) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") throw new TypeError(`${name} must be an object.`);
  return options;
}

// The descriptor's own spawnWaitMs: a pool posted from another thread (or
// built by hand) may carry anything, and NaN would make the SDK's claim loop
// spin forever. Missing means the default, as for createWasiThreadPool.
export function checkPoolSpawnWaitMs(pool) {
  const value = pool.spawnWaitMs;
  if (value === undefined || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(`pool.${SPAWN_WAIT_MESSAGE}`);
  }
  return value;
}
