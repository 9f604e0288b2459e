// Where a pool worker's start goes, piece by piece (docs/runner.md, "What a
// thread costs"):
//
//   node bench/worker-start.js [--workers N] [--entry lib/program/pool-worker.js]
//
// Workers are started one after another, each kept alive (blocked in
// Atomics.wait) until all are measured; medians over N (default 12).
//
//   1. Whole workers, new Worker -> first message: an empty ES module
//      (eval, as the bench's bare workers), an empty CommonJS file, the
//      entry's imports as ES modules (what the worker loaded before the
//      one-file build), and the same imports as one CommonJS file built
//      with esbuild as scripts/bundle-workers.js builds (the worker's own
//      code, which serves the pool, is left out: it needs a program).
//   2. The ES module graph, file by file: a worker imports the entry's
//      dependencies one at a time, leaves first, each import timed (each
//      builtin and file pays the ES module loader once).
//   3. The addon in a worker, step by step (what lib/native/binding.js does).
// What remains of a thread's start (the runtime, the C WASI's imports, the
// probe instance, the handoff) is in the bench's runner-starts row: a
// thread's spawn -> first instruction against a bare worker's start.
// Wall times on whatever machine this runs on; quote the load average.

import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const count = Number(option("--workers", 12));
const entry = resolve(root, option("--entry", "lib/program/pool-worker.js"));

// The entry's static imports, leaves first (node: builtins included),
// without the entry itself.
function importOrder(file) {
  const order = [];
  const seen = new Set();
  const walk = (spec) => {
    if (seen.has(spec)) return;
    seen.add(spec);
    if (spec.startsWith("/")) {
      const text = readFileSync(spec, "utf8");
      for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gms)) {
        const dep = m[1] ?? m[2];
        walk(dep.startsWith(".") ? resolve(dirname(spec), dep) : dep);
      }
    }
    order.push(spec);
  };
  walk(file);
  return order.filter((spec) => spec !== file).map((spec) => (spec.startsWith("/") ? pathToFileURL(spec).href : spec));
}

const HOLD = "Atomics.wait(workerData.hold, 0, 0);";
const ESM_HEAD = 'const { parentPort, workerData } = await import("node:worker_threads");';
const CJS_HEAD = 'const { parentPort, workerData } = require("node:worker_threads");';

// Starts `count` workers of one kind, one after another; each posts what
// its source computes (`report`, an expression) and is held.
async function startAll(makeWorker) {
  const hold = new Int32Array(new SharedArrayBuffer(4));
  const results = [];
  const workers = [];
  for (let i = 0; i < count; i++) {
    const asked = performance.now();
    const worker = makeWorker({ hold });
    const message = await new Promise((resolvePromise, reject) => {
      worker.once("message", resolvePromise);
      worker.once("error", reject);
    });
    results.push({ firstMessageMs: performance.now() - asked, message });
    workers.push(worker);
  }
  Atomics.store(hold, 0, 1);
  Atomics.notify(hold, 0);
  await Promise.all(workers.map((w) => w.terminate()));
  return results;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ms = (v) => `${v.toFixed(1)} ms`;

const dir = mkdtempSync(join(tmpdir(), "wtp-worker-start-"));
const imports = importOrder(entry);
// import lines of every dependency, by URL (for Node) or by path (for esbuild).
const importLines = (byPath = false) =>
  imports.map((spec) => `import ${JSON.stringify(byPath && spec.startsWith("file:") ? fileURLToPath(spec) : spec)};`);

// 1. Whole workers.
const files = {
  "empty CommonJS file": join(dir, "empty.cjs"),
  // In the package (a bare specifier such as the WASI shim resolves there).
  "imports as ES modules": join(root, "lib/program/.worker-start-graph.mjs"),
  "imports as one CommonJS file": join(root, "lib/program/.worker-start-probe.cjs"),
};
writeFileSync(files["empty CommonJS file"], `${CJS_HEAD} parentPort.postMessage(0); ${HOLD}`);
writeFileSync(
  files["imports as ES modules"],
  `${importLines("esm").join("\n")}\nimport { parentPort, workerData } from "node:worker_threads";\nparentPort.postMessage(0); ${HOLD}`,
);
// Built next to the sources, so that its import.meta.url paths mean the same
// (scripts/bundle-workers.js builds into dist/ and defines import.meta.url as
// the entry's source URL instead: the same effect).
const probeEntry = join(root, "lib/program/.worker-start-probe.js");
// The probe files in lib/program/ go at the end, and also when the run dies
// early (an output pipe closed by its reader ends it with an uncaught EPIPE,
// past the finally below).
function removeProbes() {
  rmSync(dir, { recursive: true, force: true });
  rmSync(probeEntry, { force: true });
  rmSync(files["imports as ES modules"], { force: true });
  rmSync(files["imports as one CommonJS file"], { force: true });
}
process.on("exit", removeProbes);
writeFileSync(
  probeEntry,
  `${importLines("esm").join("\n")}\nimport { parentPort, workerData } from "node:worker_threads";\nparentPort.postMessage(0); ${HOLD}`,
);
try {
  await build({
    entryPoints: [probeEntry],
    outfile: files["imports as one CommonJS file"],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    define: { "import.meta.url": "__wtpImportMetaUrl" },
    banner: { js: 'const __wtpImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: "silent",
  });
  console.log(
    `${count} workers each, load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(" ")}; entry ${entry.slice(root.length)}`,
  );
  console.log("\n1. new Worker -> first message (median):");
  const bare = await startAll(
    ({ hold }) => new Worker(`${ESM_HEAD} parentPort.postMessage(0); ${HOLD}`, { eval: true, workerData: { hold } }),
  );
  console.log(`  ${"empty ES module (eval)".padEnd(32)} ${ms(median(bare.map((r) => r.firstMessageMs)))}`);
  for (const [label, file] of Object.entries(files)) {
    const runs = await startAll(({ hold }) => new Worker(pathToFileURL(file), { workerData: { hold } }));
    console.log(`  ${label.padEnd(32)} ${ms(median(runs.map((r) => r.firstMessageMs)))}`);
  }

  // 2. File by file.
  const stepper = `
    const t0 = performance.now();
    ${ESM_HEAD}
    const laps = [];
    for (const spec of workerData.imports) {
      const a = performance.now();
      await import(spec);
      laps.push(performance.now() - a);
    }
    parentPort.postMessage({ laps, total: performance.now() - t0 });
    ${HOLD}`;
  const stepped = await startAll(({ hold }) => new Worker(stepper, { eval: true, workerData: { hold, imports } }));
  console.log("\n2. the ES module graph, one import at a time, leaves first (median per file):");
  let sum = 0;
  imports.forEach((spec, i) => {
    const lap = median(stepped.map((r) => r.message.laps[i]));
    sum += lap;
    console.log(
      `  ${lap.toFixed(2).padStart(6)} ms  ${spec.startsWith("file:") ? fileURLToPath(spec).slice(root.length) : spec}`,
    );
  });
  console.log(`  ${sum.toFixed(1).padStart(6)} ms  in all (${imports.length} imports)`);

  // 3. The addon.
  const addon = `
    const laps = {};
    let a = performance.now();
    const lap = (name) => { const b = performance.now(); laps[name] = b - a; a = b; };
    const { parentPort, workerData } = require("node:worker_threads"); lap("require node:worker_threads");
    const ngb = require(workerData.ngb); lap("require node-gyp-build");
    const path = ngb.resolve(workerData.root); lap("node-gyp-build resolve (finds the .node)");
    require(path); lap("require the .node (dlopen once per process; Node-API init per thread)");
    parentPort.postMessage(laps);
    ${HOLD}`;
  const addonFile = join(dir, "addon.cjs");
  writeFileSync(addonFile, addon);
  const ngb = join(root, "node_modules/node-gyp-build/index.js");
  const addonRuns = await startAll(({ hold }) => new Worker(pathToFileURL(addonFile), { workerData: { hold, root, ngb } }));
  console.log("\n3. the addon in a CommonJS worker (median):");
  for (const name of Object.keys(addonRuns[0].message)) {
    console.log(
      `  ${median(addonRuns.map((r) => r.message[name]))
        .toFixed(2)
        .padStart(6)} ms  ${name}`,
    );
  }
} finally {
  removeProbes();
}
