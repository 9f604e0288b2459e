// Types of wasi-thread-pool/runtime (lib/worker/runtime.js): the per-thread import
// object of a guest thread, with the SDK's createWasiThreadWorkerRuntime
// signature. WebAssembly.Module/Memory/Instance come from the "dom" lib or
// @types/node.

import type { WasiThreadExtraImport, WasiThreadHostcallChannel } from "./host.js";

/** The message type of a guest hostcall posted from a worker thread. */
export declare const WASI_THREAD_HOSTCALL_MESSAGE: "sdm.thread-hostcall";

/** A WASI proc_exit; workers treat it (by name) as the thread's normal end. */
export declare class WasiExitError extends Error {
  constructor(code: number);
  name: "WasiExitError";
  readonly code: number;
}

export interface WasiThreadWorkerRuntimeOptions {
  wasmModule: WebAssembly.Module;
  memory: WebAssembly.Memory;
  hostcallChannel?: WasiThreadHostcallChannel | null;
  /** The SDK's shared process state, or `{ args, env }`. Passed through. */
  processState?: unknown;
  /** Resolved entries: factories, `{ factory, config }` or descriptors. */
  extraImports?: ReadonlyArray<
    WasiThreadExtraImport | ((ctx: unknown) => unknown) | { factory: (ctx: unknown) => unknown; config: unknown }
  >;
  workerIndex?: number | null;
  tid?: number | null;
  threadSpawn?: (startArg: number) => number;
  /** How fds 1 and 2 are written; the default is the console, line by line. */
  writeOutput?: (fd: 1 | 2, bytes: Uint8Array) => void;
  /** The policy of runThread: `true` = a fresh instance per thread (the SDK's); default: reuse. */
  freshInstances?: boolean;
}

export interface WasiThreadWorkerRuntime {
  imports: WebAssembly.Imports;
  /** A fresh instance over the same imports and memory. */
  instantiate(): WebAssembly.Instance;
  /**
   * Runs `wasi_thread_start(tid, startArg)` on the instance the last thread ran on (a fresh one
   * with `freshInstances`, at the first thread, or after a thread that threw). Errors pass through.
   */
  runThread(tid: number, startArg: number): void;
  readonly freshInstances: boolean;
  close(): void;
}

export declare function createWasiThreadWorkerRuntime(options: WasiThreadWorkerRuntimeOptions): WasiThreadWorkerRuntime;

/** The instance policy of a pool worker over any runtime with the SDK's `instantiate()`. */
export interface WasiThreadRunner {
  readonly freshInstances: boolean;
  /** Offers an instance made already (a worker's probe) as the first thread's; ignored when fresh. */
  adopt(instance: WebAssembly.Instance): void;
  /** Runs `wasi_thread_start`; a thread that throws leaves its instance behind. */
  run(tid: number, startArg: number): void;
  discard(): void;
}

export declare function createThreadRunner(
  runtime: { instantiate(): WebAssembly.Instance },
  options?: { freshInstances?: boolean },
): WasiThreadRunner;

/** Imports every `{ moduleUrl, exportName, config }` entry's factory; other entries pass through. */
export declare function resolveModuleExtraImports(entries: ReadonlyArray<unknown> | null | undefined): Promise<unknown[]>;

/** The import module of space-data-module-sdk's hostcall bridge; this runtime provides none (an extraImports fragment may). */
export declare const HOSTCALL_IMPORT_MODULE: "space_data_module_host";

/** What an extraImports factory is called with (its `config` is added per entry). */
export interface WasiThreadExtraImportContext {
  memory: WebAssembly.Memory;
  /** The instance's exported memory once there is an instance, else `memory`. */
  getMemory: () => WebAssembly.Memory;
  workerIndex: number | null;
  tid: number | null;
}

/**
 * Calls each resolved entry's factory once with `{ ...ctx, config }` and collects the fragments
 * (a result `{ imports, close }` gives `imports` and a closer; any other truthy result is a fragment);
 * `close()` calls the closers the factories returned, last first. A `{ provider }` or unresolved
 * `{ moduleUrl }` entry, or anything else, is a TypeError (the closers so far are called first).
 */
export declare function resolveExtraImports(
  entries:
    ReadonlyArray<((ctx: unknown) => unknown) | { factory: (ctx: unknown) => unknown; config?: unknown }> | null | undefined,
  ctx: WasiThreadExtraImportContext,
): { fragments: WebAssembly.Imports[]; close: () => void };

/** Merges fragments into `imports` module by module, shallowly (later fragments win); returns `imports`. */
export declare function mergeImportFragments<T extends WebAssembly.Imports>(
  imports: T,
  fragments: ReadonlyArray<WebAssembly.Imports | null | undefined> | null | undefined,
): T;
