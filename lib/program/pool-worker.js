// The pool worker of a program run by runWasiThreadsProgram: serves one pool
// slot, running the program's threads on one kept instance (lib/program/pool.js
// starts it; lib/worker/node.js is the SDK host's). It does what that worker
// does for a program and loads nothing else: its runtime is the program's
// (lib/program/wasi-c.js over the program's one C WASI when the supervisor
// made one, program.wasiId; else lib/program/wasi-node.js), imported here
// rather than named by a runtimeModule; no WASI shim, no extraImports, and no
// pool spawn of its own (a program's threads spawn by lib/program/threads.js's
// rules, through lib/program/runtime.js).
//
// Workers start the one-file build of this entry, dist/pool-worker.cjs
// (`node scripts/bundle-workers.js`; lib/worker/entries.js falls back to this
// module where it is not built; test/worker-bundle.test.js fails when it is
// stale): a worker that loads one CommonJS file starts about as fast as an
// empty one, where the graph of ES modules cost 15-20 ms more per worker
// (the bench's group 11). Hence no top-level await here.
//
// workerData: {wasmModule, memory, processState, pool, slot}, or {spare: true}
// and the same in a message (programOf).

import { once } from "node:events";
import { parentPort, workerData } from "node:worker_threads";
// The addon for native pools, handed to lib/pool/backend.js before the pool is bound.
import "../native/backend.js";
import { bindWasiThreadPool } from "../pool/internal.js";
import { checkSlot } from "../pool/validate.js";
import { serveSlot, startOrRetire } from "../worker/slot.js";
import { createThreadRunner, startThreadRunner } from "../worker/thread-runner.js";
import { createWasiThreadWorkerRuntime as createCWasiRuntime } from "./wasi-c.js";

// The program's runtime for this worker: node:wasi only when there is no C WASI.
async function createRuntime({ wasmModule, memory, processState, slot, spare = false }) {
  const options = { wasmModule, memory, processState, workerIndex: slot, spare };
  if (processState.program.wasiId) return createCWasiRuntime(options);
  const { createWasiThreadWorkerRuntime } = await import("./wasi-node.js");
  return createWasiThreadWorkerRuntime(options);
}

// A grown worker's program is its workerData; the CLI's spare worker
// (lib/program/spare-worker.js) gets it in a message once the program is
// made (runWasiThreadsProgram's in its workerData), with its slot idle already: it makes no probe instance, because no
// thread of the program may have been spawned yet (its first thread's
// instance is made when that thread runs: lib/worker/thread-runner.js).
async function programOf() {
  if (!workerData?.spare) return { ...workerData, spare: false };
  // runWasiThreadsProgram's spare is started with its program.
  if (workerData.pool) return workerData;
  const [data] = await once(parentPort, "message");
  return { ...data, spare: true };
}

async function startRunner(data) {
  if (!data.spare) return startThreadRunner(() => createRuntime(data));
  const runtime = await createRuntime(data);
  return { runtime, runner: createThreadRunner(runtime) };
}

// Serves the slot until it is retired; a trap ends this worker with the
// error (a program's trap has ended the program before it gets here).
async function servePoolSlot() {
  const data = await programOf();
  const { pool, slot } = data;
  const poolOps = bindWasiThreadPool(pool);
  checkSlot(pool.control, slot);
  const started = await startOrRetire(poolOps, slot, () => startRunner(data));
  const fault = serveSlot(poolOps, slot, started);
  if (fault) throw fault;
}

// A rejection is this worker's "error" event (an unhandled rejection), as a
// throw from a module's top level would be.
servePoolSlot();
