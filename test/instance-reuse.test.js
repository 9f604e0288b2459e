// Instance reuse (this package's default, a deliberate difference from the
// SDK): a pool worker runs every thread on the instance its last thread ran
// on; a thread that traps or calls proc_exit leaves its instance behind and
// the next thread gets a fresh one; freshInstances: true gives every thread a
// fresh instance (the SDK's behaviour). The guest (fixtures/instance-state.wat)
// counts its runs in a mutable global, so a thread sees 1 on a fresh instance
// and n on the instance's n-th thread.
//
// Through the Node host on both pool implementations, through the runtime on
// this thread, and through the browser worker entry (legacy {t:"run"} path,
// in a Node worker thread).

import assert from "node:assert/strict";
import { test, describe } from "node:test";
import { Worker } from "node:worker_threads";
import { createWasiThreadSpawn } from "../lib/host/host.js";
import { WasiExitError, createThreadRunner, createWasiThreadWorkerRuntime } from "../lib/worker/runtime.js";
import { compileFixture, sharedMemory } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";

const guest = await compileFixture("instance-state");

const NORMAL = 0;
const TRAP = 1;
const EXIT = 2;
const RECORD = 16;

// Runs one thread for the record at `addr` and waits until it has written
// its record; returns {runs, tid}.
async function runOne(spawn, memory, addr, mode) {
  const words = new Int32Array(memory.buffer);
  words.fill(0, addr / 4, addr / 4 + RECORD / 4);
  Atomics.store(words, addr / 4, mode);
  const tid = spawn(addr);
  assert.ok(tid > 0, `spawn declined (${tid})`);
  const done = addr / 4 + 3;
  const deadline = Date.now() + 20000;
  while (Atomics.load(words, done) === 0) {
    assert.ok(Date.now() < deadline, "the thread never wrote its record");
    // Off the main thread's event loop only briefly: the host's error events
    // (a trap) must still be delivered.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.equal(Atomics.load(words, addr / 4 + 2), tid);
  return Atomics.load(words, addr / 4 + 1);
}

// After a thread's record is written its slot leaves RUNNING a moment later
// (or is retired, after a trap); the next spawn must find it settled, or a
// growing pool could start a second worker for it.
async function settled(host) {
  const deadline = Date.now() + 20000;
  while (host.activeThreadCount() !== 0) {
    assert.ok(Date.now() < deadline, "a thread stayed active");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function runSequence(host, memory, modes) {
  const seen = [];
  for (let i = 0; i < modes.length; i++) {
    await settled(host);
    seen.push(await runOne(host.threadSpawn, memory, 64 + i * RECORD, modes[i]));
  }
  await settled(host);
  return seen;
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`Node host, ${implementation} pool`, () => {
    test("default: a worker's threads share its instance (a mutable global counts on); proc_exit leaves it behind", async () => {
      const memory = sharedMemory();
      // One worker: every thread runs on it.
      const host = await createWasiThreadSpawn({ wasmModule: guest, memory, poolSize: 1, spawnWaitMs: 20000, implementation });
      try {
        const seen = await runSequence(host, memory, [NORMAL, NORMAL, NORMAL, EXIT, NORMAL, NORMAL]);
        assert.deepEqual(seen, [1, 2, 3, 4, 1, 2]);
        assert.equal(host.distinctOsThreadCount(), 1);
      } finally {
        await host.terminateAll();
      }
    });

    test("default: the thread after a trap gets a fresh instance", async () => {
      const memory = sharedMemory();
      const errors = [];
      // Two slots: the trap retires the first worker's; the next thread grows
      // the second (the only room left, so it also runs the thread after).
      const host = await createWasiThreadSpawn({
        wasmModule: guest,
        memory,
        poolSize: 2,
        spawnWaitMs: 20000,
        implementation,
        onGuestError: (_id, tid, error) => errors.push({ tid, error }),
      });
      try {
        const seen = await runSequence(host, memory, [NORMAL, NORMAL, TRAP, NORMAL, NORMAL]);
        assert.deepEqual(seen, [1, 2, 3, 1, 2]);
        assert.equal(host.distinctOsThreadCount(), 2);
        // The trap is reported as before (when the owner's loop runs).
        const deadline = Date.now() + 20000;
        while (errors.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.equal(errors.length, 1);
        assert.equal(errors[0].tid, 3);
      } finally {
        await host.terminateAll();
      }
    });

    test("freshInstances: true: every thread gets a fresh instance (the SDK's behaviour)", async () => {
      const memory = sharedMemory();
      const host = await createWasiThreadSpawn({
        wasmModule: guest,
        memory,
        poolSize: 1,
        spawnWaitMs: 20000,
        implementation,
        freshInstances: true,
      });
      try {
        const seen = await runSequence(host, memory, [NORMAL, NORMAL, EXIT, NORMAL]);
        assert.deepEqual(seen, [1, 1, 1, 1]);
        assert.equal(host.distinctOsThreadCount(), 1);
      } finally {
        await host.terminateAll();
      }
    });
  });
}

test("createWasiThreadSpawn: freshInstances must be a boolean", async () => {
  for (const bad of [1, "true", {}]) {
    await assert.rejects(
      createWasiThreadSpawn({ wasmModule: guest, memory: sharedMemory(), freshInstances: bad }),
      (error) => error instanceof TypeError && /freshInstances/.test(error.message),
    );
  }
});

// ---------------------------------------------------------------------------
// The runtime on this thread.

function threadOn(run, memory, addr, mode) {
  const words = new Int32Array(memory.buffer);
  Atomics.store(words, addr / 4, mode);
  Atomics.store(words, addr / 4 + 3, 0);
  let thrown = null;
  try {
    run(7, addr);
  } catch (error) {
    thrown = error;
  }
  return { runs: Atomics.load(words, addr / 4 + 1), thrown };
}

test("runtime.runThread: reuse by default; a trap or proc_exit drops the instance", () => {
  const memory = sharedMemory();
  const runtime = createWasiThreadWorkerRuntime({ wasmModule: guest, memory });
  assert.equal(runtime.freshInstances, false);
  const run = (tid, arg) => runtime.runThread(tid, arg);
  assert.equal(threadOn(run, memory, 64, NORMAL).runs, 1);
  assert.equal(threadOn(run, memory, 64, NORMAL).runs, 2);
  const exited = threadOn(run, memory, 64, EXIT);
  assert.equal(exited.runs, 3);
  assert.ok(exited.thrown instanceof WasiExitError);
  assert.equal(threadOn(run, memory, 64, NORMAL).runs, 1);
  const trapped = threadOn(run, memory, 64, TRAP);
  assert.equal(trapped.runs, 2);
  assert.ok(trapped.thrown instanceof WebAssembly.RuntimeError);
  assert.equal(threadOn(run, memory, 64, NORMAL).runs, 1);
  // instantiate() keeps the SDK's meaning: a fresh instance every call.
  assert.notEqual(runtime.instantiate(), runtime.instantiate());
  runtime.close();
});

test("runtime.runThread with freshInstances: true: a fresh instance per thread", () => {
  const memory = sharedMemory();
  const runtime = createWasiThreadWorkerRuntime({ wasmModule: guest, memory, freshInstances: true });
  assert.equal(runtime.freshInstances, true);
  const run = (tid, arg) => runtime.runThread(tid, arg);
  for (let i = 0; i < 3; i++) assert.equal(threadOn(run, memory, 64, NORMAL).runs, 1);
  runtime.close();
});

test("createThreadRunner over any runtime with instantiate(): adopts the probe instance unless fresh", () => {
  const memory = sharedMemory();
  for (const freshInstances of [false, true]) {
    let made = 0;
    const plugged = createWasiThreadWorkerRuntime({ wasmModule: guest, memory });
    const counting = { instantiate: () => (made++, plugged.instantiate()) };
    const runner = createThreadRunner(counting, { freshInstances });
    runner.adopt(counting.instantiate());
    const run = (tid, arg) => runner.run(tid, arg);
    const seen = [0, 1, 2].map(() => threadOn(run, memory, 64, NORMAL).runs);
    assert.deepEqual(seen, freshInstances ? [1, 1, 1] : [1, 2, 3]);
    assert.equal(made, freshInstances ? 4 : 1);
  }
});

// ---------------------------------------------------------------------------
// The browser worker entry, legacy {t:"run"} path (no pool), in a Node worker.

const BROWSER_WORKER_URL = new URL("./support/guest-browser-worker.js", import.meta.url);

async function browserWorkerRuns(freshInstances) {
  const memory = sharedMemory();
  const words = new Int32Array(memory.buffer);
  const worker = new Worker(BROWSER_WORKER_URL, { execArgv: [] });
  const messages = [];
  let wake = null;
  worker.on("message", (message) => {
    messages.push(message);
    wake?.();
  });
  const next = async (t) => {
    const deadline = Date.now() + 20000;
    for (;;) {
      const index = messages.findIndex((m) => m.t === t);
      if (index >= 0) return messages.splice(index, 1)[0];
      assert.ok(Date.now() < deadline, `no ${t} message`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  try {
    const probe = {
      t: "probe",
      wasmModule: guest,
      memory,
      hostcallChannel: null,
      processState: undefined,
      extraImports: [],
      workerIndex: 0,
    };
    if (freshInstances) probe.freshInstances = true;
    worker.postMessage(probe);
    assert.equal((await next("ready")).ok, true);
    const seen = [];
    for (const [i, mode] of [NORMAL, NORMAL, EXIT, NORMAL].entries()) {
      const addr = 64 + i * RECORD;
      Atomics.store(words, addr / 4, mode);
      worker.postMessage({ t: "run", tid: 100 + i, startArg: addr });
      assert.deepEqual(await next("exit"), { t: "exit", tid: 100 + i });
      seen.push(Atomics.load(words, addr / 4 + 1));
    }
    return seen;
  } finally {
    await worker.terminate();
  }
}

test("browser worker: reuse by default, proc_exit leaves the instance behind", async () => {
  assert.deepEqual(await browserWorkerRuns(false), [1, 2, 3, 1]);
});

test("browser worker: freshInstances in the probe gives a fresh instance per thread", async () => {
  assert.deepEqual(await browserWorkerRuns(true), [1, 1, 1, 1]);
});
