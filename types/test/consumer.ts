// A consumer of the package's declarations: `npx tsc -p types/test` must
// pass. Imports go through the package's own name, so the "exports" map and
// its "types" conditions are checked too. Lines marked @ts-expect-error must
// fail to type-check.

import {
  createWasiThreadSpawn,
  createWasiThreadPool,
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  WASI_THREAD_POOL_SLOT,
  WasiThreadWorkerUnreachableError,
  type WasiThreadHost,
  type WasiThreadSpawnReport,
  type WasiThreadSpawnDeclineReason,
} from "wasi-thread-pool";
import * as pool from "wasi-thread-pool/pool";
import * as host from "wasi-thread-pool/host";
import * as runtime from "wasi-thread-pool/runtime";

const wait: 250 = DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
const retired: 5 = WASI_THREAD_POOL_SLOT.RETIRED;

// The pool API.
const p = createWasiThreadPool({ capacity: 4, spawnWaitMs: 0, implementation: "js" });
pool.openWasiThreadPoolSlots(p, 4);
pool.armWasiThreadPoolSlot(p, 0, { messageDispatch: true });
const state: pool.WasiThreadPoolSlotState = pool.wasiThreadPoolSlotState(p, 0);
const running: number | null = pool.wasiThreadPoolRunningTid(p, 0);
const released: boolean = pool.releaseWasiThreadPoolSlotIfRunning(p, 0, 1);
const taken = pool.takeWasiThreadPoolAssignment(p, 0);
if (taken) {
  const tid: number = taken.tid;
  const arg: number = taken.startArg;
  void [tid, arg];
}
const spawn = pool.createWasiThreadPoolSpawn(p, {
  owner: true,
  grow: (slot) => void slot,
  dispatchMessage: (slot, tid, startArg) => void [slot, tid, startArg],
});
const result = spawn(0);
if (result.reason === null) {
  const ok: number = result.tid;
  void ok;
} else {
  const minusOne: -1 = result.tid;
  const why: pool.WasiThreadPoolDeclineReason = result.reason;
  void [minusOne, why];
}
const counts = pool.readWasiThreadPoolReport(p);
const workers: number = counts.workers;
const info = pool.getWasiThreadPoolImplementation();
const impl: "native" | "js" = info.implementation;
const nativeError: string | null = info.native.error;
const of: "native" | "js" = pool.wasiThreadPoolImplementationOf(p);
const retiredCount: number = pool.terminateWasiThreadPool(p);
const closed: boolean = pool.wasiThreadPoolTerminated(p);
const terminatedReason: pool.WasiThreadPoolDeclineReason = "terminated";
void [retiredCount, closed, terminatedReason];
pool.serveWasiThreadPoolSlot(p, 1, { runThread: (tid, startArg) => tid + startArg > 0, osThreadId: 3 });
const resolved: number = pool.resolveSpawnWaitMs(undefined);

// @ts-expect-error capacity is required
createWasiThreadPool({});
// @ts-expect-error implementation is "native" | "js"
createWasiThreadPool({ capacity: 1, implementation: "wasm" });

// The host.
async function main(wasmModule: WebAssembly.Module, memory: WebAssembly.Memory): Promise<void> {
  const threads: WasiThreadHost = await createWasiThreadSpawn({
    wasmModule,
    memory,
    poolSize: 6,
    spawnWaitMs: 0,
    requestedThreads: 4,
    extraImports: [
      { moduleUrl: "https://app.test/imports.js", exportName: "make", config: { n: 1 } },
      { provider: "flatsql-io", instanceId: "db", channels: [new SharedArrayBuffer(64)] },
    ],
    instanceId: "instance-1",
    onGuestError: (instanceId, tid, error) => void [instanceId, tid, error],
    onSpawnDeclined: ({ reason, poolSize, declined }) => void [reason, poolSize, declined],
    probeTimeoutMs: 500,
    hostcallChannel: { channelName: "sdm", token: "t" },
    requiresHostcalls: true,
    enableBrowserThreads: true,
    browserWorkerBaseUrl: new URL("https://cdn.test/wtp/"),
    browserWorkerUrl: "blob:https://app.test/1",
    browserWorkerType: "classic",
    implementation: "native",
    runtimeModule: "https://app.test/runtime.js",
    freshInstances: true,
  });
  const tid: number = threads.threadSpawn(0);
  const report: WasiThreadSpawnReport = threads.spawnReport();
  const reason: WasiThreadSpawnDeclineReason | null = report.lastDeclineReason;
  const byReason: number | undefined = report.declinedByReason["pool-exhausted"];
  const idle: number | undefined = report.idle;
  const poolSize: number | null = report.poolSize;
  await threads.terminateAll();
  void [
    tid,
    reason,
    byReason,
    idle,
    poolSize,
    threads.activeThreadCount(),
    threads.spawnCount(),
    threads.distinctOsThreadCount(),
  ];

  // @ts-expect-error a function cannot cross into a worker thread
  await createWasiThreadSpawn({ wasmModule, memory, extraImports: [() => ({})] });
  // @ts-expect-error implementation is "native" | "js"
  await createWasiThreadSpawn({ wasmModule, memory, implementation: "wasm" });
  // @ts-expect-error wasmModule and memory are required
  await createWasiThreadSpawn({});
  // @ts-expect-error not a decline reason
  const bad: WasiThreadSpawnDeclineReason = "busy";
  void bad;
}

try {
  host.resolveBrowserWorkerUrl({ browserWorkerBaseUrl: "/static" });
} catch (error) {
  if (error instanceof WasiThreadWorkerUnreachableError) {
    const url: string = error.workerUrl;
    const name: "WasiThreadWorkerUnreachableError" = error.name;
    void [url, name, error.cause];
  }
}
const anchor: URL | null = host.DEFAULT_BROWSER_WORKER_URL;
host.setBrowserWasiThreadWorkerBase(null);
const base: string | null = host.getBrowserWasiThreadWorkerBase();
const probe: 1500 = host.BROWSER_POOL_PROBE_TIMEOUT_MS;
const wait2: 250 = host.DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
const threaded: boolean = host.isWasiThreadsModule(new WebAssembly.Module(new Uint8Array(8)));
new WasiThreadWorkerUnreachableError("x", new Error("y"));

void [
  wait,
  retired,
  state,
  running,
  released,
  workers,
  impl,
  nativeError,
  of,
  resolved,
  main,
  anchor,
  base,
  probe,
  wait2,
  threaded,
];

function instancePolicy(wasmModule: WebAssembly.Module, memory: WebAssembly.Memory): void {
  const rt = runtime.createWasiThreadWorkerRuntime({ wasmModule, memory, freshInstances: false });
  rt.runThread(1, 0);
  const fresh: boolean = rt.freshInstances;
  const runner = runtime.createThreadRunner(rt, { freshInstances: true });
  runner.adopt(rt.instantiate());
  runner.run(2, 0);
  runner.discard();
  void [fresh, runner.freshInstances];
}
void instancePolicy;

// The runtime's import steps, for a runtime of the caller's own.
function ownImports(memory: WebAssembly.Memory): WebAssembly.Imports {
  const { fragments, close } = runtime.resolveExtraImports([() => ({ env: { f: () => 1 } })], {
    memory,
    getMemory: () => memory,
    workerIndex: 0,
    tid: null,
  });
  const imports = runtime.mergeImportFragments({ wasi: {} }, fragments);
  const hostModule: "space_data_module_host" = runtime.HOSTCALL_IMPORT_MODULE;
  close();
  void hostModule;
  return imports;
}
void ownImports;

// The program runner (Node).
import { runWasiThreadsProgram, TRAP_EXIT_CODE, type WasiProgramResult } from "wasi-thread-pool";
async function runner(bytes: Uint8Array): Promise<number> {
  const result: WasiProgramResult = await runWasiThreadsProgram(bytes, {
    args: ["app", "--fast"],
    env: { LANES: "8" },
    stdin: "input",
    stdout: 1,
    stderr: { fd: 2 },
    preopens: { "/data": "./data" },
    poolSize: 8,
    implementation: "native",
  });
  // @ts-expect-error: env values are strings
  void runWasiThreadsProgram(bytes, { env: { LANES: 8 } });
  const trapped: 134 = TRAP_EXIT_CODE;
  return result.exitCode === trapped ? 1 : result.exitCode;
}
void runner;

// The program runner in a page (the browser condition): an in-memory tree, web streams.
import type { WasiDirectoryHandle, WasiMemoryDirectory } from "wasi-thread-pool";
async function pageRunner(bytes: Uint8Array, input: ReadableStream<Uint8Array>): Promise<WasiMemoryDirectory> {
  const data: WasiMemoryDirectory = { "in.txt": "hello", sub: { "b.bin": new Uint8Array(4) } };
  const lines: Uint8Array[] = [];
  const { exitCode } = await runWasiThreadsProgram(bytes, {
    args: ["app", "/data/in.txt"],
    stdin: input,
    stdout: (chunk) => lines.push(chunk),
    stderr: new WritableStream<Uint8Array>(),
    preopens: { "/data": data },
    poolSize: 4,
    workerUrl: new URL("https://example.org/dist/wasiThreadBrowserWorker.mjs"),
  });
  // @ts-expect-error: a file is bytes or text
  void runWasiThreadsProgram(bytes, { preopens: { "/data": { n: 5 } } });
  // An OPFS directory is a preopen too.
  const opfs: FileSystemDirectoryHandle = await navigator.storage.getDirectory();
  const handle: WasiDirectoryHandle = opfs;
  void runWasiThreadsProgram(bytes, { preopens: { "/data": opfs, "/mem": data } });
  void handle;
  return exitCode === 0 ? data : {};
}
void pageRunner;
