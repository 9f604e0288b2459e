// The lifecycle soak, in a process of its own: N cycles of
// createWasiThreadSpawn -> run a small real guest (test/fixtures/threads.wat:
// the main thread spawns and joins two plain threads, then one coordinator
// thread that spawns and joins two children of its own from its worker) ->
// terminateAll. Measures the process's RSS and OS thread count
// (/proc/self/status "Threads:") after a warm-up and at the end.
//
// Run: node --expose-gc soak-lifecycle.js <native|js> <cycles> [warmup]
// Prints one line "RESULT <json>" on stdout. Exit code 0 when every cycle
// computed the right answer (the figures are judged by the caller).

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createWasiThreadSpawn } from "../../lib/host/host.js";
import { createWasiThreadWorkerRuntime } from "../../lib/worker/runtime.js";
import { compileFixture, sharedMemory } from "../fixtures/build.js";
import { KIND, W, arg } from "./guest-host.js";

const implementation = process.argv[2];
const cycles = Number(process.argv[3] ?? 100);
const warmup = Number(process.argv[4] ?? 5);

function osThreads() {
  const match = /^Threads:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"));
  return Number(match[1]);
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Terminated workers' OS threads are joined a little after terminate()
// resolves: wait (up to settleMs) until the count is back to `target`, and
// report how long that took. GC first, twice, so that RSS is not a measure
// of how much garbage happens to be uncollected.
async function settle(target, settleMs = 5000) {
  const started = performance.now();
  let threads = osThreads();
  while (threads > target && performance.now() - started < settleMs) {
    await delay(10);
    threads = osThreads();
  }
  globalThis.gc?.();
  await delay(20);
  globalThis.gc?.();
  return { threads, rss: process.memoryUsage().rss, settledMs: Math.round(performance.now() - started) };
}

const wasmModule = await compileFixture("threads");

async function cycle(i) {
  const memory = sharedMemory();
  const host = await createWasiThreadSpawn({ wasmModule, memory, implementation, spawnWaitMs: 250 });
  const words = new Int32Array(memory.buffer);
  const runtime = createWasiThreadWorkerRuntime({ wasmModule, memory, threadSpawn: host.threadSpawn });
  const main = runtime.instantiate().exports;
  const plain = main.spawn_join(2, arg(KIND.PLAIN, 1));
  const nested = main.spawn_join(1, arg(KIND.COORDINATOR, 2));
  const sum = Atomics.load(words, W.SUM);
  const declined = Atomics.load(words, W.DECLINED);
  const workers = host.distinctOsThreadCount();
  const liveThreads = osThreads();
  await host.terminateAll();
  runtime.close?.();
  // Two plain threads add 1 each, the coordinator's two children 1 each.
  if (plain !== 2 || nested !== 1 || sum !== 4 || declined !== 0) {
    throw new Error(`cycle ${i}: plain ${plain}, nested ${nested}, sum ${sum}, declined ${declined}`);
  }
  return { workers, liveThreads };
}

const before = { threads: osThreads(), rss: process.memoryUsage().rss };
for (let i = 0; i < warmup; i++) await cycle(i);
const start = await settle(before.threads);
const began = performance.now();
let workers = 0;
let peakThreads = 0;
let peakRss = 0;
for (let i = 0; i < cycles; i++) {
  const seen = await cycle(warmup + i);
  workers += seen.workers;
  peakThreads = Math.max(peakThreads, seen.liveThreads);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}
const ms = performance.now() - began;
const end = await settle(start.threads);

process.stdout.write(
  `RESULT ${JSON.stringify({
    implementation,
    cycles,
    warmup,
    ms,
    msPerCycle: ms / cycles,
    workers,
    spawns: cycles * 5,
    threadsAtLaunch: before.threads,
    rssAtLaunch: before.rss,
    start,
    end,
    peakThreads,
    peakRss,
  })}\n`,
);
