// Scenario: a real-toolchain guest (bench/guest/*-waves, see real-guest.js)
// through the host API the SDK uses (createWasiThreadSpawn, lib/host/host.js) on
// this process's main thread, so that the package default (native pool,
// instances kept) and the SDK configuration (JS pool, a fresh instance per
// thread) can be compared on a real guest, as issue 20 measured the Zig one.
// The guest's _start runs on an instance of lib/worker/runtime.js's worker runtime
// over the shared memory; its proc_exit ends the call (WasiExitError).
//
// As real-guest.js: a warm-up program of one wave, a one-wave program, the
// full program, each on a new host; CPU per thread from the last two.
//
// params: impl, freshInstances, guest, lanes, waves, rounds, waits, burners
// (N CPU-burning processes beside the runs, bench/lib/burners.js).

import { emit, hrnow, params } from "../lib/child.js";
import { buildRealGuest } from "../lib/real-guests.js";
import { readFileSync } from "node:fs";

const { impl, freshInstances = false, guest = "pthread", lanes = 8, waves = 2000, rounds = 16, waits, burners = 0 } = params();
const built = buildRealGuest(guest);
if (built.skip) {
  process.stdout.write(`BENCH_SKIP ${guest} guest: ${built.skip}\n`);
  process.exit(0);
}
const { createWasiThreadSpawn } = await import("../../lib/host/host.js");
const { createWasiThreadWorkerRuntime } = await import("../../lib/worker/runtime.js");
const { compileWasiThreadGuest } = await import("../../lib/worker/liftoff.js");
const { describeWasiThreadsMemory } = await import("../../lib/worker/wasm-memory.js");

const bytes = readFileSync(built.path);
const wasmModule = await compileWasiThreadGuest(bytes);
const memoryType = describeWasiThreadsMemory(bytes);

async function runOnce(count) {
  const memory = new WebAssembly.Memory({ initial: memoryType.initial, maximum: memoryType.maximum, shared: true });
  const args = [`${guest}-waves`, String(lanes), String(count), String(rounds), ...(waits ? [waits] : [])];
  let out = "";
  const decoder = new TextDecoder();
  const writeOutput = (fd, data) => {
    if (fd === 1) out += decoder.decode(data);
  };
  const processState = { args, env: {} };
  const host = await createWasiThreadSpawn({ wasmModule, memory, processState, implementation: impl, freshInstances });
  const main = createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn: host.threadSpawn, writeOutput });
  const instance = main.instantiate();
  const cpu0 = process.cpuUsage();
  const t0 = hrnow();
  let exitCode = 0;
  try {
    instance.exports._start();
  } catch (error) {
    if (error?.name !== "WasiExitError") throw error;
    exitCode = error.code;
  }
  const wallMs = Number(hrnow() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  main.close();
  await host.terminateAll();
  const line = /^STAMPS (.*)$/m.exec(out);
  if (exitCode !== 0 || !line) throw new Error(`${guest} guest: exit ${exitCode}, output ${JSON.stringify(out.slice(-200))}`);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, stamps: JSON.parse(line[1]) };
}

const { startBurners } = await import("../lib/burners.js");
const load = burners > 0 ? await startBurners(burners) : null;
await runOnce(1);
const fixed = await runOnce(1);
const full = await runOnce(waves);
const loadAverage = (await import("node:os")).default.loadavg()[0];
load?.stop();
const extraThreads = full.stamps.threads - fixed.stamps.threads;
const s = full.stamps;
emit({
  metrics: {
    wallMs: { value: full.wallMs },
    cpuMs: { value: full.cpuMs },
    cpuUsPerThread: { value: ((full.cpuMs - fixed.cpuMs) * 1000) / extraThreads },
    startUs: { value: s.startUs[0] },
    exitJoinUs: { value: s.exitJoinUs[0] },
    waveUs: { value: s.waveUs[0] },
    waveMeanUs: { value: s.waveUs[3] },
    loadAverage1: { value: loadAverage },
  },
  info: { guest, waits, burners, freshInstances, fixed, stamps: s },
});
process.exit(0);
