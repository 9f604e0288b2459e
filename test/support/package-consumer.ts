// A TypeScript consumer of the installed package: test/package.test.js copies
// it into a project where the packed tarball is installed and runs
// `tsc --noEmit` there, so the types are checked as a user sees them: through
// the package name, the "exports" map's "types" conditions and the files the
// tarball actually holds. Lines marked @ts-expect-error must fail to check.

import {
  compileWasiThreadGuest,
  createWasiThreadPool,
  createWasiThreadSpawn,
  getWasiThreadPoolImplementation,
  type WasiThreadHost,
  type WasiThreadSpawnReport,
} from "wasi-thread-pool";
import {
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  WASI_THREAD_POOL_PROTOCOL,
  WASI_THREAD_POOL_SLOT,
  armWasiThreadPoolSlot,
  createWasiThreadPoolSpawn,
  finishWasiThreadPoolRun,
  openWasiThreadPoolSlots,
  readWasiThreadPoolReport,
  releaseWasiThreadPoolSlotIfRunning,
  resolveSpawnWaitMs,
  retireWasiThreadPoolSlot,
  serveWasiThreadPoolSlot,
  takeWasiThreadPoolAssignment,
  wasiThreadPoolImplementationOf,
  wasiThreadPoolLastTid,
  wasiThreadPoolRunningTid,
  wasiThreadPoolSlotState,
  type WasiThreadPool,
  type WasiThreadPoolImplementation,
  type WasiThreadPoolImplementationInfo,
  type WasiThreadPoolReport,
  type WasiThreadPoolSpawnResult,
} from "wasi-thread-pool/pool";
import {
  BROWSER_POOL_PROBE_TIMEOUT_MS,
  DEFAULT_BROWSER_WORKER_URL,
  WasiThreadWorkerUnreachableError,
  getBrowserWasiThreadWorkerBase,
  isWasiThreadsModule,
  resolveBrowserWorkerUrl,
  setBrowserWasiThreadWorkerBase,
  type WasiThreadSpawnDeclineReason,
  type WasiThreadSpawnDeclined,
  type WasiThreadSpawnOptions,
} from "wasi-thread-pool/host";

// --- The pool API, by the SDK's names. ------------------------------------

const protocol: 2 = WASI_THREAD_POOL_PROTOCOL;
const wait: number = resolveSpawnWaitMs(DEFAULT_WASI_THREAD_SPAWN_WAIT_MS);
const idle: 1 = WASI_THREAD_POOL_SLOT.IDLE;

const info: WasiThreadPoolImplementationInfo = getWasiThreadPoolImplementation();
const preferred: WasiThreadPoolImplementation = info.implementation;
const why: string = info.reason;
const addonError: string | null = info.native.error;

const pool: WasiThreadPool = createWasiThreadPool({ capacity: 4, spawnWaitMs: wait, implementation: preferred });
const words: Int32Array = pool.control;
const implementation: "native" | "js" = wasiThreadPoolImplementationOf(pool);
openWasiThreadPoolSlots(pool, 1);
armWasiThreadPoolSlot(pool, 0);
armWasiThreadPoolSlot(pool, 0, { messageDispatch: false });

const spawn = createWasiThreadPoolSpawn(pool, {
  owner: true,
  grow: (slot: number) => {
    void slot;
  },
  dispatchMessage: null,
});
const spawned: WasiThreadPoolSpawnResult = spawn(7);
if (spawned.reason === null) {
  const tid: number = spawned.tid;
  const slot: number = spawned.slot;
  void [tid, slot];
} else {
  const minusOne: -1 = spawned.tid;
  const reason: "pool-exhausted" | "worker-create-failed" | "tid-exhausted" | "dispatch-failed" | "interrupted" | "terminated" =
    spawned.reason;
  void [minusOne, reason];
}

const assignment = takeWasiThreadPoolAssignment(pool, 0);
if (assignment !== null) {
  const startArg: number = assignment.startArg;
  void startArg;
  finishWasiThreadPoolRun(pool, 0);
}
const running: number | null = wasiThreadPoolRunningTid(pool, 0);
const last: number = wasiThreadPoolLastTid(pool, 0);
const state: 0 | 1 | 2 | 3 | 4 | 5 = wasiThreadPoolSlotState(pool, 0);
const released: boolean = releaseWasiThreadPoolSlotIfRunning(pool, 0, last);

const report: WasiThreadPoolReport = readWasiThreadPoolReport(pool);
const counts: number[] = [
  report.spawned,
  report.waited,
  report.declined,
  report.slots,
  report.active,
  report.idle,
  report.workers,
];

function serve(slot: number): void {
  serveWasiThreadPoolSlot(pool, slot, {
    osThreadId: 3,
    runThread(tid: number, startArg: number) {
      return tid > 0 && startArg >= 0 ? undefined : false;
    },
  });
}
retireWasiThreadPoolSlot(pool, 0);

// @ts-expect-error capacity is required
createWasiThreadPool({});
// @ts-expect-error there is no "wasm" implementation
createWasiThreadPool({ capacity: 1, implementation: "wasm" });
// @ts-expect-error runThread is required
serveWasiThreadPoolSlot(pool, 0, {});

// --- The host API. ----------------------------------------------------------

declare const wasmModule: WebAssembly.Module;
declare const memory: WebAssembly.Memory;

const probeMs: 1500 = BROWSER_POOL_PROBE_TIMEOUT_MS;
const workerUrl: URL | null = DEFAULT_BROWSER_WORKER_URL;
setBrowserWasiThreadWorkerBase("https://example.com/assets/");
setBrowserWasiThreadWorkerBase(null);
const base: string | null = getBrowserWasiThreadWorkerBase();
const resolved: string = resolveBrowserWorkerUrl({ browserWorkerBaseUrl: new URL("https://example.com/w/") });
const threaded: boolean = isWasiThreadsModule(wasmModule);

const declines: WasiThreadSpawnDeclined[] = [];
const options: WasiThreadSpawnOptions = {
  wasmModule,
  memory,
  poolSize: 4,
  spawnWaitMs: 0,
  instanceId: "guest-1",
  extraImports: [{ moduleUrl: "./imports.js", exportName: "createImports" }],
  onGuestError(instanceId: unknown, tid: number | null, error: unknown) {
    void [instanceId, tid, error];
  },
  onSpawnDeclined(declined) {
    const reason: WasiThreadSpawnDeclineReason = declined.reason;
    const size: number | null = declined.poolSize;
    void [reason, size];
    declines.push(declined);
  },
  implementation: "js",
};

async function runHost(bytes: Uint8Array<ArrayBuffer>): Promise<WasiThreadSpawnReport> {
  const compiled: WebAssembly.Module = await compileWasiThreadGuest(bytes);
  const host: WasiThreadHost = await createWasiThreadSpawn({ ...options, wasmModule: compiled });
  const tid: number = host.threadSpawn(0);
  const numbers: number[] = [tid, host.activeThreadCount(), host.spawnCount(), host.distinctOsThreadCount()];
  void numbers;
  const spawnReport: WasiThreadSpawnReport = host.spawnReport();
  const byReason: number | undefined = spawnReport.declinedByReason["pool-exhausted"];
  const lastReason: WasiThreadSpawnDeclineReason | null = spawnReport.lastDeclineReason;
  const poolSize: number | null = spawnReport.poolSize;
  const ledger: number[] = [
    spawnReport.armed,
    spawnReport.failedToArm,
    spawnReport.spawned,
    spawnReport.waited,
    spawnReport.declined,
    spawnReport.active,
  ];
  void [byReason, lastReason, poolSize, ledger];
  await host.terminateAll();
  return spawnReport;
}

try {
  resolveBrowserWorkerUrl();
} catch (error) {
  if (error instanceof WasiThreadWorkerUnreachableError) {
    const url: string = error.workerUrl;
    const name: "WasiThreadWorkerUnreachableError" = error.name;
    void [url, name];
  }
}

// @ts-expect-error wasmModule and memory are required
createWasiThreadSpawn({});
// @ts-expect-error a function cannot cross into a worker: extraImports takes descriptors
createWasiThreadSpawn({ wasmModule, memory, extraImports: [() => ({})] });
// @ts-expect-error threadSpawn returns a number, not a promise
const notAPromise: Promise<number> = ({} as WasiThreadHost).threadSpawn(0);

void [
  protocol,
  idle,
  why,
  addonError,
  words,
  implementation,
  running,
  state,
  released,
  counts,
  serve,
  probeMs,
  workerUrl,
  base,
  resolved,
  threaded,
  runHost,
  notAPromise,
];
