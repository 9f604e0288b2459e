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
  H_IMPL,
  H_NEXT_TID,
  H_SLOTS,
  MAX_TID,
  S_FLAGS,
  S_STATE,
  slotBase,
} from "../lib/pool/layout.js";

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
    assert.ok(Number.isInteger(result.slot) && result.slot >= 0 && result.slot < maxSlots, `slot ${result.slot}`);
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
// 1. Bad arguments.

const SPAWN_WAIT_MESSAGE = "spawnWaitMs must be a finite, non-negative number of milliseconds.";

// A pool of every kind a caller could pass by mistake, with the error it
// must cause: [label, value, errorClass, message pattern].
const BAD_POOLS = [
  ["undefined", undefined, TypeError, /^pool must be/],
  ["null", null, TypeError, /^pool must be/],
  ["a number", 5, TypeError, /^pool must be/],
  ["a string", "pool", TypeError, /^pool must be/],
  ["a function", () => {}, TypeError, /^pool must be/],
  ["{} (no control)", {}, TypeError, /^pool\.control must be an Int32Array/],
  ["an array as control", { control: [0, 1, 0, 0, 0, 0, 0, 0] }, TypeError, /^pool\.control must be an Int32Array/],
  [
    "a Uint32Array as control",
    { control: new Uint32Array(new SharedArrayBuffer(64)) },
    TypeError,
    /^pool\.control must be an Int32Array/,
  ],
  [
    "an Int32Array over an ArrayBuffer",
    { control: new Int32Array(16), spawnWaitMs: 0 },
    TypeError,
    /^pool\.control must be backed by a SharedArrayBuffer/,
  ],
  [
    "a 7-word control",
    { control: new Int32Array(new SharedArrayBuffer(28)), spawnWaitMs: 0 },
    RangeError,
    /^pool\.control must hold at least 8 words/,
  ],
  [
    "an empty control",
    { control: new Int32Array(new SharedArrayBuffer(0)), spawnWaitMs: 0 },
    RangeError,
    /^pool\.control must hold at least 8 words/,
  ],
];

// Slot values for a buffer of 2 slots: [label, value, errorClass].
const BAD_SLOTS = [
  ["-1", -1, RangeError],
  ["1.5", 1.5, RangeError],
  ["NaN", NaN, RangeError],
  ["2 (the buffer holds 2)", 2, RangeError],
  ["7 (under a corrupted H_CAPACITY of 1000)", 7, RangeError],
  ["2^31", 2 ** 31, RangeError],
  ["2^32", 2 ** 32, RangeError],
  ["2^53", 2 ** 53, RangeError],
  ["1e300", 1e300, RangeError],
  ["Infinity", Infinity, RangeError],
  ["-Infinity", -Infinity, RangeError],
  ["-0.5", -0.5, RangeError],
  ['"0"', "0", TypeError],
  ["undefined", undefined, TypeError],
  ["null", null, TypeError],
  ["a BigInt", 0n, TypeError],
  ["an object", { valueOf: () => 0 }, TypeError],
];

const BAD_INT32 = [
  ['"1"', "1", TypeError],
  ["undefined", undefined, TypeError],
  ["1.5", 1.5, RangeError],
  ["NaN", NaN, RangeError],
  ["2^31", 2 ** 31, RangeError],
  ["-2^31-1", -(2 ** 31) - 1, RangeError],
  ["1e300", 1e300, RangeError],
  ["Infinity", Infinity, RangeError],
];

const NOT_FUNCTIONS = [
  ["5", 5],
  ["a string", "run"],
  ["an object", {}],
  ["true", true],
];

// Every function that takes a pool, called with otherwise good arguments.
const POOL_CALLS = {
  openWasiThreadPoolSlots: (p) => open(p, 1),
  armWasiThreadPoolSlot: (p) => arm(p, 0),
  retireWasiThreadPoolSlot: (p) => retire(p, 0),
  wasiThreadPoolSlotState: (p) => stateOf(p, 0),
  wasiThreadPoolLastTid: (p) => lastTid(p, 0),
  wasiThreadPoolRunningTid: (p) => runningTid(p, 0),
  releaseWasiThreadPoolSlotIfRunning: (p) => release(p, 0, 1),
  takeWasiThreadPoolAssignment: (p) => take(p, 0),
  finishWasiThreadPoolRun: (p) => finish(p, 0),
  serveWasiThreadPoolSlot: (p) => serve(p, 0, { runThread: () => true }),
  readWasiThreadPoolReport: (p) => report(p),
  createWasiThreadPoolSpawn: (p) => createSpawn(p),
  wasiThreadPoolImplementationOf: (p) => api.wasiThreadPoolImplementationOf(p),
};

// Every function that takes a slot, called with otherwise good arguments.
const SLOT_CALLS = {
  armWasiThreadPoolSlot: (p, s) => arm(p, s),
  retireWasiThreadPoolSlot: (p, s) => retire(p, s),
  wasiThreadPoolSlotState: (p, s) => stateOf(p, s),
  wasiThreadPoolLastTid: (p, s) => lastTid(p, s),
  wasiThreadPoolRunningTid: (p, s) => runningTid(p, s),
  releaseWasiThreadPoolSlotIfRunning: (p, s) => release(p, s, 1),
  takeWasiThreadPoolAssignment: (p, s) => take(p, s),
  finishWasiThreadPoolRun: (p, s) => finish(p, s),
  serveWasiThreadPoolSlot: (p, s) => serve(p, s, { runThread: () => true }),
};

// The other arguments: [function, label, call, errorClass, pattern].
function otherArgumentCases() {
  const cases = [];
  for (const [label, value, cls] of BAD_INT32) {
    cases.push(["openWasiThreadPoolSlots", `count ${label}`, (p) => open(p, value), cls, /^count must be/]);
    cases.push(["releaseWasiThreadPoolSlotIfRunning", `tid ${label}`, (p) => release(p, 0, value), cls, /^tid must be/]);
    if (value !== undefined) {
      cases.push([
        "serveWasiThreadPoolSlot",
        `osThreadId ${label}`,
        (p) => serve(p, 0, { runThread: () => true, osThreadId: value }),
        cls,
        /^osThreadId must be/,
      ]);
    }
  }
  for (const [label, value] of [...NOT_FUNCTIONS, ["undefined", undefined], ["null", null]]) {
    cases.push([
      "serveWasiThreadPoolSlot",
      `runThread ${label}`,
      (p) => serve(p, 0, { runThread: value }),
      TypeError,
      /^runThread must be a function/,
    ]);
  }
  for (const [label, value] of NOT_FUNCTIONS) {
    cases.push([
      "createWasiThreadPoolSpawn",
      `grow ${label}`,
      (p) => createSpawn(p, { owner: true, grow: value }),
      TypeError,
      /^grow must be a function/,
    ]);
    cases.push([
      "createWasiThreadPoolSpawn",
      `dispatchMessage ${label}`,
      (p) => createSpawn(p, { owner: true, dispatchMessage: value }),
      TypeError,
      /^dispatchMessage must be a function/,
    ]);
  }
  for (const [label, value] of [
    ["5", 5],
    ["a string", "x"],
    ["true", true],
  ]) {
    cases.push(["armWasiThreadPoolSlot", `options ${label}`, (p) => arm(p, 0, value), TypeError, /^options must be an object/]);
    cases.push([
      "serveWasiThreadPoolSlot",
      `options ${label}`,
      (p) => serve(p, 0, value),
      TypeError,
      /^options must be an object/,
    ]);
    cases.push([
      "createWasiThreadPoolSpawn",
      `options ${label}`,
      (p) => createSpawn(p, value),
      TypeError,
      /^options must be an object/,
    ]);
  }
  for (const [label, value] of [
    ["NaN", NaN],
    ["-1", -1],
    ["Infinity", Infinity],
    ['"10"', "10"],
  ]) {
    cases.push([
      "createWasiThreadPoolSpawn",
      `a descriptor with spawnWaitMs ${label}`,
      (p) => createSpawn({ control: p.control, spawnWaitMs: value }),
      RangeError,
      new RegExp(`^pool\\.${SPAWN_WAIT_MESSAGE.replace(/\./g, "\\.")}$`),
    ]);
  }
  return cases;
}

// Asserts that `call` throws `cls` with a message matching `pattern`.
function assertThrowsNamed(call, cls, pattern) {
  assert.throws(call, (error) => {
    assert.ok(error instanceof cls, `${error?.name}: ${error?.message} is not a ${cls.name}`);
    assert.match(error.message, pattern);
    return true;
  });
}

for (const impl of IMPLEMENTATIONS) {
  describe(`bad arguments [${impl}]`, () => {
    // A pool with some history, so that "untouched" means something: slot 0
    // holds an assigned thread, slot 1 is idle.
    function livePool() {
      const pool = armedPool(impl, 2, 0);
      createSpawn(pool)(5);
      return pool;
    }
    // For serve: every slot retired, so that an argument that slipped
    // through validation returns at once instead of blocking the test.
    function retiredPool() {
      const pool = livePool();
      retire(pool, 0);
      retire(pool, 1);
      return pool;
    }
    const poolFor = (name) => (name === "serveWasiThreadPoolSlot" ? retiredPool() : livePool());

    // Runs `call` on a fresh pool and checks the error and that the buffer
    // is exactly as it was.
    function check(name, call, cls, pattern) {
      const pool = poolFor(name);
      pool.control[H_CAPACITY] = 1000; // corrupted: the buffer holds 2 slots
      const before = Array.from(pool.control);
      assertThrowsNamed(() => call(pool), cls, pattern);
      assert.deepEqual(Array.from(pool.control), before, "the pool is untouched");
    }

    for (const [name, call] of Object.entries(POOL_CALLS)) {
      it(`${name}: a bad pool throws, naming pool or pool.control`, () => {
        for (const [label, value, cls, pattern] of BAD_POOLS) {
          try {
            assertThrowsNamed(() => call(value), cls, pattern);
          } catch (error) {
            error.message = `pool ${label}: ${error.message}`;
            throw error;
          }
        }
      });
    }

    for (const [name, call] of Object.entries(SLOT_CALLS)) {
      it(`${name}: a bad slot throws, naming slot; the pool is untouched`, () => {
        for (const [label, value, cls] of BAD_SLOTS) {
          const pattern = cls === TypeError ? /^slot must be a number/ : /^slot must be an integer in \[0, 2\)/;
          try {
            check(name, (p) => call(p, value), cls, pattern);
          } catch (error) {
            error.message = `slot ${label}: ${error.message}`;
            throw error;
          }
        }
      });
    }

    const byFunction = new Map();
    for (const [name, label, call, cls, pattern] of otherArgumentCases()) {
      if (!byFunction.has(name)) byFunction.set(name, []);
      byFunction.get(name).push([label, call, cls, pattern]);
    }
    for (const [name, cases] of byFunction) {
      it(`${name}: bad ${[...new Set(cases.map(([l]) => l.split(" ")[0]))].join(", ")} throw, naming the argument`, () => {
        for (const [label, call, cls, pattern] of cases) {
          try {
            check(name, call, cls, pattern);
          } catch (error) {
            error.message = `${label}: ${error.message}`;
            throw error;
          }
        }
      });
    }

    it("createWasiThreadPool: a bad capacity throws the SDK's RangeError", () => {
      for (const capacity of [-1, 1.5, NaN, "4", undefined, null, Infinity, 4n, 2 ** 53]) {
        assertThrowsNamed(() => createPool(impl, { capacity }), RangeError, /capacity must be/);
      }
      assertThrowsNamed(() => createPool(impl, { capacity: -1 }), RangeError, /^pool capacity must be a non-negative integer\.$/);
    });

    it("createWasiThreadPool: a bad spawnWaitMs throws the SDK's RangeError", () => {
      for (const spawnWaitMs of [NaN, -1, Infinity, "10"]) {
        assert.throws(
          () => createPool(impl, { capacity: 1, spawnWaitMs }),
          (error) => error instanceof RangeError && error.message === SPAWN_WAIT_MESSAGE,
        );
      }
    });

    it("a descriptor without spawnWaitMs spawns with the default wait, as createWasiThreadPool does", () => {
      const pool = createPool(impl, { capacity: 1 });
      const spawn = createSpawn({ control: pool.control }, { owner: true, grow: () => {} });
      const { tid, reason } = spawn(0);
      assert.equal(reason, null);
      assert.equal(tid, 1);
    });

    it("createWasiThreadPool: non-object options throw a TypeError naming options; null ones lack a capacity", () => {
      for (const options of [5, "x", true]) {
        assertThrowsNamed(() => api.createWasiThreadPool(options), TypeError, /^options must be an object/);
      }
      assertThrowsNamed(() => api.createWasiThreadPool(null), RangeError, /^pool capacity must be/);
    });

    it("createWasiThreadPool: an unknown implementation throws, naming it", () => {
      for (const implementation of ["wasm", "JS", 1]) {
        assertThrowsNamed(() => api.createWasiThreadPool({ capacity: 1, implementation }), RangeError, /implementation must be/);
      }
    });
  });
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
        assert.deepEqual(
          results.map((r) => r.slot),
          [0, 1, -1],
        );
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
        assert.deepEqual(
          results.map((r) => r.slot),
          [0, 1, -1, -1],
        );
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
        const result = timed(() => createSpawn(pool, { owner: true, grow: (s) => grown.push(s) })(0));
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
      [0x7fffffff, ["tid-exhausted", "tid-exhausted"]], // sticky: never wraps
      [-5, ["tid-exhausted", "tid-exhausted"]],
      [0, ["tid-exhausted", "tid-exhausted"]], // sticky: never walks up to 1
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

    it("an overwritten H_IMPL word: every call refuses (an Error naming the word) and touches nothing", () => {
      for (const tag of [1, -1, 0x7774706f]) {
        for (const [name, call] of Object.entries(POOL_CALLS)) {
          // Slot 0 retired, so that a serve that got through would return.
          const pool = armedPool(impl, 2);
          retire(pool, 0);
          pool.control[H_IMPL] = tag;
          const before = Array.from(pool.control);
          assert.throws(
            () => call(pool),
            (error) => {
              assert.match(error.message, /word 7 holds .*names no wait mechanism/, name);
              return true;
            },
            `${name} with H_IMPL ${tag}`,
          );
          assert.deepEqual(Array.from(pool.control), before);
        }
      }
    });

    it("random corruption: every call returns an allowed result, quickly", () => {
      let seed = 0x2545f491;
      const random = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
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
          if (index === H_IMPL) continue; // H_IMPL: the implementation, not data
          Atomics.store(pool.control, index, pick());
        }
        const spawn = createSpawn(pool, {
          owner: (round & 1) === 0,
          grow: (round & 2) === 0 ? () => {} : null,
          dispatchMessage: () => {},
        });
        for (let call = 0; call < 4; call++) {
          assertAllowed(
            timed(() => spawn(call)),
            SLOTS,
          );
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
