// Child process for test/shutdown.test.js.
//
//   node shutdown-child.js <implementation> <mode> <workers>
//
// implementation: native | js | bare (no pool: the workers block in
// Atomics.wait, for Node's own teardown of as many workers).
// Starts <workers> unref'd workers, each parked in serveWasiThreadPoolSlot on
// its own slot, waits until all are serving, then:
//   terminate  terminates one worker and prints how long terminate() took
//   backstop   the same through Node's own terminate, bypassing the hook the
//              package installs on Worker.prototype.terminate (native only:
//              the wait then ends at its slice end, the backstop)
//   natural    prints the time and lets the main module end
//   exit       prints the time and calls process.exit(0)
// Times are Date.now() values so that the parent can compare them with its
// own clock: `parked <ms>` / `terminated <ms>`.

// First: it captures Node's own terminate before the first native pool hooks it.
import { terminateWithoutHook } from "./unhooked-terminate.js";
import { Worker } from "node:worker_threads";
import { createWasiThreadPool } from "../../lib/pool.js";

const [implementation, mode, countText] = process.argv.slice(2);
const count = Number(countText);
// "bare": no pool; the workers block in Atomics.wait (Node's own teardown).
const bare = implementation === "bare";
const pool = bare ? null : createWasiThreadPool({ capacity: count, implementation });
const ready = new Int32Array(new SharedArrayBuffer(4));
const serveUrl = new URL(bare ? "./shutdown-bare.js" : "./shutdown-serve.js", import.meta.url);

const workers = [];
for (let slot = 0; slot < count; slot++) {
  const worker = new Worker(serveUrl, { workerData: { pool, slot, ready } });
  worker.unref();
  workers.push(worker);
}
while (Atomics.load(ready, 0) < count) {
  Atomics.wait(ready, 0, Atomics.load(ready, 0), 50);
}
// Give the last workers time to pass from "ready" into the park itself.
await new Promise((resolve) => setTimeout(resolve, 100));

if (mode === "terminate" || mode === "backstop") {
  const started = performance.now();
  await (mode === "backstop" ? terminateWithoutHook(workers[0]) : workers[0].terminate());
  console.log(`terminated ${(performance.now() - started).toFixed(1)}`);
  process.exit(0);
} else {
  console.log(`parked ${Date.now()}`);
  if (mode === "exit") process.exit(0);
}
