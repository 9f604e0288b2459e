// A spawning thread of the contention scenario: waits for the go flag, then
// spawns its share of threads as fast as the pool lets it (no join).

import { parentPort, workerData } from "node:worker_threads";
import { api } from "./api.js";
import { B_DECLINED, B_GO, B_SPAWNED, B_SPAWNERS_DONE } from "./child.js";

const { pool, board, spawns, owner, diag } = workerData;
const spawn = api.createWasiThreadPoolSpawn(pool, { owner });

parentPort.postMessage("ready");
while (Atomics.load(board, B_GO) === 0) Atomics.wait(board, B_GO, 0);
let ok = 0;
let declined = 0;
const slow = []; // diag: spawn() calls over 5 ms: [start ms since go, duration ms, ok]
if (diag) {
  const t0 = performance.now();
  for (let i = 0; i < spawns; i++) {
    const a = performance.now();
    const good = spawn(i).tid > 0;
    const d = performance.now() - a;
    if (good) ok++;
    else declined++;
    if (d > 5 || !good) slow.push([Math.round(a - t0), Math.round(d * 10) / 10, good ? 1 : 0]);
  }
} else {
  for (let i = 0; i < spawns; i++) {
    if (spawn(i).tid > 0) ok++;
    else declined++;
  }
}
if (diag) parentPort.postMessage({ slow: slow.slice(0, 40), slowCount: slow.length });
Atomics.add(board, B_SPAWNED, ok);
Atomics.add(board, B_DECLINED, declined);
Atomics.add(board, B_SPAWNERS_DONE, 1);
Atomics.notify(board, B_SPAWNERS_DONE);
