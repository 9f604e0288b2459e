// The spawn soak: `spawners` threads spawn through `servers` serving workers
// over the pool API directly (as test/protocol-threads.test.js does), and
// every tid must run exactly once, with the start argument its spawner gave
// it. Used by test/soak.test.js (quick) and bench/soak.js (full).
//
// Per-tid bookkeeping lives in SharedArrayBuffers: runs[tid] (incremented by
// the worker that ran it), args[tid] (the argument it ran with) and
// expected[tid] (the argument the spawner passed for the tid it got back).
// A watchdog ends the run with an error (and terminates every worker)
// instead of hanging when something is lost.

import { performance } from "node:perf_hooks";
import * as api from "../../lib/pool.js";
import { delay, startMessagingWorker } from "./pool-threads.js";

const WORKER_URL = new URL("./soak-worker.js", import.meta.url);
const STOP = 0; // soak-worker.js's control word

function startWorker(workerData) {
  return startMessagingWorker(WORKER_URL, workerData);
}

function ints(length) {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}

// Options:
//   implementation  "native" | "js"
//   total           spawns in all (split evenly over the spawners)
//   spawners, servers
//   spawnWaitMs     generous: a decline is a failure here
//   budgetMs        optional: the spawners stop after this long (quick runs);
//                   every tid they did get is still checked
//   watchdogMs      the whole run, start to drained; past it: throw
// Resolves {implementation, requested, spawned, declines, reasons, ms,
// spawnsPerSecond, stoppedEarly, lost, duplicated, wrongArg, report}.
export async function runSpawnSoak({
  implementation,
  total,
  spawners = 3,
  servers = 4,
  spawnWaitMs = 60000,
  budgetMs = null,
  watchdogMs = 600000,
} = {}) {
  const pool = api.createWasiThreadPool({ capacity: servers, spawnWaitMs, implementation });
  api.openWasiThreadPoolSlots(pool, servers);
  for (let slot = 0; slot < servers; slot++) api.armWasiThreadPoolSlot(pool, slot);

  const runs = ints(total + 2);
  const args = ints(total + 2);
  const expected = ints(total + 2);
  const control = ints(1);
  const all = [];
  let watchdog = null;
  let budget = null;
  let stage = "starting workers";

  const tripped = new Promise((_, reject) => {
    watchdog = setTimeout(() => {
      const counts = api.readWasiThreadPoolReport(pool);
      reject(
        new Error(
          `spawn soak (${implementation}) watchdog: stuck ${stage} after ${watchdogMs} ms; report ${JSON.stringify(counts)}`,
        ),
      );
    }, watchdogMs);
  });
  tripped.catch(() => {});
  const guarded = (promise) => Promise.race([promise, tripped]);

  try {
    const serving = Array.from({ length: servers }, (_, slot) => startWorker({ role: "serve", pool, slot, runs, args }));
    all.push(...serving);
    await guarded(Promise.all(serving.map((s) => s.message("ready"))));

    const per = Math.ceil(total / spawners);
    const counts = Array.from({ length: spawners }, (_, i) => Math.max(0, Math.min(per, total - i * per)));
    const spawning = counts.map((count, i) =>
      startWorker({ role: "spawn", pool, count, argBase: 1 + i * per, expected, control }),
    );
    all.push(...spawning);
    await guarded(Promise.all(spawning.map((s) => s.message("ready"))));

    stage = "spawning";
    const started = performance.now();
    if (budgetMs !== null) budget = setTimeout(() => Atomics.store(control, STOP, 1), budgetMs);
    const outcomes = await guarded(Promise.all(spawning.map((s) => s.message("spawned"))));
    const spawnMs = performance.now() - started;

    // The last assigned threads still have to run.
    stage = "draining";
    while (api.readWasiThreadPoolReport(pool).active !== 0) await guarded(delay(2));
    const ms = performance.now() - started;

    const spawned = outcomes.reduce((n, o) => n + o.done, 0);
    const declines = outcomes.reduce((n, o) => n + o.declines, 0);
    const reasons = {};
    for (const o of outcomes) for (const [r, n] of Object.entries(o.reasons)) reasons[r] = (reasons[r] ?? 0) + n;

    // Without declines, tids are 1..spawned; each must have run once with
    // its own argument. Any tid beyond must not have run.
    let lost = 0;
    let duplicated = 0;
    let wrongArg = 0;
    for (let tid = 1; tid <= spawned; tid++) {
      const n = runs[tid];
      if (n === 0) lost++;
      else if (n > 1) duplicated++;
      if (n !== 0 && args[tid] !== expected[tid]) wrongArg++;
    }
    for (let tid = spawned + 1; tid < runs.length; tid++) if (runs[tid] !== 0) duplicated++;
    if (runs[0] !== 0) duplicated++;

    const report = api.readWasiThreadPoolReport(pool);

    stage = "shutting down";
    for (let slot = 0; slot < servers; slot++) api.retireWasiThreadPoolSlot(pool, slot);
    await guarded(Promise.all(serving.map((s) => s.message("served"))));
    const codes = await guarded(Promise.all(all.map((w) => w.exited)));

    return {
      implementation,
      requested: total,
      spawners,
      servers,
      spawned,
      declines,
      reasons,
      ms,
      spawnMs,
      spawnsPerSecond: spawned / (ms / 1000),
      stoppedEarly: spawned + declines < total,
      lost,
      duplicated,
      wrongArg,
      report,
      exitCodes: codes,
    };
  } finally {
    clearTimeout(watchdog);
    clearTimeout(budget);
    // After a failure: nothing may outlive the run.
    Atomics.store(control, STOP, 1);
    for (let slot = 0; slot < servers; slot++) api.retireWasiThreadPoolSlot(pool, slot);
    await Promise.all(all.map((w) => w.worker.terminate().catch(() => {})));
  }
}
