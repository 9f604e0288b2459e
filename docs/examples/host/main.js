import { readFileSync } from "node:fs";
import {
  compileWasiThreadGuest,
  createWasiThreadSpawn,
  createWasiThreadWorkerRuntime,
  describeWasiThreadsMemory,
} from "wasi-thread-pool";

// guest.wasm exports run(n): it spawns n threads, joins them and returns the sum of their results.
const bytes = readFileSync(new URL("../sdk-switch/guest.wasm", import.meta.url));
const { initial, maximum } = describeWasiThreadsMemory(bytes); // the limits the guest imports
const memory = new WebAssembly.Memory({ initial, maximum, shared: true });
const wasmModule = await compileWasiThreadGuest(bytes); // keeps Node 20's Liftoff hazard away
const processState = { args: ["guest"], env: {} };
const host = await createWasiThreadSpawn({ wasmModule, memory, processState, poolSize: 4 });

// The caller's own instance: the per-thread imports the workers use, with the host's spawn.
const { exports } = createWasiThreadWorkerRuntime({
  wasmModule,
  memory,
  processState,
  threadSpawn: host.threadSpawn,
}).instantiate();
console.log(`run(4) = ${exports.run(4)}`);
const { spawned, declined } = host.spawnReport();
console.log(`spawned ${spawned}, declined ${declined}`);
await host.terminateAll();
