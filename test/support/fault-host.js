// Helpers for the fault tests: a thread host (createWasiThreadSpawn, the
// public entry) over test/fixtures/fault-guest.wat with its fault imports,
// the guest's memory words, and a hook on node:worker_threads' Worker so a
// test can reach the pool workers the host starts (to terminate one while its
// guest thread runs) or make their creation fail.

import { createRequire, syncBuiltinESMExports } from "node:module";
import { createWasiThreadSpawn } from "../../lib/host/host.js";
import { createWasiThreadWorkerRuntime } from "../../lib/worker/runtime.js";
import { compileFixture, sharedMemory } from "../fixtures/build.js";
import { ownerFaultImports } from "./fault-imports.js";

export const FAULT_IMPORTS_URL = new URL("./fault-imports.js", import.meta.url).href;

// Word indexes of fault-guest.wat's memory.
export const F = Object.freeze({
  DONE: 0,
  SUM: 1,
  PENDING: 2,
  DECLINED: 3,
  RUNNING: 4,
  RELEASE: 5,
  SPAWNED: 6,
  CHILD_ARG: 7,
  SPAWNING: 8,
});

export const FK = Object.freeze({ PLAIN: 0, SPIN: 1, WAIT: 2, TRAP: 3, ABORT: 4, DIE: 5, SPAWNER: 6, SPAWN_DIE: 7 });

export const farg = (kind, n = 0) => (kind << 16) | n;

let modulePromise = null;
export function faultModule() {
  modulePromise ??= compileFixture("fault-guest");
  return modulePromise;
}

export async function startFaultGuest({
  implementation,
  poolSize,
  spawnWaitMs = 250,
  config = {},
  instanceId = null,
  onGuestError,
  onSpawnDeclined,
  mainInstance = false,
} = {}) {
  const wasmModule = await faultModule();
  const memory = sharedMemory();
  const host = await createWasiThreadSpawn({
    wasmModule,
    memory,
    poolSize,
    spawnWaitMs,
    implementation,
    instanceId,
    onGuestError,
    onSpawnDeclined,
    extraImports: [{ moduleUrl: FAULT_IMPORTS_URL, config }],
  });
  const words = new Int32Array(memory.buffer);
  let main = null;
  if (mainInstance) {
    const runtime = createWasiThreadWorkerRuntime({
      wasmModule,
      memory,
      threadSpawn: host.threadSpawn,
      extraImports: [ownerFaultImports],
    });
    main = runtime.instantiate().exports;
  }
  return { host, memory, words, main };
}

export function release(words) {
  Atomics.store(words, F.RELEASE, 1);
  Atomics.notify(words, F.RELEASE);
}

// Replaces node:worker_threads' Worker (for this thread's ES module imports
// too, through syncBuiltinESMExports) with a subclass that records every
// Worker this thread creates, and throws while `failing` is set. Only the
// owning thread's Workers are seen: workers started inside pool workers use
// their own thread's binding.
export function hookWorkers() {
  const workerThreads = createRequire(import.meta.url)("node:worker_threads");
  const Original = workerThreads.Worker;
  // created[i] is the i-th Worker; exited[i] resolves with its exit code
  // (listened to from the start: a worker may die before a test looks).
  const hook = { created: [], exited: [], failing: null, attempts: 0 };
  class HookedWorker extends Original {
    constructor(...args) {
      hook.attempts++;
      if (hook.failing) throw hook.failing;
      super(...args);
      hook.created.push(this);
      hook.exited.push(new Promise((resolve) => this.once("exit", resolve)));
    }
  }
  workerThreads.Worker = HookedWorker;
  syncBuiltinESMExports();
  hook.restore = () => {
    workerThreads.Worker = Original;
    syncBuiltinESMExports();
  };
  return hook;
}

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(predicate, { timeoutMs = 15000, what = "condition" } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}
