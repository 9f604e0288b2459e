import { Worker } from "node:worker_threads";
import {
  createWasiThreadPool,
  createWasiThreadPoolSpawn,
  readWasiThreadPoolReport,
  terminateWasiThreadPool,
} from "wasi-thread-pool/pool";

// Two workers at most; a spawn waits up to 5 s for one to come free.
const pool = createWasiThreadPool({ capacity: 2, spawnWaitMs: 5000 });
// Word 0: tasks done; word 1: the sum of their results.
const results = new Int32Array(new SharedArrayBuffer(8));
const workers = [];

// grow(slot) starts the worker that serves a new slot: the spawn calls it
// while the pool is below its capacity and no worker is free.
const spawn = createWasiThreadPoolSpawn(pool, {
  owner: true,
  grow(slot) {
    workers.push(new Worker(new URL("./worker.js", import.meta.url), { workerData: { pool, slot, results } }));
  },
});

const tasks = 8;
for (let n = 1; n <= tasks; n++) {
  const { tid, reason } = spawn(n);
  if (reason !== null) throw new Error(`spawn ${n} declined: ${reason}`);
  console.log(`task ${n} is thread ${tid}`);
}
for (let done = Atomics.load(results, 0); done < tasks; done = Atomics.load(results, 0)) {
  await Atomics.waitAsync(results, 0, done).value;
}
console.log(`sum of squares 1..${tasks}: ${Atomics.load(results, 1)}`);
const { spawned, workers: started } = readWasiThreadPoolReport(pool);
console.log(`${spawned} threads on ${started} workers`);

// Retire every slot: each worker's serve loop returns and the worker ends.
terminateWasiThreadPool(pool);
await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once("exit", resolve))));
