// One source of truth for the buffer layout: src/core/wtp.h defines it, the addon
// exports it (binding.layout), and lib/pool/layout.js (which browsers use without
// the addon) must agree with it number for number.

import assert from "node:assert/strict";
import { it } from "node:test";
import { native } from "../lib/native/binding.js";
import * as layout from "../lib/pool/layout.js";
import { POOL_DECLINE_REASONS } from "../lib/pool/reasons.js";

const expected = {
  PROTOCOL: layout.WASI_THREAD_POOL_PROTOCOL,
  HEADER_WORDS: layout.HEADER_WORDS,
  SLOT_WORDS: layout.SLOT_WORDS,
  H_GENERATION: layout.H_GENERATION,
  H_NEXT_TID: layout.H_NEXT_TID,
  H_SPAWNED: layout.H_SPAWNED,
  H_WAITED: layout.H_WAITED,
  H_DECLINED: layout.H_DECLINED,
  H_SLOTS: layout.H_SLOTS,
  H_CAPACITY: layout.H_CAPACITY,
  H_IMPL: layout.H_IMPL,
  S_STATE: layout.S_STATE,
  S_TID: layout.S_TID,
  S_ARG: layout.S_ARG,
  S_FLAGS: layout.S_FLAGS,
  S_THREAD: layout.S_THREAD,
  ...layout.WASI_THREAD_POOL_SLOT,
  FLAG_MESSAGE_DISPATCH: layout.FLAG_MESSAGE_DISPATCH,
  MAX_TID: layout.MAX_TID,
  GROW_AFTER_MS: layout.GROW_AFTER_MS,
  DEFAULT_SPAWN_WAIT_MS: layout.DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  IMPL_JS: layout.IMPL_JS,
  IMPL_NATIVE: layout.IMPL_NATIVE,
  IMPL_CLOSED: layout.IMPL_CLOSED,
  IMPL_MASK: layout.IMPL_MASK,
  // lib/pool/reasons.js numbers the pool's decline reasons as the core does.
  ...Object.fromEntries(
    POOL_DECLINE_REASONS.slice(1).map((reason, i) => [`REASON_${reason.toUpperCase().replaceAll("-", "_")}`, i + 1]),
  ),
};

it("lib/pool/layout.js and lib/pool/reasons.js match the addon's layout export, constant for constant", (t) => {
  if (native.binding === null) {
    t.skip(`the addon did not load: ${native.error}`);
    return;
  }
  assert.deepEqual({ ...native.binding.layout }, expected);
});

it("the SDK's documented numbers hold", () => {
  // SDK-CONTRACT 1.3: 32,800 bytes for capacity 1024.
  assert.equal(4 * (layout.HEADER_WORDS + layout.SLOT_WORDS * 1024), 32800);
  assert.equal(layout.MAX_TID, 2 ** 29 - 1);
  assert.deepEqual(layout.WASI_THREAD_POOL_SLOT, { PENDING: 0, IDLE: 1, CLAIMED: 2, ASSIGNED: 3, RUNNING: 4, RETIRED: 5 });
  assert.ok(Object.isFrozen(layout.WASI_THREAD_POOL_SLOT));
});
