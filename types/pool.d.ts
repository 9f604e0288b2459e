// Types of wasi-thread-pool/pool (lib/pool.js under Node, lib/pool.browser.js
// in browsers): the pool protocol by space-data-module-sdk 0.8.25's names,
// plus this package's choice of implementation.

/** The protocol number a current browser worker puts in its `ready` reply. */
export declare const WASI_THREAD_POOL_PROTOCOL: 2;

/** Slot states (the S_STATE word of a slot). */
export declare const WASI_THREAD_POOL_SLOT: Readonly<{
  PENDING: 0;
  IDLE: 1;
  CLAIMED: 2;
  ASSIGNED: 3;
  RUNNING: 4;
  RETIRED: 5;
}>;

/** One of the values of {@link WASI_THREAD_POOL_SLOT}. */
export type WasiThreadPoolSlotState = 0 | 1 | 2 | 3 | 4 | 5;

/** Default `spawnWaitMs`: how long a spawn may wait for a busy pool. */
export declare const DEFAULT_WASI_THREAD_SPAWN_WAIT_MS: 250;

/**
 * `undefined`/`null` give 250. Any other value must be a number `>= 0` and not
 * `Infinity` (fractions and 0 are fine), else
 * `RangeError("spawnWaitMs must be a finite, non-negative number of milliseconds.")`.
 */
export declare function resolveSpawnWaitMs(value?: number | null): number;

/** Which wait mechanism a pool uses, for its whole life. */
export type WasiThreadPoolImplementation = "native" | "js";

/**
 * A pool descriptor. Structured-cloneable: post it to every thread that
 * spawns on or serves the pool.
 */
export interface WasiThreadPool {
  /** `4 * (8 + 8 * capacity)` bytes of SharedArrayBuffer, as Int32 words. */
  readonly control: Int32Array;
  readonly spawnWaitMs: number;
}

export interface CreateWasiThreadPoolOptions {
  /** A non-negative integer, else `RangeError("pool capacity must be a non-negative integer.")`. */
  capacity: number;
  /** See {@link resolveSpawnWaitMs}. Default 250. */
  spawnWaitMs?: number | null;
  /**
   * Default: the `WASI_THREAD_POOL_IMPLEMENTATION` environment variable
   * (Node), else `"native"` when the addon loaded, else `"js"`. Browsers only
   * have `"js"`; asking for `"native"` where the addon is not loaded throws.
   * Anything else is a RangeError.
   */
  implementation?: WasiThreadPoolImplementation | null;
}

export declare function createWasiThreadPool(options: CreateWasiThreadPoolOptions): WasiThreadPool;

/** Puts `count` slots in service (H_SLOTS). They stay PENDING until armed. */
export declare function openWasiThreadPoolSlots(pool: WasiThreadPool, count: number): void;

export interface ArmWasiThreadPoolSlotOptions {
  /** A legacy worker: only the owner claims the slot, and runs are posted to it. */
  messageDispatch?: boolean;
}

/** PENDING to IDLE; wakes the slot's worker and every waiting spawner. */
export declare function armWasiThreadPoolSlot(pool: WasiThreadPool, slot: number, options?: ArmWasiThreadPoolSlotOptions): void;

/** Any state to RETIRED (final); a worker serving the slot returns. */
export declare function retireWasiThreadPoolSlot(pool: WasiThreadPool, slot: number): void;

export declare function wasiThreadPoolSlotState(pool: WasiThreadPool, slot: number): WasiThreadPoolSlotState;

/** The last tid assigned to the slot (0 if none yet), whatever its state. */
export declare function wasiThreadPoolLastTid(pool: WasiThreadPool, slot: number): number;

/** The slot's tid while it is ASSIGNED or RUNNING, else null. */
export declare function wasiThreadPoolRunningTid(pool: WasiThreadPool, slot: number): number | null;

/**
 * Owner-side release of a legacy slot on its `{t:"exit", tid}`: ASSIGNED or
 * RUNNING to IDLE, only if the slot still holds `tid`.
 */
export declare function releaseWasiThreadPoolSlotIfRunning(pool: WasiThreadPool, slot: number, tid: number): boolean;

export interface WasiThreadPoolAssignment {
  tid: number;
  startArg: number;
}

/** Worker side: ASSIGNED to RUNNING. null when nothing is assigned. */
export declare function takeWasiThreadPoolAssignment(pool: WasiThreadPool, slot: number): WasiThreadPoolAssignment | null;

/** Worker side: RUNNING to IDLE (a retired slot stays RETIRED). */
export declare function finishWasiThreadPoolRun(pool: WasiThreadPool, slot: number): void;

export interface ServeWasiThreadPoolSlotOptions {
  /** Runs one guest thread. Returning `false` retires the slot and ends the loop. */
  runThread: (tid: number, startArg: number) => boolean | void;
  /** Recorded once in the slot (Node's worker_threads threadId); 0 records nothing. */
  osThreadId?: number;
}

/** Worker loop: blocks the calling thread until the slot is retired. */
export declare function serveWasiThreadPoolSlot(
  pool: WasiThreadPool,
  slot: number,
  options: ServeWasiThreadPoolSlotOptions,
): void;

/** Process-wide counts, read from the shared buffer. */
export interface WasiThreadPoolReport {
  /** Successful spawns, from every thread. */
  spawned: number;
  /** Successful spawns that waited on the pool at least once. */
  waited: number;
  /** Spawns declined with "pool-exhausted", from every thread. */
  declined: number;
  /** Slots in service. */
  slots: number;
  /** CLAIMED, ASSIGNED or RUNNING slots. */
  active: number;
  /** IDLE slots. */
  idle: number;
  /** Slots that ever recorded an OS thread id, retired ones included. */
  workers: number;
}

export declare function readWasiThreadPoolReport(pool: WasiThreadPool): WasiThreadPoolReport;

/**
 * This package's addition (not in the SDK): closes the pool for good. Every
 * later spawn, from any thread holding the pool, declines `"terminated"`, and
 * every slot in service is retired. Returns the number of slots retired.
 */
export declare function terminateWasiThreadPool(pool: WasiThreadPool): number;

/** Whether `terminateWasiThreadPool` has closed the pool. */
export declare function wasiThreadPoolTerminated(pool: WasiThreadPool): boolean;

/** Why a pool spawn returned no thread (types/reasons.d.ts). */
export type { WasiThreadPoolDeclineReason } from "./reasons.js";
import type { WasiThreadPoolDeclineReason } from "./reasons.js";

export type WasiThreadPoolSpawnResult =
  { tid: number; slot: number; reason: null } | { tid: -1; slot: -1; reason: WasiThreadPoolDeclineReason };

export interface CreateWasiThreadPoolSpawnOptions {
  /** The owning thread: may claim message-dispatch slots. Default false. */
  owner?: boolean;
  /** Starts a worker for a newly reserved slot (Node). Throwing retires the slot. */
  grow?: ((slot: number) => void) | null;
  /** Posts a run to a legacy worker. Throwing releases the slot ("dispatch-failed"). */
  dispatchMessage?: ((slot: number, tid: number, startArg: number) => void) | null;
}

/** The spawn function of one thread (it keeps per-thread wait state). */
export declare function createWasiThreadPoolSpawn(
  pool: WasiThreadPool,
  options?: CreateWasiThreadPoolSpawnOptions,
): (startArg: number) => WasiThreadPoolSpawnResult;

export interface WasiThreadPoolImplementationInfo {
  /** What `createWasiThreadPool` uses when no `implementation` is given. */
  implementation: WasiThreadPoolImplementation;
  /** Why, in words. */
  reason: string;
  native: {
    /** Whether the addon is loaded in this thread. */
    available: boolean;
    /** Why it is not, or null. */
    error: string | null;
  };
}

/**
 * What `createWasiThreadPool` uses by default here, and why. Throws the
 * RangeError that `createWasiThreadPool` throws when the
 * `WASI_THREAD_POOL_IMPLEMENTATION` environment variable is neither `"js"`
 * nor `"native"`.
 */
export declare function getWasiThreadPoolImplementation(): WasiThreadPoolImplementationInfo;

/** The implementation a pool was created with (its H_IMPL word). */
export declare function wasiThreadPoolImplementationOf(pool: WasiThreadPool): WasiThreadPoolImplementation;
