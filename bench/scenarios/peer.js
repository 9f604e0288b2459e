// Scenario 9: the peer, @emnapi/wasi-threads 2.2.0 (with @tybys/wasm-util's
// WASI), against this package's host on a workload both can run: the reactor
// guest of bench/guest/reactor-wave.wat, whose wave(n, work) spawns n
// threads, runs one lane itself and joins them. One call is one wave; the
// calls are made from the event loop (a setImmediate between two calls),
// because emnapi returns a finished thread's worker to its pool only through
// a message handled there.
//
// params:
//   host     "package" (createWasiThreadSpawn; impl / freshInstances as given)
//            | "emnapi" (WASIThreads, reuseWorker {size: threads}, workers
//            preloaded, waitThreadStart false)
//   mode     "repeat": `calls` calls, each from the event loop (figures:
//            calls/s, CPU per call, workers created)
//            | "one-blocked-call": `waves` waves back to back without
//            returning to the event loop (what a guest that runs its waves
//            inside one call does): figures: workers created, ms per wave
//            | "wave-guest": the thread-wave guest of guest/ (one call, 14,000
//            threads): what happens at its first spawn
//   threads  threads per wave (7)
//   work     mixing rounds per lane

import { Worker } from "node:worker_threads";
import { readFileSync } from "node:fs";
import { emit, hrnow, params } from "../lib/child.js";
import { watToBytes } from "../../test/fixtures/build.js";
import { compileWasiThreadGuest } from "../../lib/worker/liftoff.js";

const {
  host: hostKind = "package",
  impl,
  freshInstances = false,
  mode = "repeat",
  threads = 7,
  work = 2000,
  calls = 2000,
  warmup = 200,
  waves = 20,
  timeoutMs = 60000,
} = params();

const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
const words = new Int32Array(memory.buffer);
let created = 0;
let host = null;

async function emnapiHost(module, instanceMemory) {
  const { WASIThreads } = await import("@emnapi/wasi-threads");
  const { WASI } = await import("@tybys/wasm-util");
  const workerUrl = new URL("../lib/emnapi-worker.js", import.meta.url);
  const wasiThreads = new WASIThreads({
    wasi: new WASI({ version: "preview1" }),
    reuseWorker: { size: threads, strict: false },
    waitThreadStart: false,
    onCreateWorker: () => {
      created++;
      return new Worker(workerUrl);
    },
  });
  return {
    imports: wasiThreads.getImportObject(),
    async setup(instance) {
      wasiThreads.setup(instance, module, instanceMemory);
      await wasiThreads.preloadWorkers();
    },
    close: async () => wasiThreads.terminateAllThreads(),
  };
}

async function packageHost(module, instanceMemory) {
  const { createWasiThreadSpawn } = await import("../../lib/host/host.js");
  host = await createWasiThreadSpawn({
    wasmModule: module,
    memory: instanceMemory,
    implementation: impl,
    freshInstances,
  });
  return {
    imports: { wasi: { "thread-spawn": host.threadSpawn } },
    async setup() {},
    close: () => host.terminateAll(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

if (mode === "wave-guest") {
  // The thread-wave guest (one call, 2000 waves of 7) on emnapi.
  const { GUEST_MEMORY, environImports, readWaveGuest, threadWaveEnv } = await import("../../test/support/wave-guest.js");
  const module = await compileWasiThreadGuest(readWaveGuest({ build: false }));
  const waveMemory = new WebAssembly.Memory(GUEST_MEMORY);
  const h = hostKind === "emnapi" ? await emnapiHost(module, waveMemory) : await packageHost(module, waveMemory);
  const instance = new WebAssembly.Instance(module, {
    env: { memory: waveMemory },
    ...h.imports,
    wasi_snapshot_preview1: environImports(() => waveMemory, threadWaveEnv(8, { waves: 2000, rounds: 16 })),
  });
  await h.setup(instance);
  let failure = null;
  let status = null;
  const t0 = hrnow();
  try {
    status = instance.exports.waves();
  } catch (error) {
    failure = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  }
  const ms = Number(hrnow() - t0) / 1e6;
  await h.close();
  emit({
    metrics: { ranOk: { value: failure === null && status === 0 ? 1 : 0 }, wallMs: { value: ms } },
    info: { failure, status, workersCreated: created },
  });
  process.exit(0);
}

const module = await compileWasiThreadGuest(
  await watToBytes(readFileSync(new URL("../guest/reactor-wave.wat", import.meta.url), "utf8"), "reactor-wave.wat"),
);
const h = hostKind === "emnapi" ? await emnapiHost(module, memory) : await packageHost(module, memory);
const instance = new WebAssembly.Instance(module, { env: { memory }, ...h.imports });
await h.setup(instance);
const { wave } = instance.exports;

let declined = 0;
if (mode === "repeat") {
  for (let i = 0; i < warmup; i++) {
    declined += wave(threads, work);
    await turn();
  }
  const createdBefore = created;
  const cpu0 = process.cpuUsage();
  const t0 = hrnow();
  for (let i = 0; i < calls; i++) {
    declined += wave(threads, work);
    await turn();
  }
  const seconds = Number(hrnow() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  await h.close();
  emit({
    metrics: {
      callsPerSec: { value: calls / seconds },
      cpuUsPerCall: { value: (cpu.user + cpu.system) / calls },
      workersCreated: { value: created },
    },
    info: {
      declined,
      workersCreated: created,
      createdWhileTimed: created - createdBefore,
      workers: host?.distinctOsThreadCount?.() ?? created,
    },
  });
  process.exit(0);
}

// one-blocked-call: `waves` waves without a turn of the event loop.
await turn();
const createdBefore = created;
const t0 = hrnow();
const deadline = t0 + BigInt(timeoutMs) * 1000000n;
let ran = 0;
for (; ran < waves && hrnow() < deadline; ran++) declined += wave(threads, work);
const ms = Number(hrnow() - t0) / 1e6;
const grown = created - createdBefore;
await h.close();
emit({
  metrics: {
    msPerWave: { value: ms / Math.max(1, ran) },
    workersPerThread: {
      value:
        hostKind === "emnapi"
          ? grown / Math.max(1, ran * threads)
          : (host.distinctOsThreadCount() - threads) / Math.max(1, ran * threads),
    },
  },
  info: { waves: ran, declined, workersCreated: created, grownDuringCall: grown, sum: words[1] },
});
process.exit(0);
