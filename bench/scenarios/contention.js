// Scenario 3: contention. `spawners` spawning threads (worker threads, each
// with its own createWasiThreadPoolSpawn closure, non-owner) push `spawns`
// empty threads in total through `servers` serving workers, as fast as the
// pool lets them (no join; a spawn that finds every slot busy sleeps on the
// generation, up to spawnWaitMs). Wall time from the go flag to the last
// thread's completion; declines.
//
// diag: true makes each spawner report its spawn() calls that took over
// 5 ms (when, how long, declined or not): stalls that all spawners see at
// once are the whole pool (or the machine) standing still.

import {
  B_DECLINED,
  B_DONE,
  B_GO,
  B_SPAWNED,
  B_SPAWNERS_DONE,
  emit,
  hrnow,
  newBoard,
  params,
  sleepSync,
  startServers,
  startSpawners,
} from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, spawners = 3, servers = 4, spawns = 100000, spawnWaitMs, diag = false } = params();

const pool = createPool(impl, { capacity: servers, spawnWaitMs });
api.openWasiThreadPoolSlots(pool, servers);
const slots = [];
for (let s = 0; s < servers; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
await startServers(pool, slots, { kind: "empty", board });
const spawnerWorkers = await startSpawners(pool, spawners, { board, spawns, diag });
// diag: each spawner reports its spawn() calls that took over 5 ms.
const diagnostics = diag
  ? Promise.all(spawnerWorkers.map((w) => new Promise((resolve) => w.on("message", (m) => m?.slow && resolve(m)))))
  : null;
sleepSync(30);

const cpu0 = process.cpuUsage();
const t0 = hrnow();
Atomics.store(board, B_GO, 1);
Atomics.notify(board, B_GO);
for (;;) {
  const n = Atomics.load(board, B_SPAWNERS_DONE);
  if (n >= spawners) break;
  Atomics.wait(board, B_SPAWNERS_DONE, n);
}
const ok = Atomics.load(board, B_SPAWNED);
for (;;) {
  const n = Atomics.load(board, B_DONE);
  if (n >= ok) break;
  Atomics.wait(board, B_DONE, n);
}
const wallNs = Number(hrnow() - t0);
const cpu = process.cpuUsage(cpu0);
const report = api.readWasiThreadPoolReport(pool);
for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
emit({
  metrics: {
    wallMs: { value: wallNs / 1e6 },
    threadsPerSec: { value: (ok / wallNs) * 1e9 },
    declined: { value: Atomics.load(board, B_DECLINED) },
    cpuMs: { value: (cpu.user + cpu.system) / 1000 },
  },
  info: {
    spawned: report.spawned,
    waited: report.waited,
    poolDeclined: report.declined,
    slowSpawns: diagnostics ? await diagnostics : undefined,
  },
});
process.exit(0);
