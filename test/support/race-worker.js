// Worker script for test/pool-races.test.js and test/interrupt-latency.test.js.
//
//   grow-loop    spawns (non-owner, with a grow that only counts) until a
//                spawn declines "terminated", then posts every reason seen
//   spawn-after  waits until go[0] != 0, then spawns once with grow and
//                posts the result (grow counts in grows[0])
//   serve        posts "ready", then serves workerData.slot until retired
//                or terminated (native waits are what the latency test
//                measures)
//   spawn-block  posts "ready", then spawns on a pool whose every slot is
//                busy: it waits on the generation until terminated

import { parentPort, threadId, workerData } from "node:worker_threads";
import { api } from "./impls.js";

const { role, pool } = workerData;

function growLoop() {
  const { grows } = workerData;
  const spawn = api.createWasiThreadPoolSpawn(pool, { grow: () => Atomics.add(grows, 0, 1) });
  parentPort.postMessage({ type: "ready" });
  const reasons = {};
  let spawned = 0;
  for (;;) {
    const { tid, reason } = spawn(0);
    if (tid > 0) spawned++;
    else reasons[reason] = (reasons[reason] ?? 0) + 1;
    if (reason === "terminated") break;
  }
  // Every later spawn declines too, and grows nothing.
  const growsAtEnd = Atomics.load(grows, 0);
  const after = [];
  for (let i = 0; i < 100; i++) after.push(spawn(0).reason);
  parentPort.postMessage({ type: "done", spawned, reasons, after, grewAfter: Atomics.load(grows, 0) - growsAtEnd });
}

function spawnAfter() {
  const { go, grows } = workerData;
  const spawn = api.createWasiThreadPoolSpawn(pool, { grow: () => Atomics.add(grows, 0, 1) });
  parentPort.postMessage({ type: "ready" });
  while (Atomics.load(go, 0) === 0) Atomics.wait(go, 0, 0, 1000);
  parentPort.postMessage({ type: "spawned", result: spawn(1), grows: Atomics.load(grows, 0) });
}

function serve() {
  parentPort.postMessage({ type: "ready" });
  api.serveWasiThreadPoolSlot(pool, workerData.slot, { osThreadId: threadId, runThread: () => true });
  parentPort.postMessage({ type: "served" });
}

function spawnBlock() {
  const spawn = api.createWasiThreadPoolSpawn(pool);
  parentPort.postMessage({ type: "ready" });
  parentPort.postMessage({ type: "spawned", result: spawn(0) });
}

({ "grow-loop": growLoop, "spawn-after": spawnAfter, serve, "spawn-block": spawnBlock })[role]();
