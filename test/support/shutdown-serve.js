// Worker for test/support/shutdown-child.js: serve one slot, forever idle.
import { threadId, workerData } from "node:worker_threads";
import { serveWasiThreadPoolSlot } from "../../lib/pool.js";

const { pool, slot, ready } = workerData;
Atomics.add(ready, 0, 1);
Atomics.notify(ready, 0);
serveWasiThreadPoolSlot(pool, slot, { osThreadId: threadId, runThread: () => {} });
