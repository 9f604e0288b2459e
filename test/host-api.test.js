// lib/host/host.js: module exports, the error class, worker URL resolution
// (SDK-CONTRACT 2.10), option validation and its order (2.2), the hostcall
// stub (2.5) and isWasiThreadsModule. Runs in Node's own environment; the
// browser branch has its own file (host-browser.test.js).

import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";

import * as host from "../lib/host/host.js";
import { installBrowserGlobals } from "./support/host-env.js";

const {
  createWasiThreadSpawn,
  DEFAULT_BROWSER_WORKER_URL,
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  WasiThreadWorkerUnreachableError,
  getBrowserWasiThreadWorkerBase,
  isWasiThreadsModule,
  resolveBrowserWorkerUrl,
  setBrowserWasiThreadWorkerBase,
} = host;

const FILE = "wasiThreadBrowserWorker.mjs";

const EXTRA_IMPORTS_MESSAGE =
  'createWasiThreadSpawn extraImports must be structured-cloneable descriptors (e.g. { provider: "flatsql-io", instanceId, channels }) or { moduleUrl } entries: a function cannot cross into a worker thread.';

function unreachableMessage(url) {
  return (
    `[wasi-thread] pooled browser worker asset is unreachable at ${url}. The anchor must name a ` +
    "directory that serves wasiThreadBrowserWorker.mjs and the modules it imports " +
    "(wasiThreadWorkerRuntime.js, wasiThreadPool.js). When this host source is bundled, pass " +
    "browserWorkerBaseUrl / browserWorkerUrl to createWasiThreadSpawn (or call " +
    "setBrowserWasiThreadWorkerBase) — import.meta.url anchors to the bundle, not to the " +
    "package layout."
  );
}

// Every test that touches the process-wide base leaves it cleared.
function withBase(t, base) {
  setBrowserWasiThreadWorkerBase(base);
  t.after(() => setBrowserWasiThreadWorkerBase(null));
}

// ---------------------------------------------------------------------------
// Exports.

test("module exports the SDK names", () => {
  for (const name of [
    "createWasiThreadSpawn",
    "setBrowserWasiThreadWorkerBase",
    "getBrowserWasiThreadWorkerBase",
    "resolveBrowserWorkerUrl",
    "isWasiThreadsModule",
    "WasiThreadWorkerUnreachableError",
  ]) {
    assert.equal(typeof host[name], "function", name);
  }
  assert.equal(DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, 250);
  assert.equal(host.BROWSER_POOL_PROBE_TIMEOUT_MS, 1500);
});

test("DEFAULT_BROWSER_WORKER_URL is the sibling worker file of lib/host/host.js", () => {
  assert.ok(DEFAULT_BROWSER_WORKER_URL instanceof URL);
  assert.equal(DEFAULT_BROWSER_WORKER_URL.href, new URL(`../lib/${FILE}`, import.meta.url).href);
});

test("DEFAULT_BROWSER_WORKER_URL is null, and evaluation does not throw, without a usable import.meta.url", async () => {
  // A data: URL module has an import.meta.url that cannot anchor "./x", like
  // a blob or IIFE bundle.
  const source = readFileSync(new URL("../lib/host/worker-url.js", import.meta.url), "utf8");
  const mod = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
  assert.equal(mod.DEFAULT_BROWSER_WORKER_URL, null);
  const error = catchSync(() => mod.resolveBrowserWorkerUrl());
  assert.ok(error instanceof mod.WasiThreadWorkerUnreachableError);
  const url = "(no packaged anchor: this host source was bundled without import.meta.url)";
  assert.equal(error.workerUrl, url);
  assert.equal(error.message, unreachableMessage(url));
  assert.equal("cause" in error, false);
  // A base still works there.
  mod.setBrowserWasiThreadWorkerBase("https://cdn.test/wtp");
  assert.equal(mod.resolveBrowserWorkerUrl(), `https://cdn.test/wtp/${FILE}`);
});

function catchSync(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw");
}

// ---------------------------------------------------------------------------
// The error class.

test("WasiThreadWorkerUnreachableError: name, message, workerUrl, cause", () => {
  const url = new URL("https://app.test/assets/wasiThreadBrowserWorker.mjs");
  const cause = new Error("404");
  const error = new WasiThreadWorkerUnreachableError(url, cause);
  assert.ok(error instanceof Error);
  assert.equal(error.name, "WasiThreadWorkerUnreachableError");
  assert.equal(error.workerUrl, url.href);
  assert.equal(typeof error.workerUrl, "string");
  assert.equal(error.cause, cause);
  assert.equal(error.message, unreachableMessage(url.href));

  const bare = new WasiThreadWorkerUnreachableError("x.mjs");
  assert.equal("cause" in bare, false);
  // null is a cause; only undefined is "no cause".
  assert.equal(new WasiThreadWorkerUnreachableError("x.mjs", null).cause, null);
});

// ---------------------------------------------------------------------------
// The process-wide base.

test("setBrowserWasiThreadWorkerBase normalises to a directory; null and undefined clear", (t) => {
  t.after(() => setBrowserWasiThreadWorkerBase(null));
  assert.equal(getBrowserWasiThreadWorkerBase(), null);
  setBrowserWasiThreadWorkerBase("https://cdn.test/wtp");
  assert.equal(getBrowserWasiThreadWorkerBase(), "https://cdn.test/wtp/");
  setBrowserWasiThreadWorkerBase("https://cdn.test/wtp/");
  assert.equal(getBrowserWasiThreadWorkerBase(), "https://cdn.test/wtp/");
  setBrowserWasiThreadWorkerBase(new URL("https://cdn.test/a/b"));
  assert.equal(getBrowserWasiThreadWorkerBase(), "https://cdn.test/a/b/");
  setBrowserWasiThreadWorkerBase(null);
  assert.equal(getBrowserWasiThreadWorkerBase(), null);
  setBrowserWasiThreadWorkerBase("/static");
  setBrowserWasiThreadWorkerBase(undefined);
  assert.equal(getBrowserWasiThreadWorkerBase(), null);
});

// ---------------------------------------------------------------------------
// resolveBrowserWorkerUrl (2.10).

test("resolve step 1: browserWorkerUrl is used as given and wins over every base", (t) => {
  withBase(t, "https://cdn.test/wtp/");
  assert.equal(
    resolveBrowserWorkerUrl({ browserWorkerUrl: "blob:https://app.test/123", browserWorkerBaseUrl: "/x/" }),
    "blob:https://app.test/123",
  );
  const url = new URL("https://app.test/w.js");
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerUrl: url }), "https://app.test/w.js");
  // Relative file URLs are not resolved: a Worker resolves them itself.
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerUrl: "w.js" }), "w.js");
});

test("resolve step 2: a per-call base, given a trailing slash, wins over the process base", (t) => {
  withBase(t, "https://cdn.test/wtp/");
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "https://app.test/assets" }), `https://app.test/assets/${FILE}`);
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: new URL("https://app.test/a/") }), `https://app.test/a/${FILE}`);
  // Falsy values fall through to the next step.
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerUrl: "", browserWorkerBaseUrl: "" }), `https://cdn.test/wtp/${FILE}`);
});

test("resolve step 3: the process-wide base", (t) => {
  withBase(t, "https://cdn.test/wtp");
  assert.equal(resolveBrowserWorkerUrl(), `https://cdn.test/wtp/${FILE}`);
  assert.equal(resolveBrowserWorkerUrl({}), `https://cdn.test/wtp/${FILE}`);
});

test("resolve step 4: a relative base resolves against location.href when there is one", (t) => {
  const restore = installBrowserGlobals({ location: { href: "https://app.test/deep/page.html?q=1" } });
  t.after(restore);
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "/static/wasi" }), `https://app.test/static/wasi/${FILE}`);
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "assets" }), `https://app.test/deep/assets/${FILE}`);
  // An absolute base ignores the document.
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "https://cdn.test/x" }), `https://cdn.test/x/${FILE}`);
  withBase(t, "../lib");
  assert.equal(resolveBrowserWorkerUrl(), `https://app.test/lib/${FILE}`);
});

test("resolve step 4: without a string location.href the base is concatenated", (t) => {
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "assets" }), `assets/${FILE}`);
  const restore = installBrowserGlobals({ location: { href: 42 } });
  t.after(restore);
  assert.equal(resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "/static" }), `/static/${FILE}`);
});

test("resolve step 5: the packaged anchor, as a string", () => {
  const url = resolveBrowserWorkerUrl();
  assert.equal(typeof url, "string");
  assert.equal(url, DEFAULT_BROWSER_WORKER_URL.href);
  assert.equal(resolveBrowserWorkerUrl(undefined), url);
});

// ---------------------------------------------------------------------------
// Validation (2.2), in order. Every failure is a rejected promise.

test("validation failures reject the promise rather than throw", () => {
  const pending = createWasiThreadSpawn({ poolSize: -1 });
  assert.ok(pending instanceof Promise);
  return assert.rejects(pending, RangeError);
});

test("poolSize: a negative or fractional number is a RangeError", async () => {
  for (const poolSize of [-1, 1.5, -0.5]) {
    await assert.rejects(createWasiThreadSpawn({ poolSize }), {
      name: "RangeError",
      message: "poolSize must be a non-negative integer.",
    });
  }
});

test("poolSize: a non-finite or non-number value counts as absent", async () => {
  for (const poolSize of ["6", NaN, Infinity, -Infinity, null, {}]) {
    const threads = await createWasiThreadSpawn({ poolSize, requiresHostcalls: true });
    assert.equal(threads.spawnReport().poolSize, 0, String(poolSize));
  }
});

test("spawnWaitMs: NaN, negative, Infinity and strings are RangeErrors; 0 and fractions pass", async () => {
  for (const spawnWaitMs of [NaN, -1, Infinity, "10", {}]) {
    await assert.rejects(createWasiThreadSpawn({ spawnWaitMs }), {
      name: "RangeError",
      message: "spawnWaitMs must be a finite, non-negative number of milliseconds.",
    });
  }
  for (const spawnWaitMs of [0, 2.5, undefined, null]) {
    await createWasiThreadSpawn({ spawnWaitMs, requiresHostcalls: true });
  }
});

test("extraImports: a function entry is a TypeError with the SDK's message", async () => {
  await assert.rejects(createWasiThreadSpawn({ extraImports: [{ moduleUrl: "x.js" }, () => ({})] }), {
    name: "TypeError",
    message: EXTRA_IMPORTS_MESSAGE,
  });
});

test("extraImports: not an array is a TypeError naming it", async () => {
  await assert.rejects(createWasiThreadSpawn({ extraImports: { provider: "flatsql-io" } }), {
    name: "TypeError",
    message: /extraImports/,
  });
});

test("validation order: poolSize, then spawnWaitMs, then extraImports, then the stub", async () => {
  const fn = () => ({});
  await assert.rejects(createWasiThreadSpawn({ poolSize: -1, spawnWaitMs: -1, extraImports: [fn], requiresHostcalls: true }), {
    message: "poolSize must be a non-negative integer.",
  });
  await assert.rejects(createWasiThreadSpawn({ spawnWaitMs: -1, extraImports: [fn], requiresHostcalls: true }), {
    message: /^spawnWaitMs/,
  });
  await assert.rejects(createWasiThreadSpawn({ extraImports: [fn], requiresHostcalls: true }), {
    message: EXTRA_IMPORTS_MESSAGE,
  });
});

test('implementation: only "native" or "js"; anything else is a RangeError naming it', async () => {
  for (const implementation of ["wasm", "", null, 1, "JS"]) {
    await assert.rejects(createWasiThreadSpawn({ implementation, requiresHostcalls: true }), {
      name: "RangeError",
      message: /^implementation must be "native" or "js"/,
    });
  }
  for (const implementation of ["native", "js", undefined]) {
    await createWasiThreadSpawn({ implementation, requiresHostcalls: true });
  }
});

test("runtimeModule: a string or URL; anything else is a TypeError naming it", async () => {
  for (const runtimeModule of [42, {}, null, () => {}]) {
    await assert.rejects(createWasiThreadSpawn({ runtimeModule, requiresHostcalls: true }), {
      name: "TypeError",
      message: /^runtimeModule must be a string or URL/,
    });
  }
  await createWasiThreadSpawn({ runtimeModule: "./rt.js", requiresHostcalls: true });
  await createWasiThreadSpawn({ runtimeModule: new URL("file:///rt.js"), requiresHostcalls: true });
});

test("our own options are checked after extraImports", async () => {
  await assert.rejects(createWasiThreadSpawn({ extraImports: [() => {}], implementation: "x", runtimeModule: 1 }), {
    name: "TypeError",
    message: EXTRA_IMPORTS_MESSAGE,
  });
  await assert.rejects(createWasiThreadSpawn({ implementation: "x", runtimeModule: 1 }), RangeError);
});

// ---------------------------------------------------------------------------
// The hostcall stub (2.5), before any branch: no pool, no worker.

test("hostcall stub: every spawn declines hostcall-channel-missing", async () => {
  const calls = [];
  const threads = await createWasiThreadSpawn({
    wasmModule: {},
    memory: {},
    requiresHostcalls: true,
    onSpawnDeclined: (info) => calls.push(info),
  });
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.threadSpawn(1), -1);
  assert.deepEqual(calls, [
    { reason: "hostcall-channel-missing", poolSize: 0, declined: 1 },
    { reason: "hostcall-channel-missing", poolSize: 0, declined: 2 },
  ]);
  assert.equal(threads.activeThreadCount(), 0);
  assert.equal(threads.spawnCount(), 0);
  assert.equal(threads.distinctOsThreadCount(), 0);
  assert.deepEqual(threads.spawnReport(), {
    poolSize: 0,
    armed: 0,
    failedToArm: 0,
    declinedByReason: { "hostcall-channel-missing": 2 },
    lastDeclineReason: "hostcall-channel-missing",
    spawned: 0,
    waited: 0,
    declined: 2,
    active: 0,
  });
  assert.equal(await threads.terminateAll(), undefined);
  assert.equal(threads.threadSpawn(2), -1);
  assert.equal(threads.spawnReport().declinedByReason["hostcall-channel-missing"], 3);
});

test("hostcall stub: the explicit poolSize is reported; a throwing onSpawnDeclined is swallowed", async () => {
  const threads = await createWasiThreadSpawn({
    poolSize: 3,
    requiresHostcalls: true,
    onSpawnDeclined: () => {
      throw new Error("caller bug");
    },
  });
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().poolSize, 3);
});

test("hostcall stub: any falsy hostcallChannel counts as missing", async () => {
  for (const hostcallChannel of [undefined, null, 0, ""]) {
    const threads = await createWasiThreadSpawn({ requiresHostcalls: true, hostcallChannel });
    assert.equal(threads.threadSpawn(0), -1);
    assert.equal(threads.spawnReport().lastDeclineReason, "hostcall-channel-missing");
  }
});

// ---------------------------------------------------------------------------
// The Node branch: loaded lazily from lib/host/node.js (tested on its own
// in test/host-node*.test.js). Here only that it is reached and declines
// at once with poolSize 0 (no worker started).

const hostNodePresent = existsSync(new URL("../lib/host/node.js", import.meta.url));

test(
  "Node branch: createWasiThreadSpawn hands over to lib/host/node.js",
  { skip: !hostNodePresent && "lib/host/node.js not present yet" },
  async () => {
    const wabt = await (await import("wabt")).default();
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const wasmModule = new WebAssembly.Module(watToBytes(wabt, THREADED_WAT));
    const declined = [];
    const threads = await createWasiThreadSpawn({
      wasmModule,
      memory,
      poolSize: 0,
      onSpawnDeclined: (info) => declined.push(info),
    });
    try {
      for (const name of [
        "threadSpawn",
        "activeThreadCount",
        "spawnCount",
        "distinctOsThreadCount",
        "spawnReport",
        "terminateAll",
      ]) {
        assert.equal(typeof threads[name], "function", name);
      }
      assert.equal(threads.threadSpawn(0), -1);
      assert.equal(declined[0].reason, "pool-exhausted");
      assert.equal(threads.spawnReport().poolSize, 0);
      assert.equal(threads.distinctOsThreadCount(), 0);
    } finally {
      await threads.terminateAll();
    }
  },
);

// ---------------------------------------------------------------------------
// isWasiThreadsModule.

const THREADED_WAT = `(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "env" "memory" (memory 1 1 shared))
  (func (export "wasi_thread_start") (param i32 i32)))`;

function watToBytes(wabt, wat) {
  const features = { threads: true };
  const parsed = wabt.parseWat("m.wat", wat, features);
  try {
    parsed.validate(features);
    return parsed.toBinary({}).buffer;
  } finally {
    parsed.destroy();
  }
}

test("isWasiThreadsModule: only an import of wasi.thread-spawn counts", async () => {
  const wabt = await (await import("wabt")).default();
  const check = (wat) => isWasiThreadsModule(new WebAssembly.Module(watToBytes(wabt, wat)));

  assert.equal(check(THREADED_WAT), true);
  assert.equal(check("(module)"), false);
  assert.equal(check(`(module (import "wasi_snapshot_preview1" "thread-spawn" (func (param i32) (result i32))))`), false);
  assert.equal(check(`(module (import "wasi" "thread_spawn" (func (param i32) (result i32))))`), false);
  assert.equal(check(`(module (import "wasi" "thread-spawn" (global i32)))`), true);
  assert.equal(check(`(module (func (export "thread-spawn")))`), false);
  assert.equal(
    check(`(module (import "env" "memory" (memory 1 1 shared))
                   (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
                   (import "wasi" "thread-spawn" (func (param i32) (result i32))))`),
    true,
  );
});

test("isWasiThreadsModule: a non-module is a TypeError (from WebAssembly.Module.imports)", () => {
  assert.throws(() => isWasiThreadsModule({}), TypeError);
  assert.throws(() => isWasiThreadsModule(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])), TypeError);
});
