// Worker for test/support/shutdown-child.js without a pool: says it is
// ready, then blocks in Atomics.wait for ever (what Node's teardown of a
// worker costs by itself).
import { workerData } from "node:worker_threads";

const { ready } = workerData;
Atomics.add(ready, 0, 1);
Atomics.notify(ready, 0);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
