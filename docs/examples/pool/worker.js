import { threadId, workerData } from "node:worker_threads";
import { serveWasiThreadPoolSlot } from "wasi-thread-pool/pool";

const { pool, slot, results } = workerData;

// Runs each thread the pool assigns to this slot, until the slot is retired.
serveWasiThreadPoolSlot(pool, slot, {
  // Any nonzero id: readWasiThreadPoolReport counts the slots that recorded one as workers.
  osThreadId: threadId,
  runThread(tid, n) {
    Atomics.add(results, 1, n * n);
    Atomics.add(results, 0, 1);
    Atomics.notify(results, 0);
  },
});
