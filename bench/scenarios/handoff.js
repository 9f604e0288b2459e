// Scenario 1: handoff latency. One spawner (this process's main thread), one
// serving worker. A sample is the time from just before spawn() to the
// worker's first statement in runThread, both read from the same monotonic
// clock (process.hrtime.bigint(), CLOCK_MONOTONIC in every thread).
//
// phase "hot": the next thread is spawned gapMinUs..gapMaxUs after the
//   previous one finished (measured from its runThread end stamp; the join
//   wake may already take longer, then the spawn follows the join at once).
// phase "cold": idleMs of idle time between threads.
//
// Also reported: the duration of the spawn() call itself, and the gaps that
// really happened.

import { emit, hrnow, join, newBoard, params, sleepSync, spinUntil, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, phase = "hot", samples = 2000, warmup = 200, gapMinUs = 20, gapMaxUs = 50, idleMs = 50 } = params();

const total = warmup + samples;
const pool = createPool(impl, { capacity: 1 });
api.openWasiThreadPoolSlots(pool, 1);
api.armWasiThreadPoolSlot(pool, 0);
const board = newBoard();
const stamps = new BigInt64Array(new SharedArrayBuffer(8 * total));
const ends = new BigInt64Array(new SharedArrayBuffer(8 * total));
await startServers(pool, [0], { kind: "stamp", board, stamps, ends });
sleepSync(30); // let the worker park

const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true });
const starts = new BigInt64Array(total);
const returns = new BigInt64Array(total);
const gaps = new Float64Array(total);
let declined = 0;
for (let i = 0; i < total; i++) {
  if (i > 0) {
    if (phase === "cold") {
      sleepSync(idleMs);
    } else {
      const gapNs = BigInt(Math.round((gapMinUs + Math.random() * (gapMaxUs - gapMinUs)) * 1000));
      spinUntil(ends[i - 1] + gapNs);
    }
  }
  const t0 = hrnow();
  const r = spawn(i);
  const t1 = hrnow();
  if (r.tid < 0) {
    declined++;
    stamps[i] = 0n;
    Atomics.add(board, 0, 1);
  }
  starts[i] = t0;
  returns[i] = t1;
  if (i > 0) gaps[i] = Number(t0 - ends[i - 1]);
  join(board, i + 1);
}
api.retireWasiThreadPoolSlot(pool, 0);

const handoff = [];
const call = [];
const gap = [];
for (let i = warmup; i < total; i++) {
  if (stamps[i] === 0n) continue;
  handoff.push(Number(stamps[i] - starts[i]) / 1000);
  call.push(Number(returns[i] - starts[i]) / 1000);
  gap.push(gaps[i] / 1000);
}
const report = api.readWasiThreadPoolReport(pool);
emit({
  metrics: {
    handoffUs: { samples: handoff },
    spawnCallUs: { samples: call },
    gapUs: { samples: gap },
  },
  info: { declined, waited: report.waited, spawned: report.spawned },
});
process.exit(0);
