// The pool worker of package-smoke.js: serves one slot of the pool it was
// given and records each thread it runs in the shared `seen` array
// ([0] done, [1] tid, [2] startArg), until the slot is retired.

import { threadId, workerData } from "node:worker_threads";
import { serveWasiThreadPoolSlot } from "wasi-thread-pool/pool";

const { pool, slot, seen } = workerData;
serveWasiThreadPoolSlot(pool, slot, {
  osThreadId: threadId,
  runThread(tid, startArg) {
    seen[1] = tid;
    seen[2] = startArg;
    Atomics.store(seen, 0, 1);
    Atomics.notify(seen, 0);
  },
});
