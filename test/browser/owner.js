// The owner of one run (a module Worker, so it may block): creates the
// browser host of lib/host/host.js for the guest, instantiates the guest's main
// instance with `wasi.thread-spawn` = host.threadSpawn, calls waves()
// `invokes` times on that one host and instance, and reports.
//
// config: {lanes, mode, waves, rounds, poolSize?, requestedThreads?,
//          spawnWaitMs?, probeTimeoutMs?, invokes, workerUrl?, workerBaseUrl?}
// answer: {ok, crossOriginIsolated, hardwareConcurrency, runs:[{status,
//          output, errorCode, errorMessage, guest, wallMs}], spawnCount,
//          poolWorkers, active, armMs, report, error?}

import { createWasiThreadSpawn } from "/lib/host/host.js";
import { GUEST_MEMORY, environImports, readWaveResult, threadWaveEnv } from "/wave-abi.js";

async function settleActive(host, ms) {
  const deadline = performance.now() + ms;
  let active = host.activeThreadCount();
  while (active !== 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    active = host.activeThreadCount();
  }
  return active;
}

async function run(config) {
  const { lanes, mode = "", waves, rounds, invokes = 2 } = config;
  const base = {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: navigator.hardwareConcurrency,
  };
  const bytes = await (await fetch("/thread-wave.wasm")).arrayBuffer();
  const module = await WebAssembly.compile(bytes);
  const memory = new WebAssembly.Memory(GUEST_MEMORY);
  const env = threadWaveEnv(lanes, { mode, waves, rounds });
  const options = {
    wasmModule: module,
    memory,
    processState: { args: ["thread-wave"], env },
    enableBrowserThreads: true,
    requestedThreads: config.requestedThreads,
  };
  if (config.poolSize !== undefined) options.poolSize = config.poolSize;
  if (config.spawnWaitMs !== undefined) options.spawnWaitMs = config.spawnWaitMs;
  if (config.workerUrl) options.browserWorkerUrl = config.workerUrl;
  if (config.workerBaseUrl) options.browserWorkerBaseUrl = config.workerBaseUrl;
  if (config.probeTimeoutMs !== undefined) options.probeTimeoutMs = config.probeTimeoutMs;

  const armStart = performance.now();
  const host = await createWasiThreadSpawn(options);
  const armMs = performance.now() - armStart;
  try {
    const instance = new WebAssembly.Instance(module, {
      env: { memory },
      wasi: { "thread-spawn": host.threadSpawn },
      wasi_snapshot_preview1: environImports(() => memory, env),
    });
    const runs = [];
    for (let i = 0; i < invokes; i++) {
      const start = performance.now();
      const status = instance.exports.waves();
      const wallMs = performance.now() - start;
      runs.push({ ...readWaveResult(instance.exports, memory, status), wallMs });
    }
    const active = await settleActive(host, 2000);
    return {
      ok: true,
      ...base,
      runs,
      spawnCount: host.spawnCount(),
      poolWorkers: host.distinctOsThreadCount(),
      active,
      armMs,
      report: host.spawnReport(),
    };
  } finally {
    await host.terminateAll();
  }
}

self.onmessage = async (event) => {
  let answer;
  try {
    answer = await run(event.data);
  } catch (error) {
    answer = {
      ok: false,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      error: String(error?.stack ?? error),
    };
  }
  self.postMessage(answer);
};
