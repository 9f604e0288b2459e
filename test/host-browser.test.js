// lib/host/host.js's browser branch under Node (SDK-CONTRACT 2.7, 2.8, 2.11):
// process.release is masked while a fresh lib/host/host.js is imported, and a
// scripted mock Worker stands in for the browser's. The mock cannot serve its
// slot (that blocks the only thread), so tests act as each worker between
// spawns: take()/finish() for protocol 2, {t:"exit"} for legacy workers.

import test from "node:test";
import assert from "node:assert/strict";

import { captureConsoleError, delay, importBrowserHost, installBrowserGlobals, sharedMemory } from "./support/host-env.js";
import { MockWorker } from "./support/mock-worker.js";
import { FLAG_MESSAGE_DISPATCH, H_SLOTS, S_ARG, S_FLAGS, WASI_THREAD_POOL_SLOT, slotBase } from "../lib/pool/layout.js";
import { createWasiThreadPoolSpawn, wasiThreadPoolSlotState, wasiThreadPoolLastTid } from "../lib/pool.browser.js";
import { compileWasiThreadGuest } from "../lib/worker/liftoff.browser.js";

const { PENDING, IDLE, ASSIGNED, RUNNING, RETIRED } = WASI_THREAD_POOL_SLOT;

const host = await importBrowserHost();
const { createWasiThreadSpawn, WasiThreadWorkerUnreachableError } = host;

// Every test of the host's contract runs twice: with a compiled module, and
// with the stand-in the SDK's own tests hand the host (its host posts
// wasmModule to the workers and never inspects it, so neither may ours: a
// module the package cannot read goes on untouched).
const COMPILED_MODULE = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
const STAND_IN_MODULE = { __mockModule: true };
let WASM_MODULE = COMPILED_MODULE;

function contract(name, fn) {
  test(name, fn);
  test(`${name} [stand-in module]`, async (t) => {
    WASM_MODULE = STAND_IN_MODULE;
    try {
      return await fn(t);
    } finally {
      WASM_MODULE = COMPILED_MODULE;
    }
  });
}
const WORKER_URL = "https://app.test/wasiThreadBrowserWorker.mjs";

const REPORT_KEYS = [
  "poolSize",
  "armed",
  "failedToArm",
  "declinedByReason",
  "lastDeclineReason",
  "spawned",
  "waited",
  "declined",
  "active",
  "idle",
];

// Browser globals and the mock for one test; scripted worker behaviours.
function browser(t, { behaviours = [], fallback = "ready2", ...globals } = {}) {
  MockWorker.script(behaviours, fallback);
  const restore = installBrowserGlobals(globals);
  t.after(restore);
}

// createWasiThreadSpawn with the test defaults (and console.error captured).
async function spawnHost(options = {}) {
  const { result, calls } = await captureConsoleError(() =>
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory: sharedMemory(),
      browserWorkerUrl: WORKER_URL,
      spawnWaitMs: 0,
      probeTimeoutMs: 50,
      ...options,
    }),
  );
  return Object.assign(result, { logs: calls });
}

async function rejection(promise) {
  const { result } = await captureConsoleError(() =>
    promise.then(
      () => assert.fail("expected a rejection"),
      (error) => error,
    ),
  );
  return result;
}

const workers = () => MockWorker.instances;
const poolOf = () => workers()[0].probe.pool;
const states = () => workers().map((w, slot) => wasiThreadPoolSlotState(poolOf(), slot));

// ---------------------------------------------------------------------------
// The gate (2.7 step 1, 2.8).

contract("branch: without process.release the browser branch runs (no Node host is loaded)", async (t) => {
  browser(t);
  const threads = await spawnHost();
  assert.equal(workers().length, 3);
  assert.deepEqual(Object.keys(threads.spawnReport()), REPORT_KEYS);
  await threads.terminateAll();
});

contract("gate: no opt-in means threads-unavailable, no worker, poolSize 0", async (t) => {
  browser(t, { enable: undefined });
  const declined = [];
  const threads = await spawnHost({ onSpawnDeclined: (info) => declined.push(info) });
  assert.equal(workers().length, 0);
  assert.equal(threads.threadSpawn(1), -1);
  assert.deepEqual(declined, [{ reason: "threads-unavailable", poolSize: 0, declined: 1 }]);
  assert.deepEqual(threads.spawnReport(), {
    poolSize: 0,
    armed: 0,
    failedToArm: 0,
    declinedByReason: { "threads-unavailable": 1 },
    lastDeclineReason: "threads-unavailable",
    spawned: 0,
    waited: 0,
    declined: 1,
    active: 0,
    idle: 0,
  });
  assert.equal(threads.activeThreadCount(), 0);
  assert.equal(threads.spawnCount(), 0);
  assert.equal(threads.distinctOsThreadCount(), 0);
});

contract("gate: enableBrowserThreads true opts in without the global", async (t) => {
  browser(t, { enable: undefined });
  const threads = await spawnHost({ enableBrowserThreads: true });
  assert.equal(workers().length, 3);
  assert.equal(threads.spawnReport().armed, 3);
  await threads.terminateAll();
});

contract("gate: an explicit false wins over the global; null and undefined defer to it", async (t) => {
  browser(t, { enable: true });
  const off = await spawnHost({ enableBrowserThreads: false });
  assert.equal(workers().length, 0);
  assert.equal(off.threadSpawn(0), -1);
  assert.equal(off.spawnReport().lastDeclineReason, "threads-unavailable");
  for (const enableBrowserThreads of [null, undefined]) {
    MockWorker.script([]);
    const on = await spawnHost({ enableBrowserThreads });
    assert.equal(workers().length, 3);
    await on.terminateAll();
  }
});

contract("gate: only `true` opts in (a truthy global or option is not enough)", async (t) => {
  browser(t, { enable: "true" });
  await spawnHost();
  assert.equal(workers().length, 0);
  const threads = await spawnHost({ enableBrowserThreads: 1 });
  assert.equal(workers().length, 0);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "threads-unavailable");
});

contract("gate: crossOriginIsolated must be exactly true", async (t) => {
  for (const crossOriginIsolated of [false, undefined, "true"]) {
    const restore = installBrowserGlobals({ crossOriginIsolated });
    MockWorker.script([]);
    try {
      const threads = await spawnHost();
      assert.equal(workers().length, 0, String(crossOriginIsolated));
      assert.equal(threads.threadSpawn(0), -1);
      assert.equal(threads.spawnReport().lastDeclineReason, "threads-unavailable");
    } finally {
      restore();
    }
  }
  t.diagnostic('checked false, undefined and "true"');
});

contract("gate: the memory must be SharedArrayBuffer-backed", async (t) => {
  browser(t);
  for (const memory of [new WebAssembly.Memory({ initial: 1 }), undefined, null, {}, { buffer: new ArrayBuffer(8) }]) {
    const threads = await spawnHost({ memory });
    assert.equal(workers().length, 0);
    assert.equal(threads.threadSpawn(0), -1);
    assert.equal(threads.spawnReport().lastDeclineReason, "threads-unavailable");
  }
});

contract("gate: no SharedArrayBuffer global at all is threads-unavailable, not a throw", async (t) => {
  browser(t);
  const memory = sharedMemory();
  const SAB = globalThis.SharedArrayBuffer;
  delete globalThis.SharedArrayBuffer;
  t.after(() => {
    globalThis.SharedArrayBuffer = SAB;
  });
  const threads = await spawnHost({ memory });
  globalThis.SharedArrayBuffer = SAB;
  assert.equal(workers().length, 0);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "threads-unavailable");
});

contract("gate: an explicit poolSize does not bypass the gate (poolSize reported 0)", async (t) => {
  browser(t, { crossOriginIsolated: false });
  const threads = await spawnHost({ poolSize: 4 });
  assert.equal(workers().length, 0);
  assert.equal(threads.spawnReport().poolSize, 0);
  assert.equal(threads.threadSpawn(0), -1);
});

// ---------------------------------------------------------------------------
// Size (2.7 step 2) and pool-empty.

async function implicitSize(t, globals, options = {}) {
  const restore = installBrowserGlobals(globals);
  MockWorker.script([]);
  try {
    const threads = await spawnHost(options);
    const size = workers().length;
    assert.equal(threads.spawnReport().poolSize, size);
    await threads.terminateAll();
    return size;
  } finally {
    restore();
  }
}

contract("size: implicit is min(hardwareConcurrency - 1, requestedThreads)", async (t) => {
  assert.equal(await implicitSize(t, { hardwareConcurrency: 4 }), 3);
  assert.equal(await implicitSize(t, { hardwareConcurrency: 8 }, { requestedThreads: 2 }), 2);
  assert.equal(await implicitSize(t, { hardwareConcurrency: 4 }, { requestedThreads: 10 }), 3);
  assert.equal(await implicitSize(t, { hardwareConcurrency: 8 }, { requestedThreads: 2.9 }), 2);
  assert.equal(await implicitSize(t, { hardwareConcurrency: 4.7 }), 3);
  // A non-finite requestedThreads means "as many as the hardware allows".
  assert.equal(await implicitSize(t, { hardwareConcurrency: 4 }, { requestedThreads: Infinity }), 3);
  assert.equal(await implicitSize(t, { hardwareConcurrency: 4 }, { requestedThreads: "2" }), 3);
});

contract("size: hardwareConcurrency from navigator, then self.navigator, then 1", async (t) => {
  assert.equal(await implicitSize(t, { hardwareConcurrency: undefined, self: { navigator: { hardwareConcurrency: 3 } } }), 2);
  assert.equal(await implicitSize(t, { hardwareConcurrency: NaN, self: { navigator: { hardwareConcurrency: 5 } } }), 4);
  assert.equal(await implicitSize(t, { hardwareConcurrency: undefined }), 0);
});

for (const [label, globals, options] of [
  ["one core", { hardwareConcurrency: 1 }, {}],
  ["no hardwareConcurrency", { hardwareConcurrency: undefined }, {}],
  ["requestedThreads 0", { hardwareConcurrency: 4 }, { requestedThreads: 0 }],
  ["negative requestedThreads", { hardwareConcurrency: 4 }, { requestedThreads: -3 }],
  ["explicit poolSize 0", { hardwareConcurrency: 4 }, { poolSize: 0 }],
]) {
  test(`pool-empty: ${label} creates no worker and declines every spawn`, async (t) => {
    browser(t, globals);
    const threads = await spawnHost(options);
    assert.equal(workers().length, 0);
    assert.equal(threads.threadSpawn(0), -1);
    assert.deepEqual(threads.spawnReport(), {
      poolSize: 0,
      armed: 0,
      failedToArm: 0,
      declinedByReason: { "pool-empty": 1 },
      lastDeclineReason: "pool-empty",
      spawned: 0,
      waited: 0,
      declined: 1,
      active: 0,
      idle: 0,
    });
  });
}

contract("size: an explicit poolSize is taken as is, past the hardware and requestedThreads", async (t) => {
  browser(t, { hardwareConcurrency: 2 });
  const threads = await spawnHost({ poolSize: 6, requestedThreads: 1 });
  assert.equal(workers().length, 6);
  assert.equal(threads.spawnReport().poolSize, 6);
  assert.equal(threads.spawnReport().armed, 6);
  // The 7th spawn on 6 busy workers, spawnWaitMs 0 (SDK-CONTRACT 6).
  for (let i = 0; i < 6; i++) assert.ok(threads.threadSpawn(i) > 0);
  assert.equal(threads.threadSpawn(6), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-exhausted");
  await threads.terminateAll();
});

// ---------------------------------------------------------------------------
// Creation (2.7 step 3).

contract('create: module workers by default, new Worker(url, {type: "module"})', async (t) => {
  browser(t);
  const threads = await spawnHost();
  for (const worker of workers()) assert.deepEqual(worker.args, [WORKER_URL, { type: "module" }]);
  await threads.terminateAll();
});

contract('create: browserWorkerType "classic" calls new Worker(url) with no second argument', async (t) => {
  browser(t);
  const threads = await spawnHost({ browserWorkerType: "classic" });
  for (const worker of workers()) {
    assert.equal(worker.args.length, 1);
    assert.equal(worker.args[0], WORKER_URL);
  }
  await threads.terminateAll();
});

contract("create: any other browserWorkerType is a module worker", async (t) => {
  browser(t);
  for (const browserWorkerType of ["module", "shared", 1]) {
    MockWorker.script([]);
    const threads = await spawnHost({ browserWorkerType });
    assert.deepEqual(workers()[0].args, [WORKER_URL, { type: "module" }]);
    await threads.terminateAll();
  }
});

contract("create: the worker URL follows resolveBrowserWorkerUrl (base, process base, location)", async (t) => {
  browser(t, { location: { href: "https://app.test/page/index.html" } });
  let threads = await spawnHost({ browserWorkerUrl: undefined, browserWorkerBaseUrl: "/assets" });
  assert.equal(workers()[0].url, "https://app.test/assets/wasiThreadBrowserWorker.mjs");
  await threads.terminateAll();

  host.setBrowserWasiThreadWorkerBase("https://cdn.test/wtp");
  t.after(() => host.setBrowserWasiThreadWorkerBase(null));
  MockWorker.script([]);
  threads = await spawnHost({ browserWorkerUrl: undefined });
  assert.equal(workers()[0].url, "https://cdn.test/wtp/wasiThreadBrowserWorker.mjs");
  await threads.terminateAll();

  host.setBrowserWasiThreadWorkerBase(null);
  MockWorker.script([]);
  threads = await spawnHost({ browserWorkerUrl: undefined });
  assert.equal(workers()[0].url, host.DEFAULT_BROWSER_WORKER_URL.href);
  await threads.terminateAll();
});

contract("create: a constructor that throws terminates the created workers and throws Unreachable", async (t) => {
  browser(t, { behaviours: ["ready2", "ready2", "throw"] });
  const error = await rejection(
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory: sharedMemory(),
      browserWorkerUrl: WORKER_URL,
    }),
  );
  assert.ok(error instanceof WasiThreadWorkerUnreachableError);
  assert.equal(error.workerUrl, WORKER_URL);
  assert.match(error.cause.message, /cannot start worker 2/);
  assert.equal(workers().length, 2);
  assert.ok(workers().every((w) => w.terminated));
  assert.ok(
    workers().every((w) => w.probe === null),
    "no probe was posted",
  );
});

contract("create: no Worker global at all is Unreachable too", async (t) => {
  browser(t, { Worker: undefined });
  const error = await rejection(createWasiThreadSpawn({ wasmModule: WASM_MODULE, memory: sharedMemory() }));
  assert.ok(error instanceof WasiThreadWorkerUnreachableError);
  assert.ok(error.cause instanceof ReferenceError);
});

// ---------------------------------------------------------------------------
// The probe (2.7 step 4).

contract("probe: the message shape, one pool of PENDING slots, worker i on slot i", async (t) => {
  browser(t, { behaviours: [], fallback: "silent" });
  const memory = sharedMemory();
  const processState = { args: ["guest"] };
  const pending = captureConsoleError(() =>
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory,
      processState,
      browserWorkerUrl: WORKER_URL,
      probeTimeoutMs: 30,
      spawnWaitMs: 7,
    }),
  );
  // The probes are posted before the first await.
  assert.equal(workers().length, 3);
  const pool = poolOf();
  assert.equal(pool.spawnWaitMs, 7);
  assert.equal(pool.control[H_SLOTS], 3);
  workers().forEach((worker, i) => {
    assert.deepEqual(Object.keys(worker.probe), [
      "t",
      "wasmModule",
      "memory",
      "hostcallChannel",
      "processState",
      "extraImports",
      "workerIndex",
      "pool",
      "slot",
    ]);
    assert.equal(worker.probe.t, "probe");
    assert.equal(worker.probe.wasmModule, WASM_MODULE);
    assert.equal(worker.probe.memory, memory);
    assert.equal(worker.probe.hostcallChannel, null);
    assert.equal(worker.probe.processState, processState);
    assert.deepEqual(worker.probe.extraImports, []);
    assert.equal(worker.probe.workerIndex, i);
    assert.equal(worker.probe.slot, i);
    assert.equal(worker.probe.pool, pool);
    assert.equal(wasiThreadPoolSlotState(pool, i), PENDING);
  });
  await pending;
});

contract("probe: hostcallChannel, extraImports and runtimeModule are passed through", async (t) => {
  browser(t);
  const hostcallChannel = { channelName: "c", token: "t" };
  const extraImports = [{ moduleUrl: "https://app.test/imports.js", config: { a: 1 } }];
  const threads = await spawnHost({
    hostcallChannel,
    requiresHostcalls: true,
    extraImports,
    runtimeModule: new URL("https://app.test/runtime.js"),
  });
  const { probe } = workers()[0];
  assert.equal(probe.hostcallChannel, hostcallChannel);
  assert.equal(probe.extraImports, extraImports);
  assert.equal(probe.runtimeModule, "https://app.test/runtime.js");
  await threads.terminateAll();
});

// A guest whose memory grows, compiled by the browser's compileWasiThreadGuest
// (the memory pass rewrites its memory.grow; issue 26).
// (module (import "env" "memory" (memory 1 8 shared))
//   (func (export "g") (result i32) (memory.grow (i32.const 1))))
// prettier-ignore
const GROWING_GUEST = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
  0x02, 0x10, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x08, // env.memory shared 1..8
  0x03, 0x02, 0x01, 0x00, // function 0 has type 0
  0x07, 0x05, 0x01, 0x01, 0x67, 0x00, 0x00, // export "g"
  0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, 0x01, 0x40, 0x00, 0x0b, // memory.grow (i32.const 1)
]);

test("probe: a rewritten guest's memory is grown to its maximum once, every probe has its counter", async (t) => {
  browser(t);
  const wasmModule = await compileWasiThreadGuest(GROWING_GUEST);
  assert.ok(WebAssembly.Module.imports(wasmModule).some((i) => i.module === "wasi-thread-pool"));
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 8, shared: true });
  const threads = await spawnHost({ wasmModule, memory });
  assert.equal(memory.buffer.byteLength, 8 * 65536);
  const counter = workers()[0].probe.memoryPages;
  assert.ok(counter instanceof Int32Array && counter.buffer instanceof SharedArrayBuffer);
  assert.deepEqual(Array.from(counter), [1, 8]); // the guest's size, its maximum
  for (const worker of workers()) assert.equal(worker.probe.memoryPages, counter);
  await threads.terminateAll();
});

test("probe: reserveMemory false (or a module not rewritten) leaves the memory alone, no counter", async (t) => {
  browser(t);
  const wasmModule = await compileWasiThreadGuest(GROWING_GUEST, { reserveMemory: false });
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 8, shared: true });
  const threads = await spawnHost({ wasmModule, memory });
  assert.equal(memory.buffer.byteLength, 65536);
  for (const worker of workers()) assert.equal("memoryPages" in worker.probe, false);
  await threads.terminateAll();
});

contract("probe: all ready (implicit) arms every slot IDLE", async (t) => {
  browser(t);
  const threads = await spawnHost();
  assert.deepEqual(states(), [IDLE, IDLE, IDLE]);
  const report = threads.spawnReport();
  assert.equal(report.armed, 3);
  assert.equal(report.failedToArm, 0);
  assert.equal(report.idle, 3);
  assert.equal(report.active, 0);
  assert.equal(threads.distinctOsThreadCount(), 3);
  assert.ok(workers().every((w) => !w.terminated));
  await threads.terminateAll();
});

contract("probe timeout (implicit): a silent worker disables the pool; every worker is terminated", async (t) => {
  browser(t, { behaviours: ["ready2", "silent", "ready2"] });
  const started = performance.now();
  const threads = await spawnHost({ probeTimeoutMs: 40 });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 35, `decided after ${elapsed} ms`);
  assert.ok(workers().every((w) => w.terminated));
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
  assert.equal(threads.threadSpawn(0), -1);
  const report = threads.spawnReport();
  assert.equal(report.armed, 0);
  assert.equal(report.failedToArm, 3);
  assert.equal(report.lastDeclineReason, "pool-not-armed");
  assert.equal(report.idle, 0);
  assert.equal(threads.distinctOsThreadCount(), 0);
});

contract("probe timeout: a non-positive or non-finite probeTimeoutMs means the 1500 ms default", async (t) => {
  browser(t, { behaviours: ["silent"] });
  const started = performance.now();
  const threads = await spawnHost({ poolSize: 1, probeTimeoutMs: -5 });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 1450 && elapsed < 3000, `decided after ${elapsed} ms`);
  assert.equal(threads.spawnReport().lastDeclineReason, null);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-not-armed");
});

contract("all-or-nothing (implicit): the first loser decides at once, without waiting for the rest", async (t) => {
  browser(t, { behaviours: [{ kind: "ready2", delay: 300 }, "not-ready", "silent"] });
  const threads = await spawnHost({ probeTimeoutMs: 5000 });
  // Decided before the slow worker answered (its timer is later than the
  // loser's, so this is an order, not a timing).
  assert.equal(workers()[0].answered, false, "the host waited for the slow worker");
  assert.ok(
    workers().every((w) => w.terminated),
    "the late-ready worker is terminated too",
  );
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
  assert.deepEqual(threads.logs, [["[wasi-thread] pooled worker not ready:", "mock: instantiate failed"]]);
  assert.equal(threads.spawnReport().failedToArm, 3);
  assert.equal(threads.spawnReport().armed, 0);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-not-armed");
  // A late reply changes nothing.
  await delay(320);
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
});

contract("all-or-nothing: a worker that spoke and then failed is a soft failure, not unreachable", async (t) => {
  browser(t, { behaviours: ["ready2", "error-after", "ready2"] });
  const threads = await spawnHost();
  assert.equal(threads.spawnReport().failedToArm, 3);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-not-armed");
  assert.deepEqual(threads.logs, [["[wasi-thread] pooled worker error:", "mock: crashed after speaking"]]);
});

contract("partial (explicit poolSize): losers are retired and terminated, winners serve", async (t) => {
  browser(t, { behaviours: ["not-ready", "ready2", "silent", "error-after", "ready1"] });
  const threads = await spawnHost({ poolSize: 5, probeTimeoutMs: 40 });
  const report = threads.spawnReport();
  assert.equal(report.poolSize, 5);
  assert.equal(report.armed, 2);
  assert.equal(report.failedToArm, 3);
  assert.equal(report.idle, 2);
  assert.deepEqual(states(), [RETIRED, IDLE, RETIRED, RETIRED, IDLE]);
  assert.deepEqual(
    workers().map((w) => w.terminated),
    [true, false, true, true, false],
  );
  assert.equal(threads.distinctOsThreadCount(), 2);
  // Spawns only reach the winners.
  const first = threads.threadSpawn(1);
  const second = threads.threadSpawn(2);
  assert.ok(first > 0 && second > 0);
  assert.deepEqual(states(), [RETIRED, ASSIGNED, RETIRED, RETIRED, ASSIGNED]);
  assert.equal(threads.threadSpawn(3), -1);
  await threads.terminateAll();
});

contract("partial: when no worker arms, pool-not-armed with failedToArm = poolSize", async (t) => {
  browser(t, { behaviours: ["not-ready", "silent", "error-after"] });
  const threads = await spawnHost({ poolSize: 3, probeTimeoutMs: 30 });
  const report = threads.spawnReport();
  assert.equal(report.armed, 0);
  assert.equal(report.failedToArm, 3);
  assert.ok(workers().every((w) => w.terminated));
  assert.equal(threads.threadSpawn(0), -1);
  assert.deepEqual(threads.spawnReport().declinedByReason, { "pool-not-armed": 1 });
});

contract("partial: it waits for every worker, even after the first failure", async (t) => {
  browser(t, { behaviours: ["not-ready", { kind: "ready2", delay: 80 }] });
  const threads = await spawnHost({ poolSize: 2, probeTimeoutMs: 1000 });
  assert.equal(threads.spawnReport().armed, 1);
  assert.deepEqual(states(), [RETIRED, IDLE]);
  await threads.terminateAll();
});

contract("unreachable: a worker that errors before it ever spoke is fatal (implicit)", async (t) => {
  browser(t, { behaviours: ["ready2", "error-before", "ready2"] });
  const error = await rejection(
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory: sharedMemory(),
      browserWorkerUrl: WORKER_URL,
      probeTimeoutMs: 1000,
    }),
  );
  assert.ok(error instanceof WasiThreadWorkerUnreachableError);
  assert.equal(error.workerUrl, WORKER_URL);
  assert.equal(error.cause.message, "mock: script failed to load");
  assert.ok(workers().every((w) => w.terminated));
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
});

contract("unreachable: fatal in partial mode too, even when other workers armed", async (t) => {
  browser(t, { behaviours: ["ready2", "ready2", { kind: "error-before", delay: 20 }] });
  const error = await rejection(
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory: sharedMemory(),
      browserWorkerUrl: WORKER_URL,
      poolSize: 3,
    }),
  );
  assert.ok(error instanceof WasiThreadWorkerUnreachableError);
  assert.ok(workers().every((w) => w.terminated));
});

contract("unreachable: an error event without an error object gives its message as the cause", async (t) => {
  browser(t, { behaviours: ["silent"] });
  const pending = rejection(
    createWasiThreadSpawn({
      wasmModule: WASM_MODULE,
      memory: sharedMemory(),
      browserWorkerUrl: WORKER_URL,
      poolSize: 1,
    }),
  );
  workers()[0].onerror({ message: "404 Not Found" });
  const error = await pending;
  assert.ok(error instanceof WasiThreadWorkerUnreachableError);
  assert.equal(error.cause, "404 Not Found");
});

contract("probe: a probe that cannot be posted is a soft failure", async (t) => {
  browser(t, { behaviours: ["ready2", "post-throws"] });
  const threads = await spawnHost({ poolSize: 2 });
  assert.equal(threads.spawnReport().armed, 1);
  assert.deepEqual(states(), [IDLE, RETIRED]);
  assert.match(threads.logs[0][0], /probe could not be posted/);
  await threads.terminateAll();

  MockWorker.script(["post-throws", "ready2"]);
  const implicit = await spawnHost({ requestedThreads: 2 });
  assert.equal(implicit.spawnReport().failedToArm, 2);
  assert.ok(workers().every((w) => w.terminated));
});

// ---------------------------------------------------------------------------
// Protocols and spawning (2.7 steps 5-7, 2.11).

contract("protocols: protocol !== 2 (1, or none) arms a message-dispatch slot", async (t) => {
  browser(t, { behaviours: ["ready2", "ready1", "ready"] });
  const threads = await spawnHost();
  const flags = [0, 1, 2].map((slot) => poolOf().control[slotBase(slot) + S_FLAGS]);
  assert.deepEqual(flags, [0, FLAG_MESSAGE_DISPATCH, FLAG_MESSAGE_DISPATCH]);
  assert.deepEqual(states(), [IDLE, IDLE, IDLE]);
  await threads.terminateAll();
});

contract("spawn (protocol 2): the slot is assigned in the pool, no message is posted", async (t) => {
  browser(t, { behaviours: ["ready2"] });
  const threads = await spawnHost({ poolSize: 1 });
  const [worker] = workers();
  const tid = threads.threadSpawn(42);
  assert.equal(tid, 1);
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), ASSIGNED);
  assert.equal(poolOf().control[slotBase(0) + S_ARG], 42);
  assert.deepEqual(worker.runs(), []);
  assert.equal(threads.activeThreadCount(), 1);
  assert.equal(threads.spawnCount(), 1);
  // The worker takes it, runs it, finishes.
  assert.deepEqual(worker.take(), { tid: 1, startArg: 42 });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), RUNNING);
  assert.equal(threads.threadSpawn(43), -1, "the only worker is busy");
  worker.finish();
  assert.equal(threads.activeThreadCount(), 0);
  assert.equal(threads.threadSpawn(44), 2, "a declined spawn takes no tid");
  await threads.terminateAll();
});

contract("spawn: a busy pool declines pool-exhausted, counted by the pool, told to onSpawnDeclined", async (t) => {
  browser(t);
  const declined = [];
  const threads = await spawnHost({ onSpawnDeclined: (info) => declined.push(info) });
  for (let i = 0; i < 3; i++) assert.equal(threads.threadSpawn(i), i + 1);
  assert.equal(threads.threadSpawn(3), -1);
  assert.equal(threads.threadSpawn(4), -1);
  assert.deepEqual(declined, [
    { reason: "pool-exhausted", poolSize: 3, declined: 1 },
    { reason: "pool-exhausted", poolSize: 3, declined: 2 },
  ]);
  assert.deepEqual(threads.spawnReport(), {
    poolSize: 3,
    armed: 3,
    failedToArm: 0,
    declinedByReason: { "pool-exhausted": 2 },
    lastDeclineReason: "pool-exhausted",
    spawned: 3,
    waited: 0,
    declined: 2,
    active: 3,
    idle: 0,
  });
  await threads.terminateAll();
});

contract('legacy dispatch: {t:"run"} out, {t:"exit"} frees the slot, tid-guarded against late exits', async (t) => {
  browser(t, { behaviours: ["ready1"] });
  const threads = await spawnHost({ poolSize: 1 });
  const [worker] = workers();
  const first = threads.threadSpawn(5);
  assert.ok(first > 0);
  assert.deepEqual(worker.runs(), [{ t: "run", tid: first, startArg: 5 }]);
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), ASSIGNED);
  assert.equal(threads.threadSpawn(6), -1, "busy until the exit arrives");

  worker.emit({ t: "exit", tid: first });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);

  const second = threads.threadSpawn(7);
  assert.equal(second, first + 1);
  assert.deepEqual(worker.runs().at(-1), { t: "run", tid: second, startArg: 7 });
  // A late or duplicate exit of the first thread must not free the recycled slot.
  worker.emit({ t: "exit", tid: first });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), ASSIGNED);
  assert.equal(wasiThreadPoolLastTid(poolOf(), 0), second);
  worker.emit({ t: "exit", tid: second });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);
  worker.emit({ t: "exit", tid: second });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);
  assert.equal(threads.spawnCount(), 2);
  await threads.terminateAll();
});

contract("legacy dispatch: a postMessage that throws declines dispatch-failed and frees the slot", async (t) => {
  browser(t, { behaviours: ["ready1"] });
  const declined = [];
  const threads = await spawnHost({ poolSize: 1, onSpawnDeclined: (info) => declined.push(info) });
  workers()[0].failPost = true;
  assert.equal(threads.threadSpawn(1), -1);
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);
  assert.deepEqual(declined, [{ reason: "dispatch-failed", poolSize: 1, declined: 1 }]);
  assert.equal(threads.spawnCount(), 0);
  workers()[0].failPost = false;
  assert.ok(threads.threadSpawn(2) > 0);
  await threads.terminateAll();
});

contract("non-owner spawns (guest threads in workers) skip message-dispatch slots", async (t) => {
  browser(t, { behaviours: ["ready1", "ready2"] });
  const threads = await spawnHost({ poolSize: 2 });
  const guest = createWasiThreadPoolSpawn(poolOf()); // as a worker's guest thread would
  const first = guest(9);
  assert.equal(first.slot, 1, "the protocol-2 slot");
  assert.deepEqual(workers()[0].runs(), []);
  const second = guest(10);
  assert.deepEqual(second, { tid: -1, slot: -1, reason: "pool-exhausted" });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE, "the legacy slot stays free");
  // The owner may use it.
  const tid = threads.threadSpawn(11);
  assert.ok(tid > 0);
  assert.deepEqual(workers()[0].runs(), [{ t: "run", tid, startArg: 11 }]);
  // A decline from another thread is in the pool's count, not the owner's hook.
  assert.equal(threads.spawnReport().declinedByReason["pool-exhausted"], 1);
  assert.equal(threads.spawnCount(), 2);
  await threads.terminateAll();
});

// ---------------------------------------------------------------------------
// After arming: messages and errors (2.7 step 6).

contract("after arming: onerror retires the slot, removes the worker, reports the running tid", async (t) => {
  browser(t, { behaviours: ["ready2", "ready2"] });
  const errors = [];
  const threads = await spawnHost({
    poolSize: 2,
    instanceId: "inst-1",
    onGuestError: (...args) => errors.push(args),
  });
  const [w0, w1] = workers();
  const tid = threads.threadSpawn(1);
  assert.equal(tid, 1);
  w0.take();
  const crash = new Error("worker crashed");
  const event = w0.fail(crash);
  // The error event itself, unchanged, as the SDK passes it: SDK code reads
  // error.message (and .filename, .error ...) off it.
  assert.equal(errors.length, 1);
  assert.equal(errors[0][0], "inst-1");
  assert.equal(errors[0][1], tid);
  assert.equal(errors[0][2], event);
  assert.equal(errors[0][2].message, "worker crashed");
  assert.equal(errors[0][2].error, crash);
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), RETIRED);
  assert.equal(threads.distinctOsThreadCount(), 1);
  assert.equal(threads.spawnReport().idle, 1);
  assert.ok(w0.terminated);
  // Later spawns go to the remaining worker.
  assert.equal(threads.threadSpawn(2), 2);
  assert.equal(wasiThreadPoolLastTid(poolOf(), 1), 2);
  // An idle worker that dies reports tid null.
  w1.take();
  w1.finish();
  w1.fail(new Error("idle crash"));
  assert.equal(errors[1][1], null);
  assert.equal(threads.distinctOsThreadCount(), 0);
  assert.equal(threads.threadSpawn(3), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-exhausted");
  await threads.terminateAll();
});

contract("after arming: a second error from a removed worker is ignored", async (t) => {
  browser(t, { behaviours: ["ready2"] });
  const errors = [];
  const threads = await spawnHost({ poolSize: 1, onGuestError: (...args) => errors.push(args) });
  const [worker] = workers();
  const one = { message: "one" };
  worker.onerror(one);
  worker.onerror({ message: "two" });
  assert.equal(errors.length, 1);
  assert.deepEqual(errors[0], [null, null, one]);
  assert.equal(errors[0][2], one);
  await threads.terminateAll();
});

contract('after arming: {t:"error"} is logged and goes to onGuestError (tid or null)', async (t) => {
  browser(t, { behaviours: ["ready2", "ready2"] });
  const errors = [];
  const threads = await spawnHost({ poolSize: 2, instanceId: 7, onGuestError: (...args) => errors.push(args) });
  const [worker, other] = workers();
  const { calls } = await captureConsoleError(() => {
    worker.emit({ t: "error", tid: 3, error: "unreachable executed" });
    other.emit({ t: "error", error: "no tid" });
  });
  assert.deepEqual(errors, [
    [7, 3, "unreachable executed"],
    [7, null, "no tid"],
  ]);
  assert.deepEqual(calls, [
    ["[wasi-thread] pooled worker guest error:", "unreachable executed"],
    ["[wasi-thread] pooled worker guest error:", "no tid"],
  ]);
  // A pool worker that reported a trap has left its serve loop: its slot is
  // retired (also here, for a worker that reports before it retires) and the
  // worker terminated, as on onerror; later spawns find no slot.
  assert.deepEqual(states(), [RETIRED, RETIRED]);
  assert.ok(worker.terminated && other.terminated);
  assert.equal(threads.distinctOsThreadCount(), 0);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-exhausted");
  await threads.terminateAll();
});

contract('after arming: {t:"error"} from a legacy worker leaves it serving {t:"run"}', async (t) => {
  browser(t, { behaviours: ["ready1"] });
  const errors = [];
  const threads = await spawnHost({ poolSize: 1, onGuestError: (...args) => errors.push(args) });
  const [worker] = workers();
  const tid = threads.threadSpawn(0);
  await captureConsoleError(() => {
    worker.emit({ t: "error", tid, error: "unreachable executed" });
    worker.emit({ t: "exit", tid });
  });
  assert.deepEqual(errors, [[null, tid, "unreachable executed"]]);
  assert.equal(worker.terminated, false);
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);
  assert.equal(threads.threadSpawn(0), tid + 1);
  await threads.terminateAll();
});

contract("probe: a worker that errors after ready, before the decision, is not armed (partial)", async (t) => {
  browser(t, { behaviours: ["ready-then-error", { kind: "ready2", delay: 30 }] });
  const errors = [];
  const threads = await spawnHost({ poolSize: 2, onGuestError: (...args) => errors.push(args) });
  const [w0, w1] = workers();
  assert.deepEqual(states(), [RETIRED, IDLE]);
  assert.ok(w0.terminated);
  assert.equal(w1.terminated, false);
  const report = threads.spawnReport();
  assert.equal(report.armed, 1);
  assert.equal(report.failedToArm, 1);
  assert.equal(threads.distinctOsThreadCount(), 1);
  // Spawns go to the live worker only.
  assert.equal(threads.threadSpawn(0), 1);
  assert.equal(wasiThreadPoolLastTid(poolOf(), 1), 1);
  assert.equal(wasiThreadPoolLastTid(poolOf(), 0), 0);
  assert.deepEqual(errors, [], "a probe failure is not a guest error");
  await threads.terminateAll();
});

contract("probe: a worker that errors after ready, before the decision, disables an implicit pool", async (t) => {
  browser(t, {
    behaviours: ["ready-then-error", { kind: "ready2", delay: 30 }],
    hardwareConcurrency: 3,
  });
  const threads = await spawnHost();
  assert.equal(workers().length, 2);
  assert.deepEqual(states(), [RETIRED, RETIRED]);
  assert.ok(workers().every((worker) => worker.terminated));
  assert.equal(threads.spawnReport().failedToArm, 2);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "pool-not-armed");
  await threads.terminateAll();
});

contract("after arming: throws from onGuestError and onSpawnDeclined are swallowed", async (t) => {
  browser(t, { behaviours: ["ready2", "ready2"] });
  const threads = await spawnHost({
    poolSize: 2,
    onGuestError: () => {
      throw new Error("hook bug");
    },
    onSpawnDeclined: () => {
      throw new Error("hook bug");
    },
  });
  const [trapped, worker] = workers();
  await captureConsoleError(() => trapped.emit({ t: "error", tid: 1, error: "x" }));
  assert.ok(threads.threadSpawn(0) > 0);
  assert.equal(threads.threadSpawn(0), -1);
  worker.fail(new Error("died"));
  assert.equal(threads.threadSpawn(0), -1);
  await threads.terminateAll();
});

contract("after arming: other messages are ignored", async (t) => {
  browser(t, { behaviours: ["ready1"] });
  const threads = await spawnHost({ poolSize: 1 });
  const [worker] = workers();
  const tid = threads.threadSpawn(0);
  worker.emit({ t: "ready", ok: false });
  worker.emit(null);
  worker.emit({ t: "log" });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), ASSIGNED);
  worker.emit({ t: "exit", tid });
  assert.equal(wasiThreadPoolSlotState(poolOf(), 0), IDLE);
  await threads.terminateAll();
});

// ---------------------------------------------------------------------------
// terminateAll.

contract('terminateAll: retires every slot, terminates the workers, later spawns decline "terminated"', async (t) => {
  browser(t, { behaviours: ["ready2", "ready1", "ready2"] });
  const declined = [];
  const threads = await spawnHost({ onSpawnDeclined: (info) => declined.push(info) });
  const tid = threads.threadSpawn(0);
  workers()[0].take();
  assert.equal(await threads.terminateAll(), undefined);
  assert.ok(workers().every((w) => w.terminated));
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
  assert.equal(threads.threadSpawn(1), -1);
  assert.deepEqual(declined, [{ reason: "terminated", poolSize: 3, declined: 1 }]);
  const report = threads.spawnReport();
  assert.equal(report.idle, 0);
  assert.equal(report.active, 0);
  assert.equal(report.spawned, 1);
  assert.equal(report.armed, 3, "the ledger keeps what happened");
  assert.equal(threads.distinctOsThreadCount(), 0);
  assert.equal(threads.activeThreadCount(), 0);
  // A late exit after termination changes nothing.
  workers()[1].terminated = false;
  workers()[1].emit({ t: "exit", tid });
  assert.deepEqual(states(), [RETIRED, RETIRED, RETIRED]);
  // Idempotent.
  await threads.terminateAll();
  assert.equal(threads.threadSpawn(2), -1);
  assert.equal(threads.spawnReport().declinedByReason.terminated, 2);
});

contract('terminateAll: a host that never had threads also declines "terminated" afterwards', async (t) => {
  browser(t, { crossOriginIsolated: false });
  const threads = await spawnHost();
  assert.equal(threads.threadSpawn(0), -1);
  await threads.terminateAll();
  assert.equal(threads.threadSpawn(0), -1);
  assert.deepEqual(threads.spawnReport().declinedByReason, {
    "threads-unavailable": 1,
    terminated: 1,
  });
});

contract("terminateAll: after pool-not-armed the retired slots stay retired", async (t) => {
  browser(t, { behaviours: ["not-ready"] });
  const threads = await spawnHost({ poolSize: 1 });
  await threads.terminateAll();
  assert.deepEqual(states(), [RETIRED]);
  assert.equal(threads.threadSpawn(0), -1);
  assert.equal(threads.spawnReport().lastDeclineReason, "terminated");
});

// ---------------------------------------------------------------------------
// The hostcall stub applies in the browser too, before the gate.

contract("hostcall stub: requiresHostcalls without a channel starts no worker in the browser", async (t) => {
  browser(t);
  const threads = await spawnHost({ requiresHostcalls: true, poolSize: 4 });
  assert.equal(workers().length, 0);
  assert.equal(threads.threadSpawn(0), -1);
  assert.deepEqual(threads.spawnReport(), {
    poolSize: 4,
    armed: 0,
    failedToArm: 0,
    declinedByReason: { "hostcall-channel-missing": 1 },
    lastDeclineReason: "hostcall-channel-missing",
    spawned: 0,
    waited: 0,
    declined: 1,
    active: 0,
  });
});

contract("the pool is always the JS implementation in the browser, whatever `implementation` says", async (t) => {
  browser(t);
  const threads = await spawnHost({ implementation: "native", poolSize: 1 });
  const { wasiThreadPoolImplementationOf } = await import("../lib/pool.browser.js");
  assert.equal(wasiThreadPoolImplementationOf(poolOf()), "js");
  await threads.terminateAll();
});
