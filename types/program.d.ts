// Types of runWasiThreadsProgram, exported by the package root: on Node
// lib/program/run.js, under the browser condition lib/program/browser/run.js
// (a cross-origin isolated page). One declaration for both: an option or a
// form of one that only one of them takes says so.

/**
 * Where a program's stdout or stderr goes. Node: a file descriptor, a stream that has one, or any writable
 * stream; a stream without a descriptor is the reader of a pipe: while its `write()` answers false the
 * program's writes wait for its `'drain'`, and a stream destroyed, ended or failing ends the program with
 * 141. Browser: a function called with each write's bytes (a copy), or a WritableStream (each write is
 * awaited before the program's write returns; its lock is released when the program ends); a callback
 * that throws or a stream whose write fails ends the program with 141.
 */
export type WasiProgramOutput =
  | number
  | { readonly fd: number }
  | { write(chunk: Uint8Array | string): unknown }
  | ((bytes: Uint8Array) => void)
  | { getWriter(): unknown };

/** A web ReadableStream of bytes or strings (browser stdin); read only when the program reads. */
export interface WasiProgramReadableStream {
  getReader(): unknown;
}

/**
 * A directory of the in-memory file system a page gives (browser `preopens`): names to files (a
 * Uint8Array, an ArrayBuffer or view, or a string, read as its UTF-8) and directories (plain
 * objects). When the program ends, each object holds exactly the directory's entries: a file the
 * program wrote or made as a Uint8Array, one it left alone as given, a new directory as a new object.
 */
export interface WasiMemoryDirectory {
  [name: string]: Uint8Array | ArrayBuffer | ArrayBufferView | string | WasiMemoryDirectory;
}

/**
 * A FileSystemDirectoryHandle (browser `preopens`), such as an OPFS directory from
 * `navigator.storage.getDirectory()`: read whole into memory when the program starts; the files it
 * made, changed, renamed or removed are written into the directory when it ends.
 */
export interface WasiDirectoryHandle {
  readonly kind: "directory";
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<unknown>;
}

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
  /**
   * fd 0: a stream (Node: default `process.stdin`; browser: a ReadableStream), bytes, a string, or
   * `null` for an empty stdin (the browser's default).
   */
  stdin?: WasiProgramInputStream | WasiProgramReadableStream | Uint8Array | ArrayBuffer | string | null;
  /** fd 1. Default: this process's fd 1 (browser: the console, line by line). */
  stdout?: WasiProgramOutput;
  /** fd 2. Default: this process's fd 2 (browser: the console, line by line). */
  stderr?: WasiProgramOutput;
  /**
   * Preopened directories. Node: `{ "/guest/path": "host/dir" }`. Browser: `{ "/guest/path":
   * WasiMemoryDirectory | WasiDirectoryHandle }`, written back when the program ends.
   */
  preopens?: Readonly<Record<string, string>> | Readonly<Record<string, WasiMemoryDirectory | WasiDirectoryHandle>>;
  /**
   * Node: the most pool workers alive at once (1 to 268435454); threads beyond wait for a free worker.
   * Default 1024.
   * Browser: the fixed pool of module workers started for the program (0-1024, default 8); a
   * thread-spawn while all are busy waits, then fails (EAGAIN).
   */
  poolSize?: number;
  /** Browser only: how long each pool worker may take to start (ms, default 15000). */
  probeTimeoutMs?: number;
  /**
   * Browser only: the pool worker's URL, such as the package's bundled worker
   * (`wasi-thread-pool/worker-browser-bundle`); default the module next to the host.
   */
  workerUrl?: string | URL;
  /** Browser only: the base URL the default pool worker is found under. */
  workerBaseUrl?: string | URL;
  /**
   * Node only: the most threads alive at once, the main thread not counted (0 to 268435454):
   * `thread-spawn` fails (EAGAIN) only beyond it. Default 16384.
   */
  maxThreads?: number;
  /** Node only: the pool's waits. Default: native when the addon loads. */
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
 * thread. A wasi-threads program runs on the pool; on Node, one without
 * thread-spawn or a shared memory on one thread. In a browser the page must
 * be cross-origin isolated (an Error says so otherwise), the program a
 * wasi-threads one, and a module given compiled must come from
 * compileWasiThreadGuest. Rejects only for bad options
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
