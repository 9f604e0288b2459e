// Seeded generation and lock-step application of pool operation sequences,
// for test/property.test.js (and hostile.test.js's reproductions).
//
// A sequence is a plain array of operations; `applyStep` runs one of them on
// one pool through the public API (lib/pool.js) and returns a comparable
// record of what happened: the result, or the error's name and message, plus
// what the embedder callbacks saw.

import {
  H_CAPACITY,
  H_GENERATION,
  H_IMPL,
  H_NEXT_TID,
  H_SLOTS,
  HEADER_WORDS,
  MAX_TID,
  SLOT_WORDS,
  S_FLAGS,
  S_STATE,
  S_THREAD,
  S_TID,
  maxSlotsOf,
} from "../../lib/pool/layout.js";

// mulberry32: small, fast, and the same sequence everywhere.
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n), // 0 .. n-1
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

const HOSTILE_VALUES = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1024, MAX_TID - 1, MAX_TID, MAX_TID + 1, 0x7fffffff, -0x80000000, -8];

// Options:
//   hostile      corrupt header and slot words (never H_IMPL) and send
//                out-of-range slot indices
//   negativeSlots  allow H_SLOTS < 0 (a known divergence, see hostile tests)
//   reentrant    grow() may retire its own slot before returning (a hostile
//                embedder; a known divergence, see hostile tests)
export function generateSequence(rand, { length = 40, hostile = true, negativeSlots = false, reentrant = false } = {}) {
  const capacity = rand.int(5); // 0..4
  const maxSlots = capacity;
  const ops = [];
  const slot = () =>
    hostile && rand.chance(0.05) ? rand.pick([-1, maxSlots, maxSlots + 1, 1.5]) : rand.int(Math.max(1, maxSlots));
  const decisions = () =>
    Array.from({ length: 4 }, () => ({
      fail: rand.chance(0.25),
      retire: reentrant && rand.chance(0.2),
    }));
  for (let i = 0; i < length; i++) {
    const r = rand.next();
    if (r < 0.06) ops.push({ op: "open", count: rand.pick([0, 1, 2, maxSlots, maxSlots + 1]) });
    else if (r < 0.14) ops.push({ op: "arm", slot: slot(), messageDispatch: rand.chance(0.25) });
    else if (r < 0.18) ops.push({ op: "retire", slot: slot() });
    else if (r < 0.24) ops.push({ op: "read", slot: slot() });
    else if (r < 0.29) ops.push({ op: "release", slot: slot(), current: rand.chance(0.6), tid: rand.pick(HOSTILE_VALUES) });
    else if (r < 0.4) ops.push({ op: "take", slot: slot() });
    else if (r < 0.5) ops.push({ op: "finish", slot: slot() });
    else if (r < 0.54) ops.push({ op: "report" });
    else if (r < 0.84)
      ops.push({
        op: "spawn",
        spawner: rand.int(3),
        arg: rand.pick([0, 1, 7, -1, 0x7fffffff, 2 ** 40 + 3, 1.75]),
        grow: decisions(),
        dispatch: decisions(),
      });
    else if (r < 0.88)
      ops.push({
        op: "spawner",
        spawner: rand.int(3),
        owner: rand.chance(0.5),
        grow: rand.chance(0.6),
        dispatchMessage: rand.chance(0.5),
      });
    else if (hostile) {
      const words = HEADER_WORDS + SLOT_WORDS * capacity;
      let word = rand.int(words);
      if (word === H_IMPL) word = H_NEXT_TID;
      let value = rand.pick(HOSTILE_VALUES);
      if (word === H_SLOTS && value < 0 && !negativeSlots) value = rand.int(capacity + 2);
      ops.push({ op: "corrupt", word, value });
    } else {
      ops.push({ op: "report" });
    }
  }
  return { capacity, ops };
}

function outcome(fn) {
  try {
    return { value: fn() };
  } catch (error) {
    return { error: `${error?.name}: ${error?.message}` };
  }
}

// A pool under test: the pool descriptor, its spawners and the log of what
// its callbacks were called with.
export function createSubject(api, implementation, capacity) {
  const pool = api.createWasiThreadPool({ capacity, spawnWaitMs: 0, implementation });
  return { api, pool, spawners: [null, null, null], calls: [], plan: null };
}

function makeSpawner(subject, { owner, grow, dispatchMessage }) {
  const { api, pool } = subject;
  const growFn = grow
    ? (slot) => {
        const d = subject.plan.grow[subject.plan.ngrow++] ?? { fail: false, retire: false };
        subject.calls.push(["grow", slot, api.wasiThreadPoolSlotState(pool, slot)]);
        if (d.retire) api.retireWasiThreadPoolSlot(pool, slot);
        if (d.fail) throw new Error("grow failed (planned)");
      }
    : null;
  const dispatchFn = dispatchMessage
    ? (slot, tid, startArg) => {
        const d = subject.plan.dispatch[subject.plan.ndispatch++] ?? { fail: false };
        subject.calls.push(["dispatch", slot, tid, startArg, api.wasiThreadPoolSlotState(pool, slot)]);
        if (d.fail) throw new Error("dispatch failed (planned)");
      }
    : null;
  return api.createWasiThreadPoolSpawn(pool, { owner, grow: growFn, dispatchMessage: dispatchFn });
}

// Runs one operation; returns a JSON-comparable record.
export function applyStep(subject, step) {
  const { api, pool } = subject;
  const control = pool.control;
  subject.calls = [];
  let result;
  switch (step.op) {
    case "open":
      result = outcome(() => api.openWasiThreadPoolSlots(pool, step.count));
      break;
    case "arm":
      result = outcome(() => api.armWasiThreadPoolSlot(pool, step.slot, { messageDispatch: step.messageDispatch }));
      break;
    case "retire":
      result = outcome(() => api.retireWasiThreadPoolSlot(pool, step.slot));
      break;
    case "read":
      result = outcome(() => [
        api.wasiThreadPoolSlotState(pool, step.slot),
        api.wasiThreadPoolLastTid(pool, step.slot),
        api.wasiThreadPoolRunningTid(pool, step.slot),
      ]);
      break;
    case "release": {
      const inRange = Number.isInteger(step.slot) && step.slot >= 0 && step.slot < maxSlotsOf(control.length);
      const tid = step.current && inRange ? control[HEADER_WORDS + SLOT_WORDS * step.slot + S_TID] : step.tid;
      result = outcome(() => api.releaseWasiThreadPoolSlotIfRunning(pool, step.slot, tid));
      break;
    }
    case "take":
      result = outcome(() => api.takeWasiThreadPoolAssignment(pool, step.slot));
      break;
    case "finish":
      result = outcome(() => api.finishWasiThreadPoolRun(pool, step.slot));
      break;
    case "report":
      result = outcome(() => api.readWasiThreadPoolReport(pool));
      break;
    case "spawner":
      result = outcome(() => {
        subject.spawners[step.spawner] = makeSpawner(subject, step);
      });
      break;
    case "spawn": {
      if (subject.spawners[step.spawner] === null) {
        subject.spawners[step.spawner] = makeSpawner(subject, { owner: false, grow: true, dispatchMessage: false });
      }
      subject.plan = { grow: step.grow, dispatch: step.dispatch, ngrow: 0, ndispatch: 0 };
      result = outcome(() => subject.spawners[step.spawner](step.arg));
      break;
    }
    case "corrupt":
      Atomics.store(control, step.word, step.value);
      result = { value: undefined };
      break;
    default:
      throw new Error(`unknown op ${step.op}`);
  }
  return { result, calls: subject.calls };
}

// The buffer's words, H_IMPL excluded (it names the implementation).
export function wordsOf(subject) {
  const words = Array.from(subject.pool.control);
  words[H_IMPL] = 0;
  return words;
}

export function describeWords(words) {
  const head = words.slice(0, HEADER_WORDS);
  const names = ["gen", "next", "spawned", "waited", "declined", "slots", "cap", "-"];
  const parts = [head.map((v, i) => `${names[i]}=${v}`).join(" ")];
  for (let s = 0; HEADER_WORDS + SLOT_WORDS * s < words.length; s++) {
    const b = HEADER_WORDS + SLOT_WORDS * s;
    parts.push(
      `slot${s}: state=${words[b + S_STATE]} tid=${words[b + S_TID]} arg=${words[b + 2]} flags=${words[b + S_FLAGS]} thread=${words[b + S_THREAD]}`,
    );
  }
  return parts.join("\n  ");
}

export { H_CAPACITY, H_GENERATION, H_SLOTS };
