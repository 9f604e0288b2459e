// What the package's workers load when they start (docs/runner.md, "What a
// thread costs"): the one-file builds (scripts/bundle-workers.js), each of
// which matches what its sources give now and loads nothing but Node's own
// modules and the addon (a worker that loaded lib/ files beside it would pay
// again for the module graph the build is there to spare it); and the addon
// from where the starting thread found it, without node-gyp-build's search.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { native } from "../lib/native/binding.js";
import { WORKER_BUNDLES, staleWorkerBundles } from "../scripts/bundle-workers.js";

const root = new URL("../", import.meta.url);

test("every built worker matches its sources (else: node scripts/bundle-workers.js)", async () => {
  assert.deepEqual(await staleWorkerBundles(), []);
});

test("a built worker requires only node: modules (and the addon through createRequire)", () => {
  for (const { outfile, dynamicImports } of WORKER_BUNDLES) {
    const text = readFileSync(new URL(outfile, root), "utf8");
    const required = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.ok(required.length > 0, `${outfile}: no require() at all`);
    for (const name of required) assert.match(name, /^node:/, `${outfile} requires ${name}`);
    // Only a worker that imports modules named at run time keeps an import().
    if (!dynamicImports) assert.doesNotMatch(text, /\bimport\(/, `${outfile} imports a module at run time`);
  }
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
