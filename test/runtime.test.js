// The per-thread worker runtime (lib/worker/runtime.js), on this thread: import
// object shape, WASI over an imported shared memory, extraImports, the
// refusals, WasiExitError; and the browser worker chain's imports.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  HOSTCALL_IMPORT_MODULE,
  WASI_THREAD_HOSTCALL_MESSAGE,
  WasiExitError,
  createWasiThreadWorkerRuntime,
  mergeImportFragments,
  resolveExtraImports,
  resolveModuleExtraImports,
} from "../lib/worker/runtime.js";
import { compileFixture, sharedMemory, watToBytes } from "./fixtures/build.js";

const EXTRA_FACTORY_URL = new URL("./support/guest-extra-factory.js", import.meta.url).href;
const threads = await compileFixture("threads");
const extraGuest = await compileFixture("extra");

function runtimeFor(options = {}) {
  const memory = options.memory ?? sharedMemory();
  return { memory, runtime: createWasiThreadWorkerRuntime({ wasmModule: threads, memory, ...options }) };
}

test("exports the SDK's names and values", () => {
  assert.equal(WASI_THREAD_HOSTCALL_MESSAGE, "sdm.thread-hostcall");
  assert.equal(HOSTCALL_IMPORT_MODULE, "space_data_module_host");
});

test("import object: WASI preview1, env.memory, wasi.thread-spawn", () => {
  const spawn = () => 42;
  const { memory, runtime } = runtimeFor({ threadSpawn: spawn });
  const { imports } = runtime;
  assert.deepEqual(Object.keys(imports).sort(), ["env", "wasi", "wasi_snapshot_preview1"]);
  assert.equal(imports.env.memory, memory);
  assert.equal(imports.wasi["thread-spawn"], spawn);
  for (const name of [
    "clock_time_get",
    "fd_write",
    "fd_read",
    "fd_close",
    "fd_seek",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "path_open",
    "environ_sizes_get",
    "environ_get",
    "args_sizes_get",
    "args_get",
    "random_get",
    "proc_exit",
    "sched_yield",
    "poll_oneoff",
  ]) {
    assert.equal(typeof imports.wasi_snapshot_preview1[name], "function", name);
  }
  assert.equal(typeof runtime.instantiate, "function");
  assert.equal(typeof runtime.close, "function");
});

test("without threadSpawn, a guest thread's spawn returns -1", () => {
  const { runtime } = runtimeFor();
  assert.equal(runtime.imports.wasi["thread-spawn"](0), -1);
});

test("instantiate() makes a fresh instance each time over the same memory", () => {
  const { memory, runtime } = runtimeFor();
  const a = runtime.instantiate();
  const b = runtime.instantiate();
  assert.notEqual(a, b);
  assert.ok(a instanceof WebAssembly.Instance);
  const words = new Int32Array(memory.buffer);
  Atomics.store(words, 2, 1);
  a.exports.wasi_thread_start(5, 3); // a plain thread: SUM += 3, PENDING -= 1
  assert.equal(words[1], 3);
  assert.equal(words[2], 0);
  assert.equal(words[4], 5);
});

test("fd_write on fds 1 and 2 goes to writeOutput, copied out of shared memory", () => {
  const writes = [];
  const { memory, runtime } = runtimeFor({ writeOutput: (fd, bytes) => writes.push([fd, bytes]) });
  const instance = runtime.instantiate();
  const words = new Int32Array(memory.buffer);
  Atomics.store(words, 2, 2);
  instance.exports.wasi_thread_start(1, 4 << 16);
  instance.exports.wasi_thread_start(2, 6 << 16);
  assert.deepEqual(
    writes.map(([fd]) => fd),
    [1, 2],
  );
  for (const [, bytes] of writes) {
    assert.ok(!(bytes.buffer instanceof SharedArrayBuffer));
    assert.equal(new TextDecoder().decode(bytes), "hello from a guest thread\n");
  }
});

test("a failing writeOutput is an errno for the guest, not a trap", () => {
  const { memory, runtime } = runtimeFor({
    writeOutput: () => {
      throw Object.assign(new Error("gone"), { code: "EPIPE" });
    },
  });
  const view = new DataView(memory.buffer);
  view.setUint32(200, 64, true);
  view.setUint32(204, 4, true);
  assert.equal(runtime.imports.wasi_snapshot_preview1.fd_write(1, 200, 1, 208), 64 /* EPIPE */);
});

test("args and env come from processState ({args, env}); sizes count UTF-8 bytes", () => {
  const { memory, runtime } = runtimeFor({
    processState: { args: ["prog", "é"], env: { A: "1", B: "ü" } },
  });
  const wasi = runtime.imports.wasi_snapshot_preview1;
  const view = new DataView(memory.buffer);
  assert.equal(wasi.args_sizes_get(100, 104), 0);
  assert.equal(view.getUint32(100, true), 2);
  assert.equal(view.getUint32(104, true), 5 + 3); // "prog\0" + "é\0" (2 bytes + NUL)
  assert.equal(wasi.args_get(200, 300), 0);
  const bytes = new Uint8Array(memory.buffer);
  assert.equal(new TextDecoder().decode(bytes.slice(300, 308)), "prog\0é\0");
  assert.equal(wasi.environ_sizes_get(100, 104), 0);
  assert.equal(view.getUint32(100, true), 2);
  assert.equal(view.getUint32(104, true), 4 + 5); // "A=1\0" + "B=ü\0"
});

test("stdin reads the SDK-shaped shared process input once, across runtimes", () => {
  const input = new Uint8Array(new SharedArrayBuffer(6));
  input.set(new TextEncoder().encode("abcdef"));
  const control = new Int32Array(new SharedArrayBuffer(20));
  const processState = { args: [], env: {}, input, control };
  const memory = sharedMemory();
  const one = createWasiThreadWorkerRuntime({ wasmModule: threads, memory, processState });
  const two = createWasiThreadWorkerRuntime({ wasmModule: threads, memory, processState });
  const view = new DataView(memory.buffer);
  const read = (runtime, length) => {
    view.setUint32(400, 500, true);
    view.setUint32(404, length, true);
    assert.equal(runtime.imports.wasi_snapshot_preview1.fd_read(0, 400, 1, 408), 0);
    const n = view.getUint32(408, true);
    return new TextDecoder().decode(new Uint8Array(memory.buffer).slice(500, 500 + n));
  };
  assert.equal(read(one, 4), "abcd");
  assert.equal(read(two, 4), "ef");
  assert.equal(read(one, 4), "");
});

test("proc_exit throws WasiExitError (by name, with code) and records the exit in an SDK-shaped state", () => {
  const control = new Int32Array(new SharedArrayBuffer(20));
  const { runtime } = runtimeFor({ processState: { control } });
  assert.throws(
    () => runtime.imports.wasi_snapshot_preview1.proc_exit(3),
    (error) => error instanceof WasiExitError && error.name === "WasiExitError" && error.code === 3,
  );
  assert.equal(control[3], 1);
  assert.equal(control[4], 3);
});

test("random_get fills shared memory with crypto randomness", () => {
  const { memory, runtime } = runtimeFor();
  assert.equal(runtime.imports.wasi_snapshot_preview1.random_get(1000, 256), 0);
  const bytes = new Uint8Array(memory.buffer, 1000, 256);
  assert.ok(new Set(bytes).size > 32);
});

test("poll_oneoff sleeps for a relative clock subscription and reports one event", () => {
  const { memory, runtime } = runtimeFor();
  const view = new DataView(memory.buffer);
  // subscription at 600: userdata 9, eventtype clock (0), clock monotonic, 30 ms, relative
  view.setBigUint64(600, 9n, true);
  view.setUint8(608, 0);
  view.setUint32(616, 1, true);
  view.setBigUint64(624, 30_000_000n, true);
  view.setUint16(636, 0, true);
  const started = performance.now();
  assert.equal(runtime.imports.wasi_snapshot_preview1.poll_oneoff(600, 700, 1, 800), 0);
  assert.ok(performance.now() - started >= 25);
  assert.equal(view.getBigUint64(700, true), 9n);
  assert.equal(view.getUint32(800, true), 1);
});

test("extraImports: plain functions and {factory, config}; context; {imports, close}; merge per module", async () => {
  const seen = [];
  let closed = 0;
  const entries = [
    (ctx) => {
      seen.push(ctx);
      return { extra: { value: () => 1, other: () => 7 } };
    },
    {
      factory: (ctx) => {
        seen.push(ctx);
        return { imports: { extra: { value: () => 2 } }, close: () => closed++ };
      },
      config: { knob: true },
    },
    () => null, // contributes nothing
  ];
  const memory = sharedMemory();
  const runtime = createWasiThreadWorkerRuntime({ wasmModule: extraGuest, memory, extraImports: entries, workerIndex: 3 });
  assert.equal(runtime.imports.extra.value(), 2, "a later fragment wins within a module");
  assert.equal(runtime.imports.extra.other(), 7, "merging is per module, shallow");
  assert.equal(seen.length, 2);
  assert.equal(seen[0].config, null);
  assert.deepEqual(seen[1].config, { knob: true });
  for (const ctx of seen) {
    assert.equal(ctx.memory, memory);
    assert.equal(ctx.getMemory(), memory);
    assert.equal(ctx.workerIndex, 3);
    assert.equal(ctx.tid, null);
  }
  const instance = runtime.instantiate();
  assert.ok(instance);
  runtime.close();
  assert.equal(closed, 1);
});

test("the shared memory always wins over a fragment's env.memory", () => {
  const memory = sharedMemory();
  const other = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  const runtime = createWasiThreadWorkerRuntime({
    wasmModule: threads,
    memory,
    extraImports: [() => ({ env: { memory: other, helper: () => 0 } })],
  });
  assert.equal(runtime.imports.env.memory, memory);
  assert.equal(typeof runtime.imports.env.helper, "function");
});

test("mergeImportFragments is shallow per module", () => {
  const merged = mergeImportFragments({ a: { x: 1, y: 1 } }, [{ a: { y: 2 }, b: { z: 3 } }, null]);
  assert.deepEqual(merged, { a: { x: 1, y: 2 }, b: { z: 3 } });
});

test("resolveModuleExtraImports imports {moduleUrl, exportName, config} and passes others through", async () => {
  const fn = () => ({});
  const resolved = await resolveModuleExtraImports([
    { moduleUrl: EXTRA_FACTORY_URL, config: { value: 4 } },
    { moduleUrl: EXTRA_FACTORY_URL, exportName: "named" },
    fn,
  ]);
  assert.equal(typeof resolved[0].factory, "function");
  assert.deepEqual(resolved[0].config, { value: 4 });
  assert.equal(resolved[1].config, null);
  assert.equal(resolved[2], fn);
  const { fragments } = resolveExtraImports(resolved.slice(0, 2), {
    memory: null,
    getMemory: () => null,
    workerIndex: 0,
    tid: null,
  });
  assert.equal(fragments[0].extra.value(), 4);
  assert.equal(fragments[1].extra.value(), 100);
  await assert.rejects(resolveModuleExtraImports([{ moduleUrl: EXTRA_FACTORY_URL, exportName: "nope" }]), {
    name: "TypeError",
    message: `extraImports module ${EXTRA_FACTORY_URL} exports no factory "nope".`,
  });
});

test("unresolvable extraImports entries throw the SDK's TypeError", () => {
  const make = (entry) => () =>
    createWasiThreadWorkerRuntime({ wasmModule: threads, memory: sharedMemory(), extraImports: [entry] });
  assert.throws(make({ something: 1 }), {
    name: "TypeError",
    message:
      'Unresolvable extraImports entry {"something":1}; pass a factory function, a { provider: "flatsql-io" } descriptor, or (module workers) a { moduleUrl } descriptor.',
  });
  assert.throws(make(42), { name: "TypeError", message: /^Unresolvable extraImports entry 42;/ });
  // The SDK's own providers: a clear pointer to runtimeModule.
  assert.throws(make({ provider: "flatsql-io", instanceId: 1, channels: [new SharedArrayBuffer(8)] }), {
    name: "TypeError",
    message: /^Unresolvable extraImports entry .*"flatsql-io" provider belongs to space-data-module-sdk.*runtimeModule/,
  });
  assert.throws(make({ moduleUrl: EXTRA_FACTORY_URL }), { name: "TypeError", message: /resolveModuleExtraImports/ });
});

test("a guest importing space_data_module_host needs a pluggable runtime or a fragment", async () => {
  const bytes = await watToBytes(`(module
    (import "env" "memory" (memory 1 1 shared))
    (import "space_data_module_host" "call" (func (param i32 i32 i32 i32) (result i32)))
    (func (export "wasi_thread_start") (param i32 i32)))`);
  const wasmModule = new WebAssembly.Module(bytes);
  assert.throws(() => createWasiThreadWorkerRuntime({ wasmModule, memory: sharedMemory() }), {
    message: /imports space_data_module_host needs space-data-module-sdk's hostcall bridge.*runtimeModule/,
  });
  const runtime = createWasiThreadWorkerRuntime({
    wasmModule,
    memory: sharedMemory(),
    extraImports: [() => ({ space_data_module_host: { call: () => 0 } })],
  });
  assert.ok(runtime.instantiate());
});

test("createWasiThreadSpawn refuses a function in extraImports (it cannot reach a worker)", async () => {
  const { createWasiThreadSpawn } = await import("../lib/host/host.js");
  await assert.rejects(createWasiThreadSpawn({ wasmModule: threads, memory: sharedMemory(), extraImports: [() => ({})] }), {
    name: "TypeError",
    message:
      'createWasiThreadSpawn extraImports must be structured-cloneable descriptors (e.g. { provider: "flatsql-io", instanceId, channels }) or { moduleUrl } entries: a function cannot cross into a worker thread.',
  });
});

// The browser worker must load in a browser: only relative imports of
// browser-safe files, and the WASI shim, which a bundle inlines.
test("the browser worker chain imports no node: module and no addon", () => {
  const allowedBare = new Set(["@bjorn3/browser_wasi_shim"]);
  const seen = new Set();
  const visit = (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const source = readFileSync(url, "utf8");
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']/g)].map((m) => m[1]);
    assert.ok(!/\bimport\s*\(\s*["']node:/.test(source), `${url.pathname} imports a node: module dynamically`);
    for (const specifier of specifiers) {
      assert.ok(!specifier.startsWith("node:"), `${url.pathname} imports ${specifier}`);
      if (specifier.startsWith(".")) {
        assert.ok(
          !/binding|\.node$|pool\.js$|host-node|worker-node|liftoff/.test(specifier),
          `${url.pathname} imports ${specifier}`,
        );
        visit(new URL(specifier, url));
      } else {
        assert.ok(allowedBare.has(specifier), `${url.pathname} imports ${specifier}`);
      }
    }
  };
  visit(new URL("../lib/wasiThreadBrowserWorker.mjs", import.meta.url));
  assert.ok([...seen].some((href) => href.endsWith("/lib/pool/internal.js")));
  assert.ok([...seen].some((href) => href.endsWith("/lib/worker/runtime.js")));
});

// ---------------------------------------------------------------------------
// The browser worker's protocol (SDK-CONTRACT 3.2), run in Node worker
// threads through test/support/guest-browser-worker.js, with the owner's side
// played here the way lib/host/host.js's browser branch plays it.

const browserPool = await import("../lib/pool.browser.js");
const { Worker } = await import("node:worker_threads");
const BROWSER_WORKER_URL = new URL("./support/guest-browser-worker.js", import.meta.url);

function startBrowserWorker() {
  const worker = new Worker(BROWSER_WORKER_URL, { execArgv: [] });
  const messages = [];
  const waiters = [];
  worker.on("message", (message) => {
    messages.push(message);
    for (const waiter of waiters.splice(0)) waiter();
  });
  async function next(predicate, timeoutMs = 15000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = messages.findIndex(predicate);
      if (index >= 0) return messages.splice(index, 1)[0];
      if (Date.now() > deadline) throw new Error("no such message from the browser worker");
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  return { worker, next };
}

const probeMessage = (extra) => ({
  t: "probe",
  hostcallChannel: null,
  processState: undefined,
  extraImports: [],
  ...extra,
});

test("browser worker: probe -> ready protocol 2, serves its slot, guest threads spawn threads, trap -> error", async () => {
  const memory = sharedMemory();
  const words = new Int32Array(memory.buffer);
  const pool = browserPool.createWasiThreadPool({ capacity: 2, spawnWaitMs: 250 });
  browserPool.openWasiThreadPoolSlots(pool, 2);
  const workers = [startBrowserWorker(), startBrowserWorker()];
  try {
    workers.forEach(({ worker }, slot) =>
      worker.postMessage(probeMessage({ wasmModule: threads, memory, workerIndex: slot, pool, slot })),
    );
    for (const { next } of workers) {
      assert.deepEqual(await next((m) => m.t === "ready"), { t: "ready", ok: true, protocol: 2 });
    }
    for (let slot = 0; slot < 2; slot++) browserPool.armWasiThreadPoolSlot(pool, slot);
    const spawn = browserPool.createWasiThreadPoolSpawn(pool, { owner: true });
    const main = createWasiThreadWorkerRuntime({ wasmModule: threads, memory, threadSpawn: (a) => spawn(a).tid }).instantiate()
      .exports;
    assert.equal(main.spawn_join(4, 3), 4);
    assert.equal(words[1], 12);
    // A coordinator on one worker spawns a child onto the other (no grow).
    assert.equal(main.spawn_join(1, (1 << 16) | 1), 1);
    assert.equal(words[1], 13);
    assert.equal(words[3], 0, "no declined spawn");
    // A trap: {t:"error"} to the owner, and the slot is retired.
    const { tid } = spawn(2 << 16);
    assert.ok(tid > 0);
    const found = await Promise.race(
      workers.map(({ next }, slot) => next((m) => m.t === "error").then((message) => ({ message, slot }))),
    );
    assert.deepEqual(found.message, { t: "error", tid, error: "unreachable" });
    // The worker retires its slot before it reports: the slot was already
    // RETIRED when {t:"error"} was posted (the bridge in
    // test/support/guest-browser-worker.js read it then), so whoever receives
    // the error sees it retired.
    const atPost = await workers[found.slot].next((m) => m.t === "slot-state-at-error");
    assert.equal(atPost.state, browserPool.WASI_THREAD_POOL_SLOT.RETIRED);
    assert.equal(browserPool.wasiThreadPoolSlotState(pool, found.slot), browserPool.WASI_THREAD_POOL_SLOT.RETIRED);
  } finally {
    for (let slot = 0; slot < 2; slot++) browserPool.retireWasiThreadPoolSlot(pool, slot);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
});

test("browser worker: legacy {t:run} without a pool answers {t:exit}", async () => {
  const memory = sharedMemory();
  const words = new Int32Array(memory.buffer);
  const { worker, next } = startBrowserWorker();
  try {
    worker.postMessage(probeMessage({ wasmModule: threads, memory, workerIndex: 0 }));
    assert.deepEqual(await next((m) => m.t === "ready"), { t: "ready", ok: true, protocol: 2 });
    Atomics.store(words, 2, 1);
    worker.postMessage({ t: "run", tid: 77, startArg: 5 });
    assert.deepEqual(await next((m) => m.t === "exit"), { t: "exit", tid: 77 });
    assert.equal(words[1], 5);
    assert.equal(words[4], 77);
  } finally {
    await worker.terminate();
  }
});

test("browser worker: a module it cannot instantiate answers ready ok:false with the error", async () => {
  const { worker, next } = startBrowserWorker();
  try {
    worker.postMessage(
      probeMessage({ wasmModule: await compileFixture("needs-import"), memory: sharedMemory(), workerIndex: 0 }),
    );
    const ready = await next((m) => m.t === "ready");
    assert.equal(ready.ok, false);
    assert.match(ready.error, /custom/);
  } finally {
    await worker.terminate();
  }
});
