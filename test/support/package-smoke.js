// Smoke check of an installed wasi-thread-pool, run from inside a consumer
// project (test/package.test.js copies it there, next to
// package-smoke-worker.js and, when it can, guest.wasm).
//
// It goes through the package's public entry points only:
//   1. getWasiThreadPoolImplementation(): which pool, and why;
//   2. a pool of the default implementation, one spawn served on a worker
//      thread (serveWasiThreadPoolSlot), the report;
//   3. the host API surface, and createWasiThreadSpawn running a tiny
//      wasi-threads guest (guest.wasm: run(n) spawns n threads and joins).
//
// Prints one JSON line; a failed step is reported in it, not thrown, so the
// test can say which step broke.

import { existsSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import * as root from "wasi-thread-pool";
import * as pool from "wasi-thread-pool/pool";
import * as host from "wasi-thread-pool/host";

const result = { implementation: pool.getWasiThreadPoolImplementation() };

function errorText(error) {
  return String(error?.stack ?? error);
}

// 2. One thread served on a worker. The worker records what it ran in a
// shared Int32Array: [0] done, [1] tid, [2] startArg, [3] spare.
async function poolRoundTrip() {
  const p = pool.createWasiThreadPool({ capacity: 2, spawnWaitMs: 1000 });
  const seen = new Int32Array(new SharedArrayBuffer(16));
  const workers = [];
  const spawn = pool.createWasiThreadPoolSpawn(p, {
    owner: true,
    grow(slot) {
      const worker = new Worker(new URL("./package-smoke-worker.js", import.meta.url), {
        workerData: { pool: p, slot, seen },
      });
      workers.push(worker);
    },
  });
  const spawned = spawn(42);
  // The main thread may block: the worker runs without our event loop.
  const waited = Atomics.wait(seen, 0, 0, 15000);
  const report = pool.readWasiThreadPoolReport(p);
  const exits = workers.map((w) => new Promise((resolve) => w.once("exit", resolve)));
  for (let slot = 0; slot < report.slots; slot++) pool.retireWasiThreadPoolSlot(p, slot);
  await Promise.all(exits);
  return {
    implementation: pool.wasiThreadPoolImplementationOf(p),
    spawned,
    waited,
    ran: { tid: seen[1], startArg: seen[2] },
    report,
    stateAfter: pool.wasiThreadPoolSlotState(p, 0),
  };
}

// 3. The host.
async function hostRun() {
  const surface = {};
  for (const name of [
    "createWasiThreadSpawn",
    "isWasiThreadsModule",
    "resolveBrowserWorkerUrl",
    "setBrowserWasiThreadWorkerBase",
    "getBrowserWasiThreadWorkerBase",
    "WasiThreadWorkerUnreachableError",
  ]) {
    surface[name] = typeof host[name];
  }
  surface.DEFAULT_WASI_THREAD_SPAWN_WAIT_MS = host.DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  surface.rootHasHost = root.createWasiThreadSpawn === host.createWasiThreadSpawn;
  surface.rootHasPool = root.createWasiThreadPool === pool.createWasiThreadPool;

  const out = { surface };
  const guestFile = new URL("./guest.wasm", import.meta.url);
  if (!existsSync(guestFile)) return { ...out, guest: null };

  // Through the Node 20 Liftoff guard (see the example's main.js).
  const wasmModule = await root.compileWasiThreadGuest(readFileSync(guestFile));
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 16, shared: true });
  const threads = 3;
  const threadHost = await host.createWasiThreadSpawn({ wasmModule, memory, poolSize: threads });
  try {
    const instance = new WebAssembly.Instance(wasmModule, {
      env: { memory },
      wasi: { "thread-spawn": threadHost.threadSpawn },
    });
    const total = instance.exports.run(threads);
    const words = new Int32Array(memory.buffer);
    return {
      ...out,
      guest: {
        isWasiThreadsModule: host.isWasiThreadsModule(wasmModule),
        total,
        ranInline: words[255],
        tids: Array.from({ length: threads }, (_, i) => words[(1024 + 16 * i) / 4 + 1]),
        report: threadHost.spawnReport(),
      },
    };
  } finally {
    await threadHost.terminateAll();
  }
}

try {
  result.pool = await poolRoundTrip();
} catch (error) {
  result.pool = { error: errorText(error) };
}
try {
  result.host = await hostRun();
} catch (error) {
  result.host = { error: errorText(error) };
}
console.log(JSON.stringify(result));
