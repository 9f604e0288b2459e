// The shared buffer layout, as JavaScript constants.
//
// src/core/wtp.h is the source of truth; browsers need these numbers without the
// addon, so they are written out here too, and test/layout.test.js holds every
// one of them against the addon's own export (binding.layout).

export const WASI_THREAD_POOL_PROTOCOL = 2;
export const DEFAULT_WASI_THREAD_SPAWN_WAIT_MS = 250;

export const HEADER_WORDS = 8;
export const SLOT_WORDS = 8;

// Header words.
export const H_GENERATION = 0;
export const H_NEXT_TID = 1;
export const H_SPAWNED = 2;
export const H_WAITED = 3;
export const H_DECLINED = 4;
export const H_SLOTS = 5;
export const H_CAPACITY = 6;
export const H_IMPL = 7;

// Slot words (offsets within a slot).
export const S_STATE = 0;
export const S_TID = 1;
export const S_ARG = 2;
export const S_FLAGS = 3;
export const S_THREAD = 4;

export const WASI_THREAD_POOL_SLOT = Object.freeze({
  PENDING: 0,
  IDLE: 1,
  CLAIMED: 2,
  ASSIGNED: 3,
  RUNNING: 4,
  RETIRED: 5,
});

export const FLAG_MESSAGE_DISPATCH = 1;
export const MAX_TID = 0x1fffffff;
export const GROW_AFTER_MS = 2;

// Values of the H_IMPL word: which wait mechanism the pool uses.
export const IMPL_JS = 0;
export const IMPL_NATIVE = 0x7774706e;
// Bit 31 of H_IMPL: set (never cleared) when the pool is closed by
// terminateWasiThreadPool; bits 0-30 are the mechanism tag.
export const IMPL_CLOSED = -0x80000000;
export const IMPL_MASK = 0x7fffffff;

// Decline reasons, with the core's numbering: lib/pool/reasons.js.

// Slots a control array of `length` words can hold: the only trusted bound.
export function maxSlotsOf(length) {
  return length < HEADER_WORDS ? 0 : Math.floor((length - HEADER_WORDS) / SLOT_WORDS);
}

export function slotBase(slot) {
  return HEADER_WORDS + SLOT_WORDS * slot;
}
