// lib/host/ledger.js: the spawn ledger (SDK-CONTRACT 2.4).

import test from "node:test";
import assert from "node:assert/strict";

import { createSpawnLedger } from "../lib/host/ledger.js";
import { createWasiThreadPool, createWasiThreadPoolSpawn, openWasiThreadPoolSlots } from "../lib/pool.browser.js";

const EMPTY_REPORT = {
  poolSize: null,
  armed: 0,
  failedToArm: 0,
  declinedByReason: {},
  lastDeclineReason: null,
  spawned: 0,
  waited: 0,
  declined: 0,
};

test("a fresh ledger: poolSize as given (default null), everything else zero", () => {
  assert.deepEqual(createSpawnLedger().report(), EMPTY_REPORT);
  assert.deepEqual(createSpawnLedger({ poolSize: 4 }).report(), { ...EMPTY_REPORT, poolSize: 4 });
  const { ledger } = createSpawnLedger({ poolSize: 2 });
  assert.deepEqual(ledger, {
    poolSize: 2,
    armed: 0,
    failedToArm: 0,
    declinedByReason: {},
    lastDeclineReason: null,
  });
});

test("decline: returns -1, counts by reason, records the last reason, tells onSpawnDeclined", () => {
  const calls = [];
  const { decline, report } = createSpawnLedger({
    poolSize: 3,
    onSpawnDeclined: (info) => calls.push(info),
  });
  assert.equal(decline("threads-unavailable"), -1);
  assert.equal(decline("threads-unavailable"), -1);
  assert.equal(decline("terminated"), -1);
  assert.deepEqual(calls, [
    { reason: "threads-unavailable", poolSize: 3, declined: 1 },
    { reason: "threads-unavailable", poolSize: 3, declined: 2 },
    { reason: "terminated", poolSize: 3, declined: 3 },
  ]);
  assert.deepEqual(report(), {
    ...EMPTY_REPORT,
    poolSize: 3,
    declinedByReason: { "threads-unavailable": 2, terminated: 1 },
    lastDeclineReason: "terminated",
    declined: 3,
  });
});

test("decline: a throwing onSpawnDeclined is swallowed; a non-function one is ignored", () => {
  const { decline, report } = createSpawnLedger({
    onSpawnDeclined: () => {
      throw new Error("caller bug");
    },
  });
  assert.equal(decline("pool-empty"), -1);
  assert.equal(report().declined, 1);
  assert.equal(createSpawnLedger({ onSpawnDeclined: "nope" }).decline("pool-empty"), -1);
});

test("without a pool, pool-exhausted is the ledger's to count", () => {
  const { decline, report } = createSpawnLedger({ getPool: () => null });
  decline("pool-exhausted");
  assert.deepEqual(report().declinedByReason, { "pool-exhausted": 1 });
  assert.equal(report().declined, 1);
});

test("with a pool, pool-exhausted comes from the pool's counter, other reasons from the ledger", () => {
  const pool = createWasiThreadPool({ capacity: 1, spawnWaitMs: 0 });
  openWasiThreadPoolSlots(pool, 1); // one PENDING slot: live, never claimable
  const spawn = createWasiThreadPoolSpawn(pool, { owner: true });
  const calls = [];
  const { decline, report } = createSpawnLedger({
    poolSize: 1,
    getPool: () => pool,
    onSpawnDeclined: (info) => calls.push(info),
  });
  // Two pool declines, from "other threads" (not through the ledger)...
  assert.equal(spawn(0).reason, "pool-exhausted");
  assert.equal(spawn(0).reason, "pool-exhausted");
  // ...and one from the owner, which the ledger must not count again.
  decline(spawn(0).reason);
  decline("dispatch-failed");
  assert.deepEqual(report(), {
    ...EMPTY_REPORT,
    poolSize: 1,
    declinedByReason: { "pool-exhausted": 3, "dispatch-failed": 1 },
    lastDeclineReason: "dispatch-failed",
    declined: 4,
  });
  assert.deepEqual(
    calls.map((c) => c.declined),
    [3, 4],
  );
});

test("report: spawned and waited from the pool; a zero pool counter leaves the ledger's entry", () => {
  const counts = { spawned: 7, waited: 2, declined: 0, slots: 1, active: 0, idle: 1, workers: 0 };
  const { ledger, report } = createSpawnLedger({
    getPool: () => ({ fake: true }),
    readReport: () => counts,
  });
  ledger.declinedByReason["pool-exhausted"] = 5; // not reachable in practice; kept when the pool says 0
  ledger.armed = 2;
  ledger.failedToArm = 1;
  assert.deepEqual(report(), {
    ...EMPTY_REPORT,
    armed: 2,
    failedToArm: 1,
    declinedByReason: { "pool-exhausted": 5 },
    spawned: 7,
    waited: 2,
    declined: 5,
  });
  counts.declined = 9;
  assert.equal(report().declinedByReason["pool-exhausted"], 9);
  assert.equal(report().declined, 9);
  // The internal counts are not part of the report.
  assert.equal("counts" in report(), false);
});

test("report returns copies: changing one does not change the ledger", () => {
  const { decline, report } = createSpawnLedger();
  decline("terminated");
  const first = report();
  first.declinedByReason.terminated = 99;
  assert.equal(report().declinedByReason.terminated, 1);
});

test("readReport is injectable (the Node host reads a native pool through lib/pool.js)", () => {
  const seen = [];
  const pool = { id: 1 };
  const { report } = createSpawnLedger({
    getPool: () => pool,
    readReport: (p) => {
      seen.push(p);
      return { spawned: 1, waited: 0, declined: 0 };
    },
  });
  assert.equal(report().spawned, 1);
  assert.deepEqual(seen, [pool]);
});
