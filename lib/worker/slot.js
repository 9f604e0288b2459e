// What both Node pool workers do with their slot: the SDK host's
// (lib/worker/node.js) and the runner's (lib/program/pool-worker.js). A worker
// starts its runtime or retires the slot, then serves the slot until it is
// retired, and reports a failed start or a trap on stderr. Node-only: stderr
// is written through write-sync.js.

import { threadId } from "node:worker_threads";
import { createRunThread } from "./thread-runner.js";
import { writeAllSync } from "./write-sync.js";

function writeLine(text) {
  try {
    writeAllSync(2, Buffer.from(text));
  } catch {
    // stderr gone: nothing better to do.
  }
}

function describe(error) {
  return error?.stack ?? String(error);
}

// start() makes the worker's {runtime, runner} (or a promise of them). If it
// fails, the thread the slot already holds is reported as not instantiated,
// the slot is retired and the error is thrown.
export async function startOrRetire(poolOps, slot, start) {
  try {
    return await start();
  } catch (error) {
    // The slot already holds the thread this worker was started for.
    writeLine(`[wasi-thread] guest thread ${poolOps.lastTid(slot)} failed to instantiate: ${describe(error)}\n`);
    poolOps.retire(slot);
    throw error;
  }
}

// Serves the slot with the runner until the slot is retired, then closes the
// runtime (best effort). Returns the trap that ended the serve loop (the pool
// retired the slot), or null; a throw of the serve loop itself goes through.
export function serveSlot(poolOps, slot, { runtime, runner }) {
  let fault = null;
  const runThread = createRunThread(runner, (tid, error) => {
    writeLine(`[wasi-thread] guest thread ${tid} trapped: ${describe(error)}\n`);
    fault = error;
  });
  try {
    poolOps.serve(slot, runThread, threadId);
  } finally {
    try {
      runtime.close();
    } catch {
      // best effort
    }
  }
  return fault;
}
