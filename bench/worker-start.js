// What a runner thread's worker costs to start, piece by piece
// (docs/runner.md, "What a thread costs"):
//
//   node bench/worker-start.js [--workers N]
//
// For each kind, N workers are started one after another, each staying alive
// (blocked in Atomics.wait) until all are measured: the time from new Worker
// to the worker's first message (p50), and the process's RSS growth per
// worker. Kinds:
//   bare      an empty script that posts one message
//   pool      + lib/pool.js (the pool API and the addon)
//   wasi      + node:wasi
//   shared    lib/pool.js + lib/worker/shared.js (what lib/worker/node.js
//             imports besides the pool)
//   runtime   + lib/program/wasi-node.js (the runner's per-thread runtime, all of
//             its imports)
// Wall times on whatever machine this runs on; its load is not controlled.

import { Worker } from "node:worker_threads";

const argv = process.argv.slice(2);
const count = Number(argv[argv.indexOf("--workers") + 1]) || 8;

const IMPORTS = {
  bare: [],
  pool: ["../lib/pool.js"],
  wasi: ["../lib/pool.js", "node:wasi"],
  shared: ["../lib/pool.js", "../lib/worker/shared.js"],
  runtime: ["../lib/pool.js", "../lib/program/wasi-node.js"],
};

function source(imports) {
  const base = new URL(".", import.meta.url).href;
  const lines = imports.map((m) => `await import(${JSON.stringify(m.startsWith("node:") ? m : new URL(m, base).href)});`);
  return `
    const { parentPort, workerData } = await import("node:worker_threads");
    process.emitWarning = () => {};
    ${lines.join("\n")}
    parentPort.postMessage(0);
    Atomics.wait(workerData.hold, 0, 0);
  `;
}

async function measure(kind) {
  const hold = new Int32Array(new SharedArrayBuffer(4));
  const workers = [];
  const times = [];
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const worker = new Worker(source(IMPORTS[kind]), { eval: true, workerData: { hold } });
    await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    times.push(performance.now() - started);
    workers.push(worker);
  }
  const rss = process.memoryUsage().rss;
  Atomics.store(hold, 0, 1);
  Atomics.notify(hold, 0);
  await Promise.all(workers.map((w) => w.terminate()));
  times.sort((a, b) => a - b);
  return { kind, p50: times[times.length >> 1], min: times[0], rssPerWorker: (rss - rssBefore) / count / 2 ** 20 };
}

for (const kind of Object.keys(IMPORTS)) {
  const r = await measure(kind);
  console.log(
    `${kind.padEnd(8)} first message p50 ${r.p50.toFixed(1)} ms (min ${r.min.toFixed(1)}), RSS ${r.rssPerWorker.toFixed(1)} MiB per worker`,
  );
}
