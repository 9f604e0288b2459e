// The guest's main thread of a browser program: a module Worker (a window's
// main thread may not block), started by run.js. It makes the program's
// thread pool (the browser host of lib/host/host.js, whose module workers
// load thread-runtime.js as their runtime), instantiates the main instance
// over the same runtime and calls _start. Its end (_start's return,
// proc_exit, a trap) goes to the page through the channel, never through a
// message: the page may be waiting for it while this thread blocks. Its one
// message, {t:"failed", name, message}, says the program could not start
// (its pool, or the main instance: a LinkError names the import).
//
// Message in: {module, memory, channel, args, env, poolSize, probeTimeoutMs,
//              runtimeUrl, workerUrl?, workerBaseUrl?}

import { createWasiThreadSpawn } from "../../host/host.js";
import { createWasiThreadWorkerRuntime } from "./thread-runtime.js";

async function start(config) {
  const processState = { args: config.args, env: config.env, browserProgram: config.channel };
  const host = await createWasiThreadSpawn({
    wasmModule: config.module,
    memory: config.memory,
    processState,
    poolSize: config.poolSize,
    probeTimeoutMs: config.probeTimeoutMs,
    enableBrowserThreads: true,
    runtimeModule: config.runtimeUrl,
    browserWorkerUrl: config.workerUrl,
    browserWorkerBaseUrl: config.workerBaseUrl,
  });
  const runtime = createWasiThreadWorkerRuntime({
    wasmModule: config.module,
    memory: config.memory,
    processState,
    threadSpawn: host.threadSpawn,
  });
  return { runtime, instance: runtime.instantiate() };
}

self.onmessage = async (event) => {
  let started;
  try {
    started = await start(event.data);
  } catch (error) {
    self.postMessage({ t: "failed", name: error?.name ?? "Error", message: String(error?.message ?? error) });
    return;
  }
  const { runtime, instance } = started;
  try {
    instance.exports._start();
    runtime.client.finish();
  } catch (error) {
    if (error?.name !== "WasiExitError") runtime.client.trap("the main thread", error);
  }
};
