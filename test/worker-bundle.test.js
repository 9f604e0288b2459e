// What the package's workers load when they start (docs/runner.md, "What a
// thread costs"): the one-file builds in dist/ (scripts/bundle-workers.js),
// each of which, where built, matches what its sources give now and loads
// nothing but Node's own modules and the addon (a worker that loaded lib/
// files beside it would pay again for the module graph the build is there to
// spare it); the source modules where they are not built (lib/worker/entries.js);
// and the addon from where the starting thread found it, without
// node-gyp-build's search.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { native } from "../lib/native/binding.js";
import { WORKER_ENTRIES } from "../lib/worker/entries.js";
import { WORKER_BUNDLES, bundleWorker, staleWorkerBundles } from "../scripts/bundle-workers.js";

const root = new URL("../", import.meta.url);
const ENTRY_CHILD = fileURLToPath(new URL("./support/worker-entry-child.js", import.meta.url));
const built = WORKER_BUNDLES.filter(({ outfile }) => existsSync(new URL(outfile, root)));

test("every built worker present matches its sources (else: node scripts/bundle-workers.js)", async (t) => {
  if (built.length === 0) {
    t.skip("no worker is built in dist/ (node scripts/bundle-workers.js, or npm test, builds them)");
    return;
  }
  assert.deepEqual(await staleWorkerBundles(), []);
});

test("a built worker requires only node: modules (and the addon through createRequire)", async () => {
  for (const bundle of WORKER_BUNDLES) {
    const text = await bundleWorker(bundle);
    const required = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.ok(required.length > 0, `${bundle.outfile}: no require() at all`);
    for (const name of required) assert.match(name, /^node:/, `${bundle.outfile} requires ${name}`);
    // Only a worker that imports modules named at run time keeps an import().
    if (!bundle.dynamicImports) assert.doesNotMatch(text, /\bimport\(/, `${bundle.outfile} imports a module at run time`);
  }
});

// test/support/worker-entry-child.js in a child process with `env`.
function entryChild(env) {
  const r = spawnSync(process.execPath, [ENTRY_CHILD], { encoding: "utf8", timeout: 120_000, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `worker-entry-child exit ${r.status} (${r.signal})\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop());
}

// Both workers do their job: the host's guest ran 2 coordinators that each
// spawned 3 threads from their workers; the CLI's program ran 3 writers.
function assertServed(r) {
  assert.deepEqual([r.hostJoined, r.hostThreads, r.hostSum], [2, 8, 6], JSON.stringify(r));
  assert.equal(r.cliCode, 0, r.cliStderr);
  assert.equal(r.cliEnds, 3, r.cliStderr);
}

test("without the builds the workers start from their source modules, and the host and the runner work", () => {
  const r = entryChild({ WASI_THREAD_POOL_WORKER_BUNDLES: "0" });
  assert.equal(r.host, WORKER_ENTRIES.host.source);
  assert.equal(r.program, WORKER_ENTRIES.program.source);
  assertServed(r);
});

test("with the builds present the workers start them", (t) => {
  if (built.length < WORKER_BUNDLES.length) {
    t.skip("the workers are not built in dist/ (node scripts/bundle-workers.js)");
    return;
  }
  const r = entryChild({ WASI_THREAD_POOL_WORKER_BUNDLES: "" });
  assert.equal(r.host, WORKER_ENTRIES.host.built);
  assert.equal(r.program, WORKER_ENTRIES.program.built);
  assertServed(r);
});

// lib/native/binding.js in a worker started with workerData.
function bindingInWorker(workerData) {
  const source = `
    const { parentPort } = await import("node:worker_threads");
    const { native } = await import(${JSON.stringify(new URL("lib/native/binding.js", root).href)});
    parentPort.postMessage({ loaded: native.binding !== null, path: native.path, error: native.error });`;
  const worker = new Worker(source, { eval: true, workerData });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

test("a worker loads the addon from the path its starter found (workerData.wasiThreadPoolAddonPath)", async (t) => {
  if (native.binding === null || process.env.WASI_THREAD_POOL_ADDON) {
    t.skip(native.error ?? "WASI_THREAD_POOL_ADDON names the addon");
    return;
  }
  const given = await bindingInWorker({ wasiThreadPoolAddonPath: native.path });
  assert.deepEqual(given, { loaded: true, path: native.path, error: null });
  // Proof that the given path is the one loaded, not node-gyp-build's find.
  const missing = "/nonexistent/wtp-test-addon.node";
  const wrong = await bindingInWorker({ wasiThreadPoolAddonPath: missing });
  assert.equal(wrong.loaded, false);
  assert.match(wrong.error, /nonexistent\/wtp-test-addon\.node/);
  const none = await bindingInWorker({});
  assert.deepEqual(none, { loaded: true, path: native.path, error: null });
});
