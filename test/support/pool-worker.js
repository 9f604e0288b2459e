// Worker script for test/protocol-threads.test.js: one role per worker.
//
//   serve  serves workerData.slot, recording every run in shared arrays:
//          runs[tid] += 1, args[tid] = startArg (optionally holding each run
//          for holdMs, so that the slot stays busy)
//   spawn  spawns workerData.count threads (non-owner, no grow) with start
//          arguments argBase + i and posts every result back
//
// Both post {type: "ready", implementation} just before they block, and a
// final message when they are done. The pool's implementation is read from
// the pool itself, as every thread of a real host does.

import { parentPort, threadId, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import { api } from "./impls.js";

const { role, pool } = workerData;
// Which implementation this thread sees the pool as (from its H_IMPL word).
const implementation = api.wasiThreadPoolImplementationOf(pool);

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function serve() {
  const { slot, runs, args, holdMs = 0 } = workerData;
  parentPort.postMessage({ type: "ready", implementation });
  api.serveWasiThreadPoolSlot(pool, slot, {
    osThreadId: threadId,
    runThread(tid, startArg) {
      if (holdMs > 0) sleep(holdMs);
      Atomics.store(args, tid, startArg);
      Atomics.add(runs, tid, 1);
      return true;
    },
  });
  parentPort.postMessage({ type: "served", slot });
}

function spawn() {
  const { count, argBase = 0 } = workerData;
  const spawnOne = api.createWasiThreadPoolSpawn(pool);
  const results = [];
  parentPort.postMessage({ type: "ready", implementation });
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const { tid, slot, reason } = spawnOne(argBase + i);
    results.push({ tid, slot, reason, startArg: argBase + i });
  }
  // returnedAt is absolute (timeOrigin + now), so that a test can compare it
  // with a moment of its own thread's: "returned after the retire" without
  // betting on how long this thread took to start spawning.
  parentPort.postMessage({
    type: "spawned",
    results,
    ms: performance.now() - start,
    returnedAt: performance.timeOrigin + performance.now(),
  });
}

({ serve, spawn })[role]();
