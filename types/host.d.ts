// Types of wasi-thread-pool/host (lib/host/host.js): createWasiThreadSpawn, a
// drop-in for space-data-module-sdk 0.8.25's src/host/wasiThreadHost.js.
//
// WebAssembly.Module/Memory and URL come from the "dom" lib or @types/node.

export { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS } from "./pool.js";
import type { WasiThreadPoolImplementation } from "./pool.js";
import type { WasiThreadHostDeclineReason, WasiThreadPoolDeclineReason } from "./reasons.js";

/** `new URL("./wasiThreadBrowserWorker.mjs", import.meta.url)`, or null when this file was bundled without a usable import.meta.url. */
export declare const DEFAULT_BROWSER_WORKER_URL: URL | null;

/** How long a browser worker has to answer the probe, by default. */
export declare const BROWSER_POOL_PROBE_TIMEOUT_MS: 1500;

/** Sets the process-wide directory the browser worker is loaded from; null/undefined clears it. A trailing "/" is added. */
export declare function setBrowserWasiThreadWorkerBase(baseUrl: string | URL | null | undefined): void;

export declare function getBrowserWasiThreadWorkerBase(): string | null;

export interface ResolveBrowserWorkerUrlOptions {
  browserWorkerUrl?: string | URL | null;
  browserWorkerBaseUrl?: string | URL | null;
}

/**
 * The browser worker script's URL: `browserWorkerUrl` as given, else
 * `<base>wasiThreadBrowserWorker.mjs` for the per-call base or the
 * process-wide one (resolved against `location.href` when there is one), else
 * the packaged anchor. Throws {@link WasiThreadWorkerUnreachableError} when
 * there is no anchor at all. Never fetches.
 */
export declare function resolveBrowserWorkerUrl(options?: ResolveBrowserWorkerUrlOptions): string;

/** The browser worker script (or a module it imports) could not be loaded, or a Worker could not be constructed. */
export declare class WasiThreadWorkerUnreachableError extends Error {
  constructor(workerUrl: string | URL, cause?: unknown);
  name: "WasiThreadWorkerUnreachableError";
  readonly workerUrl: string;
  /** Present only when a cause was given. */
  cause?: unknown;
}

/** Whether the module imports `wasi.thread-spawn`. */
export declare function isWasiThreadsModule(wasmModule: WebAssembly.Module): boolean;

/** The owner's BroadcastChannel broker for guest hostcalls made on worker threads. */
export interface WasiThreadHostcallChannel {
  channelName: string;
  token: string;
  maxResponseBytes?: number;
  timeoutMs?: number;
}

/** `{ provider: "flatsql-io" }`: SAB-backed FlatSQL I/O channels (resolved by the SDK's runtime). */
export interface FlatsqlIoExtraImport {
  provider: "flatsql-io";
  instanceId?: unknown;
  channels: SharedArrayBuffer[];
  mirror?: unknown;
  trace?: unknown;
}

/** `{ provider: "flatsql-io-node" }`: Node workers only. */
export interface FlatsqlIoNodeExtraImport {
  provider: "flatsql-io-node";
  root: string;
  table: string;
  instanceId?: unknown;
  mirror?: unknown;
  trace?: unknown;
}

/** A module whose export (default: `default`) is `factory(ctx)` returning an import fragment or `{imports, close}`. */
export interface ModuleExtraImport {
  moduleUrl: string;
  exportName?: string;
  config?: unknown;
}

/** Structured-cloneable extra-import descriptors; functions are refused (they cannot reach a worker). */
export type WasiThreadExtraImport = FlatsqlIoExtraImport | FlatsqlIoNodeExtraImport | ModuleExtraImport;

/** Why `threadSpawn` returned -1: a pool's reason or a host's (types/reasons.d.ts). */
export type WasiThreadSpawnDeclineReason = WasiThreadPoolDeclineReason | WasiThreadHostDeclineReason;

export interface WasiThreadSpawnDeclined {
  reason: WasiThreadSpawnDeclineReason;
  /** The ledger's pool size (see {@link WasiThreadSpawnReport.poolSize}). */
  poolSize: number | null;
  /** Declines so far, this one included. */
  declined: number;
}

export interface WasiThreadSpawnOptions {
  /** The compiled guest; posted to workers, which instantiate it once per thread. */
  wasmModule: WebAssembly.Module;
  /** The guest's shared imported memory. */
  memory: WebAssembly.Memory;
  /** Browser, implicit pool: threads wanted (default: hardware concurrency). Floored. */
  requestedThreads?: number;
  /**
   * An explicit pool size: a non-negative integer (else RangeError); a
   * non-finite or non-number value counts as absent. Browser: exactly this
   * many workers, partial arming. Node: the pool's capacity (default 1024).
   */
  poolSize?: number | null;
  /** Default []. */
  extraImports?: readonly WasiThreadExtraImport[] | null;
  /** Passed back to onGuestError. Default null. */
  instanceId?: unknown;
  /**
   * A guest thread trapped or its worker died. Throws are swallowed. `error`
   * is, as in the SDK: on Node the worker's `error` event argument (the
   * thrown error); in browsers the string of a `{t:"error"}` report, or the
   * worker's `error` event itself (an ErrorEvent: read `.message`).
   */
  onGuestError?: (instanceId: unknown, tid: number | null, error: unknown) => void;
  /** A spawn from the owning thread returned -1. Throws are swallowed. */
  onSpawnDeclined?: (info: WasiThreadSpawnDeclined) => void;
  /** Browser: ms a worker has to answer the probe; used only if finite and > 0. Default 1500. */
  probeTimeoutMs?: number;
  hostcallChannel?: WasiThreadHostcallChannel | null;
  /** From the SDK's createSharedWasiProcess; passed to workers unchanged. */
  processState?: unknown;
  /** The guest imports space_data_module_host: without a hostcallChannel, no worker is started and every spawn declines. */
  requiresHostcalls?: boolean;
  /** Browser opt-in. undefined/null: `globalThis.__SDM_ENABLE_BROWSER_WASI_THREADS__ === true`. */
  enableBrowserThreads?: boolean | null;
  /** Browser: the directory serving wasiThreadBrowserWorker.mjs and its imports. */
  browserWorkerBaseUrl?: string | URL | null;
  /** Browser: the worker script itself (say, a self-contained bundle); wins over the base. */
  browserWorkerUrl?: string | URL | null;
  /** Browser: "classic" means `new Worker(url)`; anything else a module worker. Default "module". */
  browserWorkerType?: "module" | "classic" | (string & {});
  /** See resolveSpawnWaitMs. Default 250. */
  spawnWaitMs?: number | null;
  /** This package's: the Node pool's implementation (browsers always use "js"). */
  implementation?: WasiThreadPoolImplementation;
  /** This package's: a module exporting createWasiThreadWorkerRuntime, for the workers to use. */
  runtimeModule?: string | URL;
  /**
   * This package's: `true` gives every guest thread a fresh `WebAssembly.Instance` (the SDK's
   * behaviour). Default `false`: a worker reuses its instance for every thread it runs; a thread
   * that traps or calls proc_exit leaves it behind and the next thread gets a fresh one.
   */
  freshInstances?: boolean;
}

export interface WasiThreadSpawnReport {
  /** Node: the explicit poolSize or null. Browser: the pool size used (0 without threads). Stub: explicit or 0. */
  poolSize: number | null;
  /** Browser: workers that armed. */
  armed: number;
  /** Browser: workers that did not. */
  failedToArm: number;
  declinedByReason: Partial<Record<WasiThreadSpawnDeclineReason, number>>;
  lastDeclineReason: WasiThreadSpawnDeclineReason | null;
  /** Successful spawns, process-wide (guest threads' own spawns included). */
  spawned: number;
  waited: number;
  /** The sum of declinedByReason. */
  declined: number;
  /** Busy slots. */
  active: number;
  /** Idle slots: Node and browser hosts (0 once the browser pool is disabled); absent from the hostcall stub. */
  idle?: number;
  /** Node only: slots that ever had a worker thread. */
  workers?: number;
}

export interface WasiThreadHost {
  /** The guest's `wasi.thread-spawn`: a tid > 0, or -1 (the guest's pthread_create then returns EAGAIN). */
  threadSpawn(startArg: number): number;
  activeThreadCount(): number;
  spawnCount(): number;
  distinctOsThreadCount(): number;
  spawnReport(): WasiThreadSpawnReport;
  /** Ends every worker; every later spawn declines with "terminated". */
  terminateAll(): Promise<void>;
}

/**
 * The wasi-threads host of one guest instance. Rejects with RangeError or
 * TypeError on bad options, and with WasiThreadWorkerUnreachableError when
 * the browser worker script cannot be loaded.
 */
export declare function createWasiThreadSpawn(options: WasiThreadSpawnOptions): Promise<WasiThreadHost>;
