// A child process for test/host-memory-growth.test.js: the SDK host path as
// the README's "Usage" shows it (compileWasiThreadGuest,
// createWasiThreadSpawn, createWasiThreadWorkerRuntime) with the reactor
// guest .tmp/wasi-programs/reactor_grow.wasm, whose run() starts 4 pthreads
// that malloc and fill growing blocks. Prints `run -> N` (N: wrong bytes,
// 0 when right) and every guest error, then ends.
//
//   WTP_WASM  the reactor's .wasm     WTP_IMPL  "native" or "js"
//   WTP_COMPILE_OPTIONS  JSON options for compileWasiThreadGuest (optional)

import { readFile } from "node:fs/promises";
import { compileWasiThreadGuest, createWasiThreadSpawn, createWasiThreadWorkerRuntime } from "../../lib/index.js";
import { describeWasiThreadsMemory } from "../../lib/index.js";

const bytes = await readFile(process.env.WTP_WASM);
const options = process.env.WTP_COMPILE_OPTIONS ? JSON.parse(process.env.WTP_COMPILE_OPTIONS) : undefined;
const wasmModule = await compileWasiThreadGuest(bytes, options);
const { initial, maximum } = describeWasiThreadsMemory(bytes);
const memory = new WebAssembly.Memory({ initial, maximum, shared: true });
const processState = { args: ["reactor_grow"], env: {} };
const host = await createWasiThreadSpawn({
  wasmModule,
  memory,
  processState,
  poolSize: 4,
  implementation: process.env.WTP_IMPL,
  onGuestError: (error) => console.log(`guest error: ${error?.message ?? error}`),
});
const main = createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn: host.threadSpawn });
const instance = main.instantiate();
instance.exports._initialize();
console.log(`run -> ${instance.exports.run()}`);
await host.terminateAll();
