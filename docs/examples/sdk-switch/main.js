// Runs the tiny wasi-threads guest (guest.wat, built to guest.wasm by
// `npm run build`) through the SDK-style harness: run(n) spawns n guest
// threads on the pool's workers and joins them.
//
//   node main.js [threads]      prints one JSON line, exits 1 on a wrong result

import { readFileSync } from "node:fs";
import { compileWasiThreadGuest, getWasiThreadPoolImplementation } from "wasi-thread-pool";
import { instantiateThreadedModule, WASI_THREAD_POOL_SLOT, DEFAULT_WASI_THREAD_SPAWN_WAIT_MS } from "./harness.js";

const threads = Number(process.argv[2] ?? 4);
const bytes = readFileSync(new URL("./guest.wasm", import.meta.url));
// Node 20's baseline wasm compiler (Liftoff) can lose a local across a
// memory.atomic.wait in a guest's join loop. compileWasiThreadGuest compiles
// with it off where the engine is affected; the host warns about a module
// compiled before that protection. (The application compiles; the harness,
// like the SDK's, takes the compiled module.)
const wasmModule = await compileWasiThreadGuest(bytes);

const { instance, memory, threadHost, destroy } = await instantiateThreadedModule(wasmModule, {
  wasiThreadPoolSize: threads,
});

const total = instance.exports.run(threads);

// Thread i wrote a 16-byte record at byte 1024 + 16 * i: done, tid, sum, inline.
const words = new Int32Array(memory.buffer);
const records = [];
let expected = 0;
for (let i = 0; i < threads; i++) {
  const base = (1024 + 16 * i) / 4;
  const n = (i + 1) * 1000;
  expected += (n * (n + 1)) / 2;
  records.push({ tid: words[base + 1], sum: words[base + 2], inline: words[base + 3] === 1 });
}
const report = threadHost.spawnReport();
const result = {
  implementation: getWasiThreadPoolImplementation().implementation,
  threads,
  total,
  expected: expected | 0,
  ranInline: words[255],
  tids: records.map((r) => r.tid),
  spawned: threadHost.spawnCount(),
  osThreads: threadHost.distinctOsThreadCount(),
  report,
  constants: { spawnWaitMs: DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, retired: WASI_THREAD_POOL_SLOT.RETIRED },
};
await destroy();

console.log(JSON.stringify(result));
if (total !== result.expected) process.exitCode = 1;
