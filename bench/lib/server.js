// A serving pool worker: serves one slot until it is retired.
//
// runThread kinds:
//   "empty"  counts the thread on the board (the join word) and returns;
//   "stamp"  first writes the clock into stamps[startArg] (entry time), and
//            into ends[startArg] just before counting (end time).

import { parentPort, threadId, workerData } from "node:worker_threads";
import { api } from "./api.js";
import { B_DONE } from "./child.js";

const { pool, slot, kind, board, stamps, ends } = workerData;
const hrnow = process.hrtime.bigint;

let runThread;
if (kind === "stamp") {
  runThread = (tid, arg) => {
    stamps[arg] = hrnow();
    ends[arg] = hrnow();
    Atomics.add(board, B_DONE, 1);
    Atomics.notify(board, B_DONE);
  };
} else {
  runThread = () => {
    Atomics.add(board, B_DONE, 1);
    Atomics.notify(board, B_DONE);
  };
}

parentPort.postMessage("ready");
// Served from a task, not from this module's evaluation: ./api.js awaits at
// its top level, so this module's body runs as that await's continuation,
// and Node 24 and 26 abort (V8's "Check failed: (location_) != nullptr" in
// SourceTextModule::AsyncModuleExecutionFulfilled, SIGTRAP) when a worker
// is terminated there: the JS pool's shutdown rows died at every exit.
setImmediate(() => api.serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId: threadId }));
