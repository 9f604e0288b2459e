// Scenario 7, the measured process: `workers` serving workers parked on idle
// slots; then the main module ends. It writes its monotonic clock (ns, the
// same CLOCK_MONOTONIC the parent reads) to stdout as its very last act; the
// parent stamps the child's exit.
//
// variant "unref": the workers are unref'd and left parked (an idle pool
//   that nobody shuts down: the process must still end);
// variant "retire": the main module retires every slot as its last act
//   (what a host's terminateAll does), workers stay ref'd.
// variant "bare": no pool; unref'd workers block in Atomics.wait on a word of
//   their own: what Node's own teardown of that many workers costs. With
//   fillKiB, each worker first allocates that much (kept alive), as a
//   worker that loaded a module graph has: once a worker's young generation
//   is past V8's minor-GC task trigger (80% of its capacity) it parks with
//   that GC task pending, and Node 20 and 24 run it while tearing the
//   worker down (Node 26 does not): one scavenge per worker at exit.

import { writeSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { once } from "node:events";
import { newBoard, params, sleep, startServers } from "../lib/child.js";

const { impl, workers = 64, variant = "unref", settleMs = 300, fillKiB = 0 } = params();

if (variant === "bare") {
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    const kept = [];
    for (let i = 0; i < workerData.fillKiB; i++) kept.push(new Array(126).fill(i)); // about 1 KiB each
    globalThis.kept = kept;
    parentPort.postMessage("ready");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  `;
  const list = [];
  for (let i = 0; i < workers; i++) {
    const w = new Worker(source, { eval: true, workerData: { fillKiB } });
    w.unref();
    list.push(w);
  }
  await Promise.all(list.map((w) => once(w, "message")));
  await sleep(settleMs);
  writeSync(1, `BENCH_END ${process.hrtime.bigint()}\n`);
} else {
  await pooled();
}

async function pooled() {
  const { api, createPool } = await import("../lib/api.js");

  const pool = createPool(impl, { capacity: workers });
  api.openWasiThreadPoolSlots(pool, workers);
  const slots = [];
  for (let s = 0; s < workers; s++) {
    api.armWasiThreadPoolSlot(pool, s);
    slots.push(s);
  }
  const board = newBoard();
  await startServers(pool, slots, { kind: "empty", board, unref: variant === "unref" });
  await sleep(settleMs);
  if (variant === "retire") {
    for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
  }
  writeSync(1, `BENCH_END ${process.hrtime.bigint()}\n`);
}
