// The pool protocol across real threads (worker_threads), per implementation:
// blocking spawns woken by another thread's finish or retire, serve loops
// ended by a retire, and many spawners through a few workers.
//
// Every test retires the slots it served and awaits its workers' exit, so the
// process ends on its own.

import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";

import { api, createPool, IMPLEMENTATIONS } from "./support/impls.js";
import { CLOCK_SLACK_MS, delay, sharedInts, startPoolWorker, until, within } from "./support/pool-threads.js";

const {
  WASI_THREAD_POOL_SLOT: SLOT,
  openWasiThreadPoolSlots: open,
  armWasiThreadPoolSlot: arm,
  retireWasiThreadPoolSlot: retire,
  wasiThreadPoolSlotState: stateOf,
  readWasiThreadPoolReport: report,
  createWasiThreadPoolSpawn: createSpawn,
} = api;

// Generous bounds for a loaded 2-core machine.
const ANSWER_MS = 10000;

function armedPool(impl, size, spawnWaitMs) {
  const pool = createPool(impl, { capacity: size, spawnWaitMs });
  open(pool, size);
  for (let slot = 0; slot < size; slot++) arm(pool, slot);
  return pool;
}

// Workers still alive at the end (after a failed assertion): terminate them.
const started = new Set();
function start(workerData) {
  const handle = startPoolWorker(workerData);
  started.add(handle.worker);
  handle.exited.then(() => started.delete(handle.worker));
  return handle;
}
after(async () => {
  await Promise.all([...started].map((worker) => worker.terminate()));
});

// Retires every slot of the pool, then waits for the serving workers to end.
async function shutDown(pool, servers) {
  const { slots } = report(pool);
  for (let slot = 0; slot < slots; slot++) retire(pool, slot);
  for (const server of servers) {
    await within(server.message("served"), ANSWER_MS, "serve loop end");
    assert.equal(await within(server.exited, ANSWER_MS, "worker exit"), 0);
  }
}

for (const impl of IMPLEMENTATIONS) {
  describe(`pool protocol across threads [${impl}]`, () => {
    it("a spawn blocks until a thread finishes on another thread, and counts waited", async () => {
      const pool = armedPool(impl, 1, 20000);
      const runs = sharedInts(8);
      const args = sharedInts(8);
      const spawn = createSpawn(pool, { owner: true });
      assert.deepEqual(spawn(100), { tid: 1, slot: 0, reason: null });
      const server = start({ role: "serve", pool, slot: 0, runs, args, holdMs: 150 });
      // The only slot is busy until the worker has run tid 1 (>= 150 ms):
      // this thread sleeps on the generation until the worker's finish.
      const begin = performance.now();
      const second = spawn(200);
      const ms = performance.now() - begin;
      assert.deepEqual(second, { tid: 2, slot: 0, reason: null });
      assert.ok(ms >= 100, `blocked ${ms} ms`);
      assert.ok(ms < ANSWER_MS, `blocked ${ms} ms`);
      assert.equal(runs[1], 1);
      assert.equal(args[1], 100);
      await until(() => Atomics.load(runs, 2) === 1, ANSWER_MS, "tid 2 to run");
      assert.equal(args[2], 200);
      const counts = report(pool);
      assert.equal(counts.spawned, 2);
      assert.equal(counts.waited, 1);
      assert.equal(counts.declined, 0);
      assert.equal(counts.workers, 1);
      await shutDown(pool, [server]);
    });

    it("retire ends a serve loop blocked on its slot", async () => {
      const pool = createPool(impl, { capacity: 3 });
      open(pool, 3);
      arm(pool, 0);
      arm(pool, 1);
      // A worker parked on an IDLE slot and one on a PENDING slot.
      const idle = start({ role: "serve", pool, slot: 0, runs: sharedInts(1), args: sharedInts(1) });
      const pending = start({ role: "serve", pool, slot: 2, runs: sharedInts(1), args: sharedInts(1) });
      for (const server of [idle, pending]) {
        const ready = await within(server.message("ready"), ANSWER_MS, "worker start");
        assert.equal(ready.implementation, impl, "the worker follows the pool's implementation");
      }
      await delay(50); // let both park
      assert.equal(report(pool).workers, 2);
      retire(pool, 0);
      assert.deepEqual(await within(idle.message("served"), ANSWER_MS, "serve end"), { type: "served", slot: 0 });
      assert.equal(await within(idle.exited, ANSWER_MS, "exit"), 0);
      retire(pool, 2);
      await within(pending.message("served"), ANSWER_MS, "serve end");
      assert.equal(await within(pending.exited, ANSWER_MS, "exit"), 0);
      assert.equal(stateOf(pool, 1), SLOT.IDLE); // untouched
    });

    it("a spawner waiting on the generation is woken by a retire", async () => {
      const wait = 20000;
      const pool = armedPool(impl, 1, wait);
      createSpawn(pool, { owner: true })(0); // the only slot is busy, never served
      const spawner = start({ role: "spawn", pool, count: 1 });
      await within(spawner.message("ready"), ANSWER_MS, "spawner start");
      await delay(200); // the spawner is most likely asleep on the generation by now
      const retiredAt = performance.timeOrigin + performance.now();
      retire(pool, 0); // nothing can come free any more: it must decline now
      const { results, ms, returnedAt } = await within(spawner.message("spawned"), ANSWER_MS, "spawn result");
      assert.deepEqual(
        results.map((r) => r.reason),
        ["pool-exhausted"],
      );
      // It returned after the retire (a clock comparison, not a guess at how
      // soon the spawner started), and promptly.
      assert.ok(
        returnedAt >= retiredAt - CLOCK_SLACK_MS,
        `it returned ${(retiredAt - returnedAt).toFixed(1)} ms before the retire`,
      );
      assert.ok(ms < wait / 4, `declined ${ms} ms after starting`);
      assert.equal(await within(spawner.exited, ANSWER_MS, "exit"), 0);
      assert.equal(report(pool).declined, 1);
    });

    it("3 spawner threads x 200 spawns through 4 serving workers: each tid runs once", async () => {
      const SPAWNERS = 3;
      const PER_SPAWNER = 200;
      const total = SPAWNERS * PER_SPAWNER;
      const pool = armedPool(impl, 4, 30000);
      const runs = sharedInts(total + 2);
      const args = sharedInts(total + 2);
      const servers = [0, 1, 2, 3].map((slot) => start({ role: "serve", pool, slot, runs, args }));
      const spawners = Array.from({ length: SPAWNERS }, (_, i) =>
        start({ role: "spawn", pool, count: PER_SPAWNER, argBase: 100000 * (i + 1) }),
      );
      const outcomes = await Promise.all(spawners.map((s) => within(s.message("spawned"), ANSWER_MS * 2, "spawner results")));
      const results = outcomes.flatMap((o) => o.results);
      assert.deepEqual(
        results.filter((r) => r.reason !== null),
        [],
        "no declines",
      );
      const tids = results.map((r) => r.tid).sort((a, b) => a - b);
      assert.deepEqual(
        tids,
        Array.from({ length: total }, (_, i) => i + 1),
        "tids 1..600",
      );
      // Wait for the last assigned threads to run, then check each tid ran
      // exactly once, with the start argument its spawner gave it.
      await until(() => report(pool).active === 0, ANSWER_MS, "the pool to drain");
      assert.equal(runs[0], 0);
      assert.equal(runs[total + 1], 0);
      for (const { tid, startArg } of results) {
        assert.equal(runs[tid], 1, `tid ${tid} runs`);
        assert.equal(args[tid], startArg, `tid ${tid} start argument`);
      }
      const counts = report(pool);
      assert.equal(counts.spawned, total);
      assert.equal(counts.declined, 0);
      assert.equal(counts.workers, 4);
      assert.equal(counts.idle, 4);
      for (const spawner of spawners) {
        assert.equal(await within(spawner.exited, ANSWER_MS, "spawner exit"), 0);
      }
      await shutDown(pool, servers);
    });
  });
}
