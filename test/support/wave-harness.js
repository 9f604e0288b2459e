// The invoke harness of the thread-wave guest on this package's host
// (createWasiThreadSpawn, lib/host/host.js) in Node. Used by the thread-wave tests
// and by the benchmarks (bench/scenarios/waves.js). See guest/README.md.
//
//   const module = await compileWaveGuest();          // once per process
//   const r = await runThreadWave({module, lanes: 8, mode: "nested",
//                                  poolSize: 8, implementation: "native"});
//   // r.runs[0] = {status, output, errorCode, errorMessage, guest, wallMs}
//   // r.report  = host.spawnReport() after the last invoke
//   // r.workers = host.distinctOsThreadCount()
//
// or, to keep one host for several calls:
//
//   const h = await createWaveHarness({module, lanes, mode, poolSize, ...});
//   const run = h.invoke();   // synchronous: the main thread blocks in join
//   h.host.spawnReport(); await h.destroy();
//
// The main instance is this thread's: its waves() blocks in the guest's join
// (memory.atomic.wait32), which Node's main thread and workers allow.

import { createWasiThreadSpawn } from "../../lib/host/host.js";
import { compileWasiThreadGuest } from "../../lib/worker/liftoff.js";
import { GUEST_MEMORY, environImports, readWaveGuest, readWaveResult, threadWaveEnv } from "./wave-guest.js";

export {
  EXPECTED_14K_OUTPUT_HEX,
  EXPECTED_OUTPUT_HEX,
  WAVE_MODES,
  readWaveGuest,
  threadWaveEnv,
  threadWaveSpawns,
} from "./wave-guest.js";

async function optionalImport(url) {
  try {
    return await import(url);
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") return null;
    throw error;
  }
}

// Compiles the guest as a user would (lib/worker/liftoff.js): rewritten
// where the engine shows the Liftoff hazard, with no V8 flag set.
export function compileWaveGuest(bytes = readWaveGuest()) {
  return compileWasiThreadGuest(bytes);
}

// The main instance's imports: lib/worker/runtime.js's per-thread runtime (the same
// WASI as the guest's threads get) when present, else a minimal environ.
async function mainInstance({ module, memory, processState, threadSpawn }) {
  const runtime = await optionalImport(new URL("../../lib/worker/runtime.js", import.meta.url).href);
  if (runtime?.createWasiThreadWorkerRuntime) {
    const rt = runtime.createWasiThreadWorkerRuntime({
      wasmModule: module,
      memory,
      processState,
      threadSpawn,
    });
    return { instance: rt.instantiate(), close: () => rt.close?.() };
  }
  const instance = new WebAssembly.Instance(module, {
    env: { memory },
    wasi: { "thread-spawn": threadSpawn },
    wasi_snapshot_preview1: environImports(() => memory, processState.env),
  });
  return { instance, close: () => {} };
}

export async function createWaveHarness({
  module,
  lanes = 1,
  mode = "",
  waves,
  rounds,
  env = threadWaveEnv(lanes, { mode, waves, rounds }),
  poolSize,
  spawnWaitMs,
  implementation,
  hostOptions = {},
} = {}) {
  if (!(module instanceof WebAssembly.Module)) module = await compileWaveGuest();
  const memory = new WebAssembly.Memory(GUEST_MEMORY);
  const processState = { args: ["thread-wave"], env };
  const options = { wasmModule: module, memory, processState, ...hostOptions };
  if (poolSize !== undefined) options.poolSize = poolSize;
  if (spawnWaitMs !== undefined) options.spawnWaitMs = spawnWaitMs;
  if (implementation !== undefined) options.implementation = implementation;
  const host = await createWasiThreadSpawn(options);
  let main;
  try {
    main = await mainInstance({ module, memory, processState, threadSpawn: host.threadSpawn });
  } catch (error) {
    await host.terminateAll();
    throw error;
  }
  const { exports } = main.instance;
  return {
    host,
    memory,
    instance: main.instance,
    // One call of waves(): synchronous; the wall time covers the whole call.
    invoke() {
      const start = performance.now();
      const status = exports.waves();
      const wallMs = performance.now() - start;
      return { ...readWaveResult(exports, memory, status), wallMs };
    },
    async destroy() {
      try {
        main.close();
      } finally {
        await host.terminateAll();
      }
    },
  };
}

// After a join the joined thread's worker may not have marked its slot IDLE
// yet (microseconds; longer when it is descheduled on a busy machine). Waits
// up to `ms` for no active thread; returns the last count seen.
export async function settleActive(host, ms = 2000) {
  const deadline = performance.now() + ms;
  let active = host.activeThreadCount();
  while (active !== 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    active = host.activeThreadCount();
  }
  return active;
}

// Creates a harness, runs `invokes` calls on it, reports, terminates.
// `settle: false` reports the counts right after the last call.
export async function runThreadWave({ invokes = 1, settle = true, ...options } = {}) {
  const harness = await createWaveHarness(options);
  try {
    const runs = [];
    for (let i = 0; i < invokes; i++) runs.push(harness.invoke());
    const { host } = harness;
    if (settle) await settleActive(host);
    return {
      runs,
      report: host.spawnReport(),
      spawnCount: host.spawnCount(),
      active: host.activeThreadCount(),
      workers: host.distinctOsThreadCount(),
    };
  } finally {
    await harness.destroy();
  }
}
