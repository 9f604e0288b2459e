// Scenario 2: empty-thread throughput. `workers` serving workers; the
// spawner (main thread) spawns a wave of `workers` threads that run nothing,
// joins the wave (waits for the completion counter with Atomics.wait), and
// starts the next wave at once. Threads per second over `threads` threads,
// after a warm-up.
//
// breakdown: true stamps every thread (process.hrtime.bigint() in both
// threads, ~0.1 us each) and reports where one thread's time goes: the
// spawn() call, spawn -> runThread entry, the join's wake-up (runThread's
// last stamp -> Atomics.wait returned in the spawner) and the spawner's own
// turnaround (join returned -> next spawn). Only meaningful with 1 worker.
//
// wave > workers: the spawner spawns `wave` threads between two joins, so
// every spawn past the first `workers` finds the pool at its size and waits
// inside the pool (spawnWaitMs) for a slot: the path of the SDK's poolSize,
// the runner's limit and any wave wider than the pool. wave = threads joins
// only at the end (back-to-back spawns, each waiting for the previous
// thread to finish on 1 worker).

import { emit, hrnow, join, newBoard, params, sleepSync, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, workers = 1, threads = 20000, warmup = 1000, breakdown = false, wave: waveSize = workers, spawnWaitMs } = params();

const pool = createPool(impl, { capacity: workers, spawnWaitMs });
api.openWasiThreadPoolSlots(pool, workers);
const slots = [];
for (let s = 0; s < workers; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
const total = warmup + threads;
const stamps = breakdown ? new BigInt64Array(new SharedArrayBuffer(8 * total)) : null;
const ends = breakdown ? new BigInt64Array(new SharedArrayBuffer(8 * total)) : null;
const starts = breakdown ? new BigInt64Array(total) : null;
const returns = breakdown ? new BigInt64Array(total) : null;
const joined = breakdown ? new BigInt64Array(total) : null;
await startServers(pool, slots, { kind: breakdown ? "stamp" : "empty", board, stamps, ends });
sleepSync(30);

const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true });
let target = 0;
let declined = 0;
let index = 0;
function run(count) {
  for (let done = 0; done < count;) {
    const wave = Math.min(waveSize, count - done);
    if (breakdown) {
      for (let k = 0; k < wave; k++) {
        const i = index++;
        starts[i] = hrnow();
        if (spawn(i).tid > 0) target++;
        else declined++;
        returns[i] = hrnow();
      }
      join(board, target);
      joined[index - 1] = hrnow();
    } else {
      for (let k = 0; k < wave; k++) {
        if (spawn(k).tid > 0) target++;
        else declined++;
      }
      join(board, target);
    }
    done += wave;
  }
}
run(warmup);
const cpu0 = process.cpuUsage();
const t0 = hrnow();
run(threads);
const wallNs = Number(hrnow() - t0);
const cpu = process.cpuUsage(cpu0);
const report = api.readWasiThreadPoolReport(pool);
for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
const metrics = {
  threadsPerSec: { value: (threads / wallNs) * 1e9 },
  usPerThread: { value: wallNs / 1000 / threads },
  cpuUsPerThread: { value: (cpu.user + cpu.system) / threads },
};
if (breakdown && declined === 0) {
  const us = (a, b) => Number(b - a) / 1000;
  const call = [],
    handoff = [],
    joinWake = [],
    turnaround = [];
  for (let i = warmup; i < total; i++) {
    call.push(us(starts[i], returns[i]));
    handoff.push(us(starts[i], stamps[i]));
    if (joined[i]) joinWake.push(us(ends[i], joined[i]));
    if (i + 1 < total && joined[i]) turnaround.push(us(joined[i], starts[i + 1]));
  }
  Object.assign(metrics, {
    spawnCallUs: { samples: call },
    handoffUs: { samples: handoff },
    joinWakeUs: { samples: joinWake },
    turnaroundUs: { samples: turnaround },
  });
}
emit({
  metrics,
  info: { declined, waited: report.waited, spawned: report.spawned, wave: waveSize },
});
process.exit(0);
