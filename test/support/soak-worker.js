// Worker script of the spawn soak (test/support/soak-spawn.js): one role per
// worker, over the pool API directly (no guest, no host).
//
//   serve  serves workerData.slot: every run does runs[tid] += 1 and
//          args[tid] = startArg, in shared memory, and nothing else.
//   spawn  spawns up to workerData.count threads (non-owner, no grow) with
//          start arguments argBase + i, writes expected[tid] = startArg for
//          every tid it got, and stops early when control[STOP] != 0 (the
//          time budget of a quick run). Posts {type: "spawned", done,
//          declines, reasons, ms} when done.
//
// Both post {type: "ready"} before they start; serve posts {type: "served"}
// when its slot is retired.

import { parentPort, threadId, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import * as api from "../../lib/pool.js";

export const STOP = 0;

const { role, pool } = workerData;

function serve() {
  const { slot, runs, args } = workerData;
  parentPort.postMessage({ type: "ready", implementation: api.wasiThreadPoolImplementationOf(pool) });
  api.serveWasiThreadPoolSlot(pool, slot, {
    osThreadId: threadId,
    runThread(tid, startArg) {
      Atomics.store(args, tid, startArg);
      Atomics.add(runs, tid, 1);
      return true;
    },
  });
  parentPort.postMessage({ type: "served", slot });
}

function spawn() {
  const { count, argBase, expected, control } = workerData;
  const spawnOne = api.createWasiThreadPoolSpawn(pool);
  parentPort.postMessage({ type: "ready" });
  let done = 0;
  let declines = 0;
  const reasons = {};
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    // Checking the stop word every 256 spawns keeps it off the hot path.
    if ((i & 255) === 0 && Atomics.load(control, STOP) !== 0) break;
    const startArg = argBase + i;
    const { tid, reason } = spawnOne(startArg);
    if (tid > 0) {
      if (tid >= expected.length) throw new Error(`tid ${tid} beyond the expected table`);
      Atomics.store(expected, tid, startArg);
      done++;
    } else {
      declines++;
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
  }
  parentPort.postMessage({ type: "spawned", done, declines, reasons, ms: performance.now() - start });
}

({ serve, spawn })[role]();
