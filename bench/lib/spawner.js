// A spawning thread of the contention scenario: waits for the go flag, then
// spawns its share of threads as fast as the pool lets it (no join).

import { parentPort, workerData } from "node:worker_threads";
import { api } from "./api.js";
import { B_DECLINED, B_GO, B_SPAWNED, B_SPAWNERS_DONE } from "./child.js";

const { pool, board, spawns, owner } = workerData;
const spawn = api.createWasiThreadPoolSpawn(pool, { owner });

parentPort.postMessage("ready");
while (Atomics.load(board, B_GO) === 0) Atomics.wait(board, B_GO, 0);
let ok = 0;
let declined = 0;
for (let i = 0; i < spawns; i++) {
  if (spawn(i).tid > 0) ok++;
  else declined++;
}
Atomics.add(board, B_SPAWNED, ok);
Atomics.add(board, B_DECLINED, declined);
Atomics.add(board, B_SPAWNERS_DONE, 1);
Atomics.notify(board, B_SPAWNERS_DONE);
