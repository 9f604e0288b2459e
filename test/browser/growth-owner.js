// The owner of one memory growth run (test/browser-memory-growth.test.js), a
// module Worker (it blocks in the guest's waits): compiles the guest with
// compileWasiThreadGuest (reserveMemory as configured), creates the browser
// host over a new shared memory, instantiates the main instance with
// createWasiThreadWorkerRuntime, calls run() and reports.
//
// config: {bytes (numbers), initial, maximum, poolSize, probeTimeoutMs,
//          workerBaseUrl | workerUrl, reserveMemory?, run? (false: run() is
//          not called)}
// answer: {ok, result, size, byteLength, guestErrors, report, error?}

import { compileWasiThreadGuest, createWasiThreadSpawn, createWasiThreadWorkerRuntime } from "/lib/index.browser.js";

async function run(config) {
  const options = config.reserveMemory === undefined ? undefined : { reserveMemory: config.reserveMemory };
  const wasmModule = await compileWasiThreadGuest(new Uint8Array(config.bytes), options);
  const memory = new WebAssembly.Memory({ initial: config.initial, maximum: config.maximum, shared: true });
  const processState = { args: ["growth"], env: {} };
  const guestErrors = [];
  const host = await createWasiThreadSpawn({
    wasmModule,
    memory,
    processState,
    poolSize: config.poolSize,
    probeTimeoutMs: config.probeTimeoutMs,
    enableBrowserThreads: true,
    browserWorkerBaseUrl: config.workerBaseUrl,
    browserWorkerUrl: config.workerUrl,
    onGuestError: (instanceId, tid, error) => guestErrors.push(`thread ${tid}: ${error?.message ?? error}`),
  });
  try {
    const byteLength = memory.buffer.byteLength;
    const main = createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn: host.threadSpawn });
    const instance = main.instantiate();
    const result = config.run === false ? null : instance.exports.run();
    // Let a worker's error report arrive before answering.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { ok: true, result, size: instance.exports.size(), byteLength, guestErrors, report: host.spawnReport() };
  } finally {
    await host.terminateAll();
  }
}

self.onmessage = async (event) => {
  let answer;
  try {
    answer = await run(event.data);
  } catch (error) {
    answer = { ok: false, error: String(error?.stack ?? error) };
  }
  self.postMessage(answer);
};
