// A drop-in accepts what the SDK's host accepts (SDK-CONTRACT 2.2, 2.6, 2.7,
// 3.4): the host posts `wasmModule` to its workers and never inspects it, so
// an SDK test may hand it a stand-in ({ __mockModule: true }) or nothing at
// all. Neither host reads such a value: no memory pass, no page counter, no
// warning; it reaches the workers as it was given, and a worker that cannot
// instantiate it reports that the way the contract's workers do.
//
// test/host-browser.test.js runs every browser path (each gate, decline and
// error) with a stand-in as well as a compiled module; this file covers what
// is particular to the stand-in and to a missing module, on both hosts. The
// Node host runs in child processes: a warning is emitted once per process.

import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { captureConsoleError, importBrowserHost, installBrowserGlobals, sharedMemory } from "./support/host-env.js";
import { MockWorker } from "./support/mock-worker.js";
import { WASI_THREAD_POOL_SLOT, wasiThreadPoolSlotState } from "../lib/pool.browser.js";

const { createWasiThreadSpawn } = await importBrowserHost();
const CHILD = fileURLToPath(new URL("./support/sdk-contract-node-child.js", import.meta.url));
const WORKER_URL = "https://app.test/wasiThreadBrowserWorker.mjs";

function runNodeChild(kind) {
  const child = spawnSync(process.execPath, [CHILD, kind], { encoding: "utf8", timeout: 60_000 });
  assert.equal(child.status, 0, `child (${kind}) failed: ${child.stderr}`);
  return { ...JSON.parse(child.stdout.trim().split("\n").at(-1)), stderr: child.stderr };
}

// Warnings this process emits while `fn` runs (and the tick after it).
async function warningsDuring(fn) {
  const warnings = [];
  const listener = (warning) => warnings.push(warning.name);
  process.on("warning", listener);
  try {
    const result = await fn();
    await new Promise((resolve) => setImmediate(resolve));
    return { result, warnings };
  } finally {
    process.off("warning", listener);
  }
}

function browser(t, options = {}) {
  MockWorker.script([], "ready2");
  t.after(installBrowserGlobals(options));
}

for (const [kind, wasmModule] of [
  ["a stand-in", { __mockModule: true }],
  ["no", undefined],
]) {
  test(`browser host, ${kind} module: the probe carries it untouched, the memory is not grown, no warning`, async (t) => {
    browser(t);
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
    const { result: threads, warnings } = await warningsDuring(() =>
      createWasiThreadSpawn({ wasmModule, memory, browserWorkerUrl: WORKER_URL, spawnWaitMs: 0 }),
    );
    assert.deepEqual(warnings, []);
    assert.equal(MockWorker.instances.length, 3);
    for (const worker of MockWorker.instances) {
      assert.equal(worker.probe.wasmModule, wasmModule);
      assert.equal("memoryPages" in worker.probe, false);
    }
    assert.equal(memory.buffer.byteLength, 65536);
    const tid = threads.threadSpawn(5);
    assert.equal(tid, 1);
    const pool = MockWorker.instances[0].probe.pool;
    assert.equal(wasiThreadPoolSlotState(pool, 0), WASI_THREAD_POOL_SLOT.ASSIGNED);
    await threads.terminateAll();
    assert.equal(threads.threadSpawn(5), -1);
    assert.equal(threads.spawnReport().lastDeclineReason, "terminated");
  });

  test(`browser host, ${kind} module: without threads every spawn declines threads-unavailable`, async (t) => {
    browser(t, { crossOriginIsolated: false });
    const declined = [];
    const threads = await createWasiThreadSpawn({
      wasmModule,
      memory: sharedMemory(),
      onSpawnDeclined: (event) => declined.push(event),
    });
    assert.equal(MockWorker.instances.length, 0);
    assert.equal(threads.threadSpawn(0), -1);
    assert.deepEqual(declined, [{ reason: "threads-unavailable", poolSize: 0, declined: 1 }]);
  });

  test(`browser host, ${kind} module: an unreachable worker is WasiThreadWorkerUnreachableError`, async (t) => {
    MockWorker.script(["error-before"], "ready2");
    t.after(installBrowserGlobals());
    const { result: error } = await captureConsoleError(() =>
      createWasiThreadSpawn({ wasmModule, memory: sharedMemory(), browserWorkerUrl: WORKER_URL }).then(
        () => assert.fail("expected a rejection"),
        (rejection) => rejection,
      ),
    );
    assert.equal(error.name, "WasiThreadWorkerUnreachableError");
    assert.equal(error.workerUrl, WORKER_URL);
  });
}

// The Node host: the module goes to the worker as given; the worker cannot
// instantiate it, says so on stderr, retires its slot, and the owner's
// onGuestError hears of the thread it was started for (SDK-CONTRACT 3.4).
for (const kind of ["stand-in", "missing"]) {
  test(`Node host, ${kind} module: no warning, the spawn is made, the worker reports it cannot instantiate`, () => {
    const { warnings, tid, error, report, stderr } = runNodeChild(kind);
    assert.deepEqual(warnings, []);
    assert.equal(tid, 1);
    assert.equal(error.instanceId, "contract");
    assert.equal(error.tid, 1);
    assert.equal(error.name, "TypeError");
    assert.match(error.message, /wasmModule/);
    assert.match(stderr, /\[wasi-thread\] guest thread 1 failed to instantiate: TypeError: .*wasmModule/);
    assert.equal(report.spawned, 1);
    assert.equal(report.active, 0);
  });
}
