// Scenario 2: empty-thread throughput. `workers` serving workers; the
// spawner (main thread) spawns a wave of `workers` threads that run nothing,
// joins the wave (waits for the completion counter with Atomics.wait), and
// starts the next wave at once. Threads per second over `threads` threads,
// after a warm-up.

import { emit, hrnow, join, newBoard, params, sleepSync, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, workers = 1, threads = 20000, warmup = 1000 } = params();

const pool = createPool(impl, { capacity: workers });
api.openWasiThreadPoolSlots(pool, workers);
const slots = [];
for (let s = 0; s < workers; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
await startServers(pool, slots, { kind: "empty", board });
sleepSync(30);

const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true });
let target = 0;
let declined = 0;
function run(count) {
  for (let done = 0; done < count; ) {
    const wave = Math.min(workers, count - done);
    for (let k = 0; k < wave; k++) {
      if (spawn(k).tid > 0) target++;
      else declined++;
    }
    join(board, target);
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
emit({
  metrics: {
    threadsPerSec: { value: (threads / wallNs) * 1e9 },
    usPerThread: { value: wallNs / 1000 / threads },
    cpuUsPerThread: { value: (cpu.user + cpu.system) / threads },
  },
  info: { declined, waited: report.waited, spawned: report.spawned },
});
process.exit(0);
