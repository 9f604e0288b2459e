// Test helpers: a thread host (lib/host/node.js) over one of the fixture
// guests, the guest's main instance on this thread, and views of its memory.

import { createNodeWasiThreadHost } from "../../lib/host/node.js";
import { getWasiThreadPoolImplementation } from "../../lib/pool.js";
import { createWasiThreadWorkerRuntime } from "../../lib/worker/runtime.js";
import { compileFixture, sharedMemory } from "../fixtures/build.js";

// Word indexes of test/fixtures/threads.wat's memory layout.
export const W = Object.freeze({
  DONE: 0,
  SUM: 1,
  PENDING: 2,
  DECLINED: 3,
  TIDSUM: 4,
  CHILDREN: 5,
  RELEASE: 6,
  RUNNING: 7,
  MAXRUNNING: 8,
  SPAWNED: 9,
});

// Thread argument kinds of threads.wat.
export const KIND = Object.freeze({
  PLAIN: 0,
  COORDINATOR: 1,
  TRAP: 2,
  EXIT: 3,
  STDOUT: 4,
  HOLD: 5,
  STDERR: 6,
  SLEEP: 8,
  DOOMED: 9,
});

export const arg = (kind, n = 0) => (kind << 16) | n;

// The implementations to run the host suites on: "js" always, "native" when
// the addon loads here (skipped, with the reason, otherwise).
const nativeInfo = getWasiThreadPoolImplementation().native;
export const IMPLEMENTATIONS = ["js", "native"];
export function skipImplementation(implementation) {
  return implementation === "native" && !nativeInfo.available ? `the native addon is not available: ${nativeInfo.error}` : false;
}

const modules = new Map();
async function moduleOf(fixture) {
  if (!modules.has(fixture)) modules.set(fixture, await compileFixture(fixture));
  return modules.get(fixture);
}

// Normalised options as lib/host/host.js hands them over.
export async function startGuest({
  fixture = "threads",
  implementation,
  poolSize,
  spawnWaitMs = 250,
  extraImports = [],
  instanceId = null,
  onGuestError,
  onSpawnDeclined,
  runtimeModule,
  processState,
  mainInstance = true,
} = {}) {
  const wasmModule = await moduleOf(fixture);
  const memory = sharedMemory();
  const host = await createNodeWasiThreadHost({
    wasmModule,
    memory,
    processState,
    extraImports,
    hostcallChannel: null,
    poolSize,
    spawnWaitMs,
    instanceId,
    onGuestError,
    onSpawnDeclined,
    implementation,
    runtimeModule,
  });
  const words = new Int32Array(memory.buffer);
  let main = null;
  if (mainInstance) {
    // The guest's main thread: this thread, with the same runtime the workers
    // use and the host's threadSpawn.
    const runtime = createWasiThreadWorkerRuntime({ wasmModule, memory, threadSpawn: host.threadSpawn });
    main = runtime.instantiate().exports;
  }
  return { host, memory, words, main, wasmModule };
}

// Waits, without blocking this thread's event loop, until predicate() holds.
export async function until(predicate, { timeoutMs = 10000, what = "condition" } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
