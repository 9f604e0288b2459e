// Types of runWasiThreadsProgram (lib/program/run.js), exported by the package
// root. Under the browser condition (lib/program/run.browser.js) the runner
// rejects: it is Node-only.

/**
 * Where a program's stdout or stderr goes: a file descriptor, a stream that has one, or any writable
 * stream. A stream without a descriptor is the reader of a pipe: while its `write()` answers false
 * the program's writes wait for its `'drain'`, and a stream destroyed, ended or failing ends the
 * program with 141.
 */
export type WasiProgramOutput = number | { readonly fd: number } | { write(chunk: Uint8Array | string): unknown };

/** A stream the program's fd 0 reads from; only `on`, `off`, `pause` and `resume` are used. */
export interface WasiProgramInputStream {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end" | "error", listener: (...args: unknown[]) => void): unknown;
  once(event: "end" | "error", listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  ref?(): unknown;
  unref?(): unknown;
}

export interface RunWasiThreadsProgramOptions {
  /**
   * The program's arguments; args[0] is its name. Default `["program"]`. A
   * string is passed as its UTF-8 (a lone surrogate is refused); a Uint8Array
   * as its exact bytes (an argument that is not UTF-8).
   */
  args?: readonly (string | Uint8Array)[];
  /** The program's whole environment; a value as in `args`. Default: empty. */
  env?: Readonly<Record<string, string | Uint8Array>>;
  /** fd 0: a stream (default `process.stdin`), bytes, a string, or `null` for an empty stdin. */
  stdin?: WasiProgramInputStream | Uint8Array | string | null;
  /** fd 1. Default: this process's fd 1. */
  stdout?: WasiProgramOutput;
  /** fd 2. Default: this process's fd 2. */
  stderr?: WasiProgramOutput;
  /** Preopened directories: `{ "/guest/path": "host/dir" }`. */
  preopens?: Readonly<Record<string, string>>;
  /** The most pool workers alive at once (1 to 268435454); threads beyond wait for a free worker. Default 1024. */
  poolSize?: number;
  /**
   * The most threads alive at once, the main thread not counted (0 to 268435454): `thread-spawn`
   * fails (EAGAIN) only beyond it. Default 16384.
   */
  maxThreads?: number;
  /** The pool's waits. Default: native when the addon loads. */
  implementation?: "native" | "js";
}

export interface WasiProgramResult {
  /**
   * proc_exit's code (0-125); 0 when _start returned; 1 for proc_exit outside [0, 126); 134 after a
   * trap; 141 after a write into a closed pipe (or a caller's stream that has closed).
   */
  exitCode: number;
}

/** The exit code of a program that trapped (128 + SIGABRT). */
export declare const TRAP_EXIT_CODE: 134;

/**
 * Runs a WASI preview1 command program (its bytes) with WASI's process
 * semantics: proc_exit or a trap on any thread, or _start's return, ends every
 * thread. A wasi-threads program runs on the pool; one without thread-spawn
 * or a shared memory on one thread. Rejects only for bad options
 * (TypeError/RangeError), a module it cannot link (WebAssembly.LinkError
 * naming the import) or one it cannot run (TypeError: no _start, a
 * wasi-threads program without one shared imported memory).
 */
export declare function runWasiThreadsProgram(
  wasm: Uint8Array | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
  options?: RunWasiThreadsProgramOptions,
): Promise<WasiProgramResult>;

/** The shared memory a wasi-threads module imports, read from its binary (pages). */
export interface WasiThreadsMemoryImport {
  module: string;
  name: string;
  initial: number;
  maximum: number;
  shared: true;
}

/**
 * Reads the module's memory import (name, limits) from its bytes; throws a
 * TypeError that says why when the module defines its own memory, imports
 * none, or imports one that is not shared.
 */
export declare function describeWasiThreadsMemory(
  wasm: Uint8Array | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): WasiThreadsMemoryImport;
