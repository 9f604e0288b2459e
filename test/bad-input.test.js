// Bad input, per implementation.
//
// 1. Bad arguments to every exported function: each throws a TypeError or a
//    RangeError whose message names the argument, and leaves the pool's
//    buffer untouched.
// 2. A corrupted buffer (any thread holding it can write any word): spawn,
//    report, take/finish/release and serve never throw an out-of-range
//    error, never hang, and only give results the contract allows.

import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";

import { api, createPool, IMPLEMENTATIONS } from "./support/impls.js";
import { delay, startPoolWorker, sharedInts, within } from "./support/pool-threads.js";
import {
  FLAG_MESSAGE_DISPATCH,
  H_CAPACITY,
  H_GENERATION,
  H_NEXT_TID,
  H_SLOTS,
  MAX_TID,
  S_FLAGS,
  S_STATE,
  slotBase,
} from "../lib/layout.js";

const {
  WASI_THREAD_POOL_SLOT: SLOT,
  openWasiThreadPoolSlots: open,
  armWasiThreadPoolSlot: arm,
  retireWasiThreadPoolSlot: retire,
  wasiThreadPoolSlotState: stateOf,
  wasiThreadPoolLastTid: lastTid,
  wasiThreadPoolRunningTid: runningTid,
  releaseWasiThreadPoolSlotIfRunning: release,
  takeWasiThreadPoolAssignment: take,
  finishWasiThreadPoolRun: finish,
  serveWasiThreadPoolSlot: serve,
  readWasiThreadPoolReport: report,
  createWasiThreadPoolSpawn: createSpawn,
} = api;

const REASONS = new Set([null, "pool-exhausted", "worker-create-failed", "tid-exhausted", "dispatch-failed"]);
const NO_HANG_MS = 2000; // generous bound for calls that must not block

function armedPool(impl, size, spawnWaitMs = 0) {
  const pool = createPool(impl, { capacity: size, spawnWaitMs });
  open(pool, size);
  for (let slot = 0; slot < size; slot++) arm(pool, slot);
  return pool;
}

// A spawn result the contract allows for a buffer of `maxSlots` slots.
function assertAllowed(result, maxSlots) {
  assert.ok(REASONS.has(result.reason), `reason ${result.reason}`);
  if (result.reason === null) {
    assert.ok(result.tid >= 1 && result.tid <= MAX_TID, `tid ${result.tid}`);
    assert.ok(Number.isInteger(result.slot) && result.slot >= 0 && result.slot < maxSlots,
      `slot ${result.slot}`);
  } else {
    assert.deepEqual({ tid: result.tid, slot: result.slot }, { tid: -1, slot: -1 });
  }
}

function timed(fn) {
  const start = performance.now();
  const result = fn();
  const ms = performance.now() - start;
  assert.ok(ms < NO_HANG_MS, `took ${ms} ms`);
  return result;
}

// ---------------------------------------------------------------------------
// 2. Corrupted buffers.

const workers = new Set();
after(async () => {
  await Promise.all([...workers].map((w) => w.terminate()));
});

for (const impl of IMPLEMENTATIONS) {
  describe(`corrupted header and slot words [${impl}]`, () => {
    for (const slots of [1e9, 0x7fffffff, 3]) {
      it(`H_SLOTS = ${slots} (beyond capacity) is clamped to the buffer`, () => {
        const pool = armedPool(impl, 2);
        pool.control[H_SLOTS] = slots;
        assert.equal(report(pool).slots, 2);
        const grown = [];
        const spawn = createSpawn(pool, { owner: true, grow: (s) => grown.push(s) });
        const results = [0, 1, 2].map(() => timed(() => spawn(0)));
        results.forEach((r) => assertAllowed(r, 2));
        assert.deepEqual(results.map((r) => r.slot), [0, 1, -1]);
        assert.equal(results[2].reason, "pool-exhausted");
        assert.deepEqual(grown, [], "no room: never grows");
        assert.equal(report(pool).active, 2);
      });
    }

    for (const slots of [-1, -5, -0x80000000]) {
      it(`H_SLOTS = ${slots} counts as 0 slots and no room`, () => {
        const pool = armedPool(impl, 2, 60000);
        pool.control[H_SLOTS] = slots;
        assert.equal(report(pool).slots, 0);
        const grown = [];
        const spawn = createSpawn(pool, { owner: true, grow: (s) => grown.push(s) });
        const result = timed(() => spawn(0));
        assertAllowed(result, 2);
        assert.equal(result.reason, "pool-exhausted"); // live 0: no wait
        assert.deepEqual(grown, []);
        assert.equal(timed(() => createSpawn(pool)(0)).reason, "pool-exhausted");
      });
    }

    for (const capacity of [1e9, 0x7fffffff]) {
      it(`H_CAPACITY = ${capacity} is clamped to the buffer: growth stops at its end`, () => {
        const pool = createPool(impl, { capacity: 2, spawnWaitMs: 0 });
        pool.control[H_CAPACITY] = capacity;
        const grown = [];
        const spawn = createSpawn(pool, { owner: true, grow: (s) => grown.push(s) });
        const results = [0, 1, 2, 3].map(() => timed(() => spawn(0)));
        results.forEach((r) => assertAllowed(r, 2));
        assert.deepEqual(results.map((r) => r.slot), [0, 1, -1, -1]);
        assert.deepEqual(grown, [0, 1]);
        assert.equal(pool.control[H_SLOTS], 2);
        pool.control[H_SLOTS] = capacity;
        const counts = report(pool);
        assert.equal(counts.slots, 2);
        assert.equal(counts.active, 2);
      });
    }

    for (const capacity of [-1, -0x80000000, 0]) {
      it(`H_CAPACITY = ${capacity} leaves no slot in service`, () => {
        const pool = armedPool(impl, 2, 60000);
        pool.control[H_CAPACITY] = capacity;
        assert.equal(report(pool).slots, 0);
        const grown = [];
        const result = timed(() =>
          createSpawn(pool, { owner: true, grow: (s) => grown.push(s) })(0));
        assert.equal(result.reason, "pool-exhausted");
        assert.deepEqual(grown, []);
      });
    }

    for (const state of [6, 99, -1, 0x7fffffff, -0x80000000]) {
      it(`state ${state} is busy: not claimable, not retired, not counted`, () => {
        const pool = armedPool(impl, 2, 30);
        Atomics.store(pool.control, slotBase(0) + S_STATE, state);
        Atomics.store(pool.control, slotBase(1) + S_STATE, state);
        const counts = report(pool);
        assert.equal(counts.active, 0);
        assert.equal(counts.idle, 0);
        assert.equal(runningTid(pool, 0), null);
        assert.equal(take(pool, 0), null);
        finish(pool, 0);
        assert.equal(release(pool, 0, 0), false);
        assert.equal(stateOf(pool, 0), state);
        // Live but busy: waits out spawnWaitMs (30 ms), then declines.
        const result = timed(() => createSpawn(pool)(0));
        assert.equal(result.reason, "pool-exhausted");
        assert.equal(stateOf(pool, 0), state);
        retire(pool, 0);
        retire(pool, 1);
        assert.equal(timed(() => createSpawn(pool)(0)).reason, "pool-exhausted");
      });
    }

    it("unknown flag bits are ignored; only bit 0 means message dispatch", () => {
      const pool = armedPool(impl, 2);
      Atomics.store(pool.control, slotBase(0) + S_FLAGS, ~FLAG_MESSAGE_DISPATCH); // every other bit
      Atomics.store(pool.control, slotBase(1) + S_FLAGS, -1); // bit 0 and all others
      const other = createSpawn(pool);
      assert.equal(timed(() => other(0)).slot, 0); // a plain slot for a non-owner
      assert.equal(timed(() => other(0)).reason, "pool-exhausted"); // slot 1 is not its to claim
      const dispatched = [];
      const owner = createSpawn(pool, { owner: true, dispatchMessage: (...a) => dispatched.push(a) });
      const mine = timed(() => owner(9));
      assert.equal(mine.slot, 1);
      assert.deepEqual(dispatched, [[1, mine.tid, 9]]);
    });

    for (const [next, expected] of [
      [MAX_TID, [MAX_TID, "tid-exhausted"]],
      [MAX_TID + 1, ["tid-exhausted", "tid-exhausted"]],
      [0x7fffffff, ["tid-exhausted", "tid-exhausted"]], // wraps to -2^31 next
      [-5, ["tid-exhausted", "tid-exhausted"]],
      [0, ["tid-exhausted", 1]],
    ]) {
      it(`H_NEXT_TID = ${next}: ${expected.join(", ")}`, () => {
        const pool = armedPool(impl, 1);
        pool.control[H_NEXT_TID] = next;
        const spawn = createSpawn(pool);
        for (const want of expected) {
          const result = timed(() => spawn(0));
          assertAllowed(result, 1);
          if (typeof want === "number") {
            assert.equal(result.tid, want);
            take(pool, 0);
            finish(pool, 0);
          } else {
            assert.equal(result.reason, want);
            assert.equal(stateOf(pool, 0), SLOT.IDLE); // the slot is given back
          }
        }
        assert.equal(report(pool).declined, 0);
      });
    }

    it("random corruption: every call returns an allowed result, quickly", () => {
      let seed = 0x2545f491;
      const random = () => {
        seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
        return seed >>> 0;
      };
      const interesting = [0, 1, 2, 3, 4, 5, 6, -1, -5, 7, 1e6, MAX_TID, 0x7fffffff, -0x80000000];
      const pick = () => interesting[random() % interesting.length];
      const SLOTS = 3;
      for (let round = 0; round < 150; round++) {
        const pool = createPool(impl, { capacity: SLOTS, spawnWaitMs: 0 });
        const words = pool.control.length;
        for (let i = 0; i < 6; i++) {
          const index = random() % words;
          if (index === H_GENERATION) continue;
          if (index === 7) continue; // H_IMPL: the implementation, not data
          Atomics.store(pool.control, index, pick());
        }
        const spawn = createSpawn(pool, {
          owner: (round & 1) === 0,
          grow: (round & 2) === 0 ? () => {} : null,
          dispatchMessage: () => {},
        });
        for (let call = 0; call < 4; call++) {
          assertAllowed(timed(() => spawn(call)), SLOTS);
          const counts = report(pool);
          assert.ok(counts.slots >= 0 && counts.slots <= SLOTS);
          assert.ok(counts.active + counts.idle <= counts.slots);
          assert.ok(counts.workers <= counts.slots);
          const slot = random() % SLOTS;
          const tid = runningTid(pool, slot);
          assert.ok(tid === null || Number.isInteger(tid));
          take(pool, slot);
          finish(pool, slot);
          release(pool, slot, lastTid(pool, slot));
        }
      }
    });

    it("serve parks on an unknown state and returns when the slot is retired", async () => {
      const pool = createPool(impl, { capacity: 2 });
      open(pool, 2);
      Atomics.store(pool.control, slotBase(1) + S_STATE, 42);
      const handle = startPoolWorker({ role: "serve", pool, slot: 1, runs: sharedInts(1), args: sharedInts(1) });
      workers.add(handle.worker);
      await within(handle.message("ready"), 10000, "worker start");
      await delay(50);
      assert.equal(stateOf(pool, 1), 42);
      retire(pool, 1);
      await within(handle.message("served"), 10000, "serve end");
      assert.equal(await within(handle.exited, 10000, "exit"), 0);
      workers.delete(handle.worker);
    });
  });
}
