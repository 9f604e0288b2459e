// The package's entry points: the root and ./pool export every SDK name, and
// the "browser" condition's module graph never reaches the addon or any
// node: module (a browser bundler must be able to follow it as it is).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const SDK_POOL_NAMES = [
  "WASI_THREAD_POOL_PROTOCOL",
  "WASI_THREAD_POOL_SLOT",
  "DEFAULT_WASI_THREAD_SPAWN_WAIT_MS",
  "resolveSpawnWaitMs",
  "createWasiThreadPool",
  "openWasiThreadPoolSlots",
  "armWasiThreadPoolSlot",
  "retireWasiThreadPoolSlot",
  "wasiThreadPoolSlotState",
  "wasiThreadPoolLastTid",
  "wasiThreadPoolRunningTid",
  "releaseWasiThreadPoolSlotIfRunning",
  "takeWasiThreadPoolAssignment",
  "finishWasiThreadPoolRun",
  "serveWasiThreadPoolSlot",
  "readWasiThreadPoolReport",
  "createWasiThreadPoolSpawn",
];

const SDK_HOST_NAMES = [
  "createWasiThreadSpawn",
  "DEFAULT_WASI_THREAD_SPAWN_WAIT_MS",
  "DEFAULT_BROWSER_WORKER_URL",
  "setBrowserWasiThreadWorkerBase",
  "getBrowserWasiThreadWorkerBase",
  "resolveBrowserWorkerUrl",
  "WasiThreadWorkerUnreachableError",
  "isWasiThreadsModule",
];

// Static import/export specifiers of an ES module's source.
function specifiers(source) {
  const found = [];
  const pattern = /(?:^|[;\n])\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|[;\n])\s*import\s*["']([^"']+)["']/g;
  for (const match of source.matchAll(pattern)) found.push(match[1] ?? match[2]);
  return found;
}

function graph(entry) {
  const seen = new Set();
  const bare = new Set();
  const stack = [new URL(entry, new URL("../", import.meta.url))];
  while (stack.length > 0) {
    const url = stack.pop();
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    for (const spec of specifiers(readFileSync(fileURLToPath(url), "utf8"))) {
      if (spec.startsWith(".")) stack.push(new URL(spec, url));
      else bare.add(spec);
    }
  }
  return { files: [...seen].map((u) => u.slice(u.indexOf("/lib/") + 1)), bare: [...bare] };
}

it("the root and ./pool export every SDK pool name; the root and ./host every SDK host name", async () => {
  const root = await import("../lib/index.js");
  const pool = await import("../lib/pool.js");
  const host = await import("../lib/host/host.js");
  for (const name of SDK_POOL_NAMES) {
    assert.ok(name in root, `root lacks ${name}`);
    assert.ok(name in pool, `./pool lacks ${name}`);
  }
  for (const name of SDK_HOST_NAMES) {
    assert.ok(name in root, `root lacks ${name}`);
    assert.ok(name in host, `./host lacks ${name}`);
  }
});

it("the browser entries never reach the addon loader or a node: module", () => {
  for (const condition of [pkg.exports["."].browser, pkg.exports["./pool"].browser, pkg.exports["./worker-browser"]]) {
    const { files, bare } = graph(condition);
    assert.ok(
      !files.some((f) => f.endsWith("lib/native/binding.js") || f.endsWith("lib/native/backend.js") || f.endsWith("lib/pool.js")),
      `${condition} reaches ${files}`,
    );
    assert.deepEqual(
      bare.filter((s) => s.startsWith("node:") || s === "node-gyp-build"),
      [],
      `${condition} imports ${bare}`,
    );
  }
});

// The docs list what package.json exports: every entry point is a row of
// docs/api.md's entry table (the one place the entries are listed), and it
// lists none that is not exported.
it("docs/api.md's entry table lists exactly the package's entry points", () => {
  const entries = Object.keys(pkg.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`))
    .sort();
  for (const doc of ["../docs/api.md"]) {
    const text = readFileSync(new URL(doc, import.meta.url), "utf8");
    const rows = [...text.matchAll(/^\| `(wasi-thread-pool(?:\/[a-z-]+)?)` \|/gm)].map((m) => m[1]);
    assert.deepEqual([...new Set(rows)].sort(), entries, `${doc}'s entry table`);
  }
});

// Test hooks stay out of the shipped addon: setSpinLimit would let any code
// set a process-wide spin of 2^31 pauses (src/node/binding.c, "Internal
// exports"). Only a test build (test/support/test-addon.js) has it.
it("the shipped addon has no test hooks", async (t) => {
  const { native } = await import("../lib/native/binding.js");
  if (native.binding === null) return t.skip("no native addon");
  if (process.env.WASI_THREAD_POOL_ADDON) return t.skip("WASI_THREAD_POOL_ADDON names another build");
  assert.equal(native.binding.internal.setSpinLimit, undefined);
  assert.equal(typeof native.binding.internal.runningThreads, "function");
});

// A fresh `npm install` rewrites a lockfile whose root entry disagrees with
// package.json (it once lacked the bin entry).
it("package-lock.json's root entry matches package.json's name, version, bin and dependencies", () => {
  const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
  const root = lock.packages[""];
  const stripDot = (entries) => Object.fromEntries(Object.entries(entries ?? {}).map(([k, v]) => [k, v.replace(/^\.\//, "")]));
  assert.equal(root.name, pkg.name);
  assert.equal(root.version, pkg.version);
  assert.deepEqual(root.bin, stripDot(pkg.bin));
  assert.deepEqual(root.dependencies, pkg.dependencies);
  assert.deepEqual(root.devDependencies, pkg.devDependencies);
});
