// The per-thread runtime of a pool worker (SDK-CONTRACT 3.3): the import
// object a guest thread's instance gets, and the instance policy: one
// instance per worker, reused by every thread the worker runs (this
// package's default), or a fresh instance per thread (the SDK's, with
// freshInstances: true). See createThreadRunner.
//
// Used by both worker entries (lib/worker/node.js, lib/wasiThreadBrowserWorker.mjs),
// so it must stay browser-safe: no node: imports, no addon. Node-only behaviour
// (synchronous writes to fds 1 and 2) is injected by the Node worker through
// the `writeOutput` option.
//
// WASI preview1 comes from @bjorn3/browser_wasi_shim. A few of its functions
// are replaced where a wasi-threads guest needs something else:
//   - the guest imports its memory, so the shim is pointed at that memory and
//     never at instance.exports.memory (which such a guest does not have);
//   - proc_exit throws WasiExitError (found by name, as the SDK's workers do);
//   - random_get: crypto.getRandomValues refuses views of a SharedArrayBuffer
//     in browsers, and the shim then falls back to Math.random; filling a
//     private buffer and copying keeps real randomness;
//   - poll_oneoff (sleep): the shim spins a CPU for the whole sleep; a worker
//     may block, so it sleeps in Atomics.wait instead;
//   - args_sizes_get: the shim counts UTF-16 units, not the UTF-8 bytes that
//     args_get writes.

import { ConsoleStdout, File, Fd, OpenFile, WASI, wasi as defs } from "@bjorn3/browser_wasi_shim";
import { WasiExitError } from "./exit-error.js";
import { createThreadRunner } from "./thread-runner.js";
import { declaredSharedMaximum } from "./wasm-memory.js";
import { MEMORY_IMPORT_MODULE, guestMemoryCounter, memoryGrowthImports } from "../wasm/memory-counter.js";
import { moduleImports } from "../wasm/module-imports.js";

export const WASI_THREAD_HOSTCALL_MESSAGE = "sdm.thread-hostcall";
export const HOSTCALL_IMPORT_MODULE = "space_data_module_host";

export { WasiExitError };

const UNRESOLVABLE_HINT =
  '; pass a factory function, a { provider: "flatsql-io" } descriptor, or (module workers) a { moduleUrl } descriptor.';

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------
// extraImports (SDK-CONTRACT 2.9)

// Resolves { moduleUrl, exportName = "default", config } entries into
// { factory, config } by importing the module; other entries pass through.
export async function resolveModuleExtraImports(entries) {
  const list = Array.isArray(entries) ? entries : entries == null ? [] : [entries];
  const resolved = [];
  for (const entry of list) {
    if (entry && typeof entry === "object" && typeof entry.factory !== "function" && entry.moduleUrl) {
      const url = String(entry.moduleUrl);
      const exportName = entry.exportName ?? "default";
      const mod = await import(url);
      const factory = mod?.[exportName];
      if (typeof factory !== "function") {
        throw new TypeError(`extraImports module ${url} exports no factory "${exportName}".`);
      }
      resolved.push({ factory, config: entry.config ?? null });
    } else {
      resolved.push(entry);
    }
  }
  return resolved;
}

function describeEntry(entry) {
  if (entry === null || typeof entry !== "object") return String(entry);
  try {
    return JSON.stringify(entry, (key, value) =>
      value instanceof SharedArrayBuffer || ArrayBuffer.isView(value) ? `[${value.constructor.name}]` : value,
    );
  } catch {
    return Object.prototype.toString.call(entry);
  }
}

// Factory results: { imports, close } contributes a fragment and a closer;
// any other truthy value is a fragment itself.
// (An import object whose only module is named "imports" would be read as the
// first form; no guest is known to import such a module.)
function isImportsWithClose(result) {
  if (!result || typeof result !== "object") return false;
  if (!result.imports || typeof result.imports !== "object") return false;
  return typeof result.close === "function" || Object.keys(result).every((key) => key === "imports" || key === "close");
}

// Calls every factory once; returns the import fragments and a close() for
// the closers they returned.
export function resolveExtraImports(entries, ctx) {
  const fragments = [];
  const closers = [];
  const close = () => {
    for (const closer of closers.splice(0).reverse()) {
      try {
        closer();
      } catch {
        // One provider's failing close must not keep the others open.
      }
    }
  };
  try {
    for (const entry of entries ?? []) {
      let result;
      if (typeof entry === "function") {
        result = entry({ ...ctx, config: null });
      } else if (entry && typeof entry === "object" && typeof entry.factory === "function") {
        result = entry.factory({ ...ctx, config: entry.config ?? null });
      } else if (entry && typeof entry === "object" && typeof entry.provider === "string") {
        // flatsql-io and friends are space-data-module-sdk's own providers.
        throw new TypeError(
          `Unresolvable extraImports entry ${describeEntry(entry)}: the "${entry.provider}" provider ` +
            "belongs to space-data-module-sdk's worker runtime. Pass runtimeModule (the URL of a " +
            "module exporting createWasiThreadWorkerRuntime, such as the SDK's) to createWasiThreadSpawn " +
            "so that workers use that runtime, or use a { moduleUrl } factory instead.",
        );
      } else if (entry && typeof entry === "object" && entry.moduleUrl) {
        throw new TypeError(
          `Unresolvable extraImports entry ${describeEntry(entry)}: { moduleUrl } entries must be ` +
            "resolved first with resolveModuleExtraImports()" +
            UNRESOLVABLE_HINT,
        );
      } else {
        throw new TypeError(`Unresolvable extraImports entry ${describeEntry(entry)}${UNRESOLVABLE_HINT}`);
      }
      if (isImportsWithClose(result)) {
        fragments.push(result.imports);
        if (typeof result.close === "function") closers.push(() => result.close());
      } else if (result) {
        fragments.push(result);
      }
    }
  } catch (error) {
    close();
    throw error;
  }
  return { fragments, close };
}

// Module by module, shallow: later fragments win within a module.
export function mergeImportFragments(imports, fragments) {
  for (const fragment of fragments ?? []) {
    if (!fragment || typeof fragment !== "object") continue;
    for (const [moduleName, values] of Object.entries(fragment)) {
      imports[moduleName] = { ...imports[moduleName], ...values };
    }
  }
  return imports;
}

// ---------------------------------------------------------------------------
// Process state: args and env. The SDK's shared process state is opaque to
// this runtime except for {args, env} (and, when present in the SDK's shape,
// the stdin bytes and the exit words of its control array).

function argsOf(processState) {
  return Array.isArray(processState?.args) ? processState.args.map(String) : [];
}

function envOf(processState) {
  const env = processState?.env;
  if (Array.isArray(env)) return env.map(String);
  if (env && typeof env === "object") {
    return Object.entries(env).map(([key, value]) => `${key}=${value}`);
  }
  return [];
}

// SDK layout of createSharedWasiProcess's control words.
const PS_STDIN_CURSOR = 0;
const PS_EXITED = 3;
const PS_EXIT_CODE = 4;

function sharedControlOf(processState) {
  const control = processState?.control;
  return control instanceof Int32Array && control.length >= 5 ? control : null;
}

// stdin over the shared process's input bytes: every thread reads from one
// cursor, reserved by CAS, so a byte is read exactly once process-wide.
class SharedStdin extends Fd {
  constructor(input, control) {
    super();
    this.input = input;
    this.control = control;
  }

  fd_fdstat_get() {
    return { ret: 0, fdstat: new defs.Fdstat(defs.FILETYPE_CHARACTER_DEVICE, 0) };
  }

  fd_read(size) {
    for (;;) {
      const start = Atomics.load(this.control, PS_STDIN_CURSOR);
      const end = Math.min(this.input.length, start + Number(size));
      if (end <= start) return { ret: 0, data: new Uint8Array(0) };
      if (Atomics.compareExchange(this.control, PS_STDIN_CURSOR, start, end) === start) {
        return { ret: 0, data: this.input.slice(start, end) };
      }
    }
  }
}

function stdinOf(processState) {
  const control = sharedControlOf(processState);
  if (control && processState.input instanceof Uint8Array) {
    return new SharedStdin(processState.input, control);
  }
  return new OpenFile(new File(new Uint8Array(0), { readonly: true }));
}

// ---------------------------------------------------------------------------
// Output. A guest thread's stdout/stderr are the owner's: in Node the worker
// passes writeOutput (fs.writeSync to fds 1 and 2, visible even while the
// owner is blocked in a join); elsewhere lines go to the console.

class OutputFd extends ConsoleStdout {
  fd_write(data) {
    try {
      this.write(data);
      return { ret: defs.ERRNO_SUCCESS, nwritten: data.byteLength };
    } catch (error) {
      return { ret: error?.code === "EPIPE" ? defs.ERRNO_PIPE : defs.ERRNO_IO, nwritten: 0 };
    }
  }
}

function consoleOutput(fd) {
  const log = fd === 2 ? console.error.bind(console) : console.log.bind(console);
  const dec = new TextDecoder("utf-8", { fatal: false });
  let pending = "";
  return (bytes) => {
    pending += dec.decode(bytes, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) log(line);
  };
}

function outputFd(fd, writeOutput) {
  const write = typeof writeOutput === "function" ? (bytes) => writeOutput(fd, bytes) : consoleOutput(fd);
  return new OutputFd(write);
}

// ---------------------------------------------------------------------------
// WASI

// Read at each call, not at load: Node's global performance is lazy, and its
// first read loads perf_hooks (about 4 ms of a worker's start, where this is
// loaded but may never wait).
const monotonicNowMs = () =>
  typeof performance !== "undefined" && typeof performance.now === "function" ? performance.now() : Date.now();

let sleepCell = null;
function sleepMs(ms) {
  if (!(ms > 0)) return;
  try {
    sleepCell ??= new Int32Array(new SharedArrayBuffer(4));
    Atomics.wait(sleepCell, 0, 0, ms);
  } catch {
    // An agent that may not block: spin, as the shim would.
    const end = monotonicNowMs() + ms;
    while (monotonicNowMs() < end) {
      // busy wait
    }
  }
}

function fillRandom(target) {
  const cryptoApi = globalThis.crypto;
  if (cryptoApi && typeof cryptoApi.getRandomValues === "function") {
    const chunk = new Uint8Array(Math.min(target.length, 65536));
    for (let offset = 0; offset < target.length; offset += chunk.length) {
      const view = chunk.subarray(0, Math.min(chunk.length, target.length - offset));
      cryptoApi.getRandomValues(view);
      target.set(view, offset);
    }
    return;
  }
  for (let i = 0; i < target.length; i++) target[i] = (Math.random() * 256) | 0;
}

function createThreadWasi({ processState, getMemory, writeOutput }) {
  const args = argsOf(processState);
  const fds = [stdinOf(processState), outputFd(1, writeOutput), outputFd(2, writeOutput)];
  // debug: false explicitly; the shim turns its debug logging on otherwise.
  const wasi = new WASI(args, envOf(processState), fds, { debug: false });
  // The shim reads memory through wasi.inst.exports.memory. A wasi-threads
  // guest imports its memory, so give it an object that always answers with
  // the current memory.
  wasi.inst = {
    get exports() {
      return { memory: getMemory() };
    },
  };
  const control = sharedControlOf(processState);
  const imports = wasi.wasiImport;
  const view = () => new DataView(getMemory().buffer);

  imports.proc_exit = (code) => {
    if (control) {
      Atomics.store(control, PS_EXIT_CODE, code | 0);
      Atomics.store(control, PS_EXITED, 1);
    }
    throw new WasiExitError(code);
  };

  imports.random_get = (ptr, length) => {
    fillRandom(new Uint8Array(getMemory().buffer, ptr >>> 0, length >>> 0));
    return defs.ERRNO_SUCCESS;
  };

  imports.args_sizes_get = (argcPtr, bufSizePtr) => {
    const memory = view();
    let size = 0;
    for (const arg of args) size += encoder.encode(arg).length + 1;
    memory.setUint32(argcPtr, args.length, true);
    memory.setUint32(bufSizePtr, size, true);
    return defs.ERRNO_SUCCESS;
  };

  const shimPollOneoff = imports.poll_oneoff;
  imports.poll_oneoff = (inPtr, outPtr, nsubscriptions, neventsPtr) => {
    if (nsubscriptions !== 1) return shimPollOneoff(inPtr, outPtr, nsubscriptions, neventsPtr);
    const memory = view();
    const sub = defs.Subscription.read_bytes(memory, inPtr);
    if (sub.eventtype !== defs.EVENTTYPE_CLOCK) return defs.ERRNO_NOTSUP;
    const absolute = (sub.flags & defs.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
    let waitMs;
    if (sub.clockid === defs.CLOCKID_MONOTONIC) {
      waitMs = absolute ? Number(sub.timeout) / 1e6 - monotonicNowMs() : Number(sub.timeout) / 1e6;
    } else if (sub.clockid === defs.CLOCKID_REALTIME) {
      waitMs = absolute ? Number(sub.timeout) / 1e6 - Date.now() : Number(sub.timeout) / 1e6;
    } else {
      return defs.ERRNO_INVAL;
    }
    sleepMs(waitMs);
    new defs.Event(sub.userdata, defs.ERRNO_SUCCESS, defs.EVENTTYPE_CLOCK).write_bytes(memory, outPtr);
    // The shim does not write nevents; preview1 requires it.
    if (neventsPtr !== undefined) memory.setUint32(neventsPtr, 1, true);
    return defs.ERRNO_SUCCESS;
  };

  return { wasi, imports };
}

// ---------------------------------------------------------------------------
// The runtime

// Not a module: instantiate() will say so (notAModule).
function memoryImportOf(wasmModule) {
  const entry = moduleImports(wasmModule)?.find((e) => e.kind === "memory");
  return entry ? { module: entry.module, name: entry.name } : { module: "env", name: "memory" };
}

function importsModule(wasmModule, moduleName) {
  return moduleImports(wasmModule)?.some((entry) => entry.module === moduleName) ?? false;
}

// The error of a runtime handed something that is not a compiled module
// (the hosts pass wasmModule on untouched; this is where it is needed).
function notAModule(wasmModule) {
  const what = wasmModule === undefined ? "none was given" : `got ${Object.prototype.toString.call(wasmModule)}`;
  return new TypeError(`createWasiThreadWorkerRuntime: wasmModule must be a compiled WebAssembly.Module (${what}).`);
}

// The instance policy (createThreadRunner) lives in lib/worker/thread-runner.js,
// which has no dependency: the runner's pool worker (lib/program/pool-worker.js)
// uses it without loading this file's WASI shim. Exported from here too, as
// before (the package's "./runtime" entry).
export { createThreadRunner };

// createWasiThreadWorkerRuntime({wasmModule, memory, hostcallChannel,
// processState, extraImports, workerIndex, tid, threadSpawn}) ->
// {imports, instantiate(), close()}, as the SDK's. Extra, optional options:
// writeOutput(fd, bytes), how fds 1 and 2 are written (default: the console,
// line by line); freshInstances, the policy of runThread. Extra members:
// runThread(tid, startArg) (wasi_thread_start on the worker's kept instance,
// see createThreadRunner) and freshInstances.
export function createWasiThreadWorkerRuntime({
  wasmModule,
  memory,
  hostcallChannel = null,
  processState,
  extraImports = [],
  workerIndex,
  tid,
  threadSpawn,
  writeOutput,
  freshInstances = false,
} = {}) {
  let instance = null;
  let currentMemory = memory;
  const getMemory = () => instance?.exports?.memory ?? currentMemory;

  const { imports: wasiImports } = createThreadWasi({
    processState,
    getMemory: () => currentMemory,
    writeOutput,
  });

  // The shared memory goes under whatever name the guest imports it
  // (env.memory for wasm-ld's default).
  const memoryImport = memoryImportOf(wasmModule);
  const imports = {
    wasi_snapshot_preview1: wasiImports,
    env: {},
    wasi: { "thread-spawn": typeof threadSpawn === "function" ? threadSpawn : () => -1 },
  };
  imports[memoryImport.module] = { ...imports[memoryImport.module], [memoryImport.name]: memory };
  // A guest rewritten by compileWasiThreadGuest's memory pass: its
  // memory.size/memory.grow over the counter of this reserved memory
  // (lib/wasm/memory-counter.js; the host registered it, or it is reserved here).
  const memoryPages = guestMemoryCounter(wasmModule, memory, declaredSharedMaximum(wasmModule));
  if (memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(memoryPages);

  const extras = resolveExtraImports(extraImports, {
    memory,
    getMemory,
    workerIndex: workerIndex ?? null,
    tid: tid ?? null,
  });
  mergeImportFragments(imports, extras.fragments);
  // The shared memory always wins, whatever a fragment said.
  imports[memoryImport.module] = { ...imports[memoryImport.module], [memoryImport.name]: memory };

  // The SDK bridges space_data_module_host hostcalls to the owning thread;
  // that bridge is SDK-specific and not part of this runtime. A fragment may
  // still provide the namespace; otherwise refuse early and clearly.
  if (importsModule(wasmModule, HOSTCALL_IMPORT_MODULE) && !imports[HOSTCALL_IMPORT_MODULE]) {
    extras.close();
    void hostcallChannel; // accepted for the SDK's signature; see above
    throw new Error(
      `A threaded guest that imports ${HOSTCALL_IMPORT_MODULE} needs space-data-module-sdk's ` +
        "hostcall bridge, which wasi-thread-pool's worker runtime does not provide. Pass runtimeModule " +
        "(the URL of the SDK's wasiThreadWorkerRuntime.js, or any module exporting " +
        "createWasiThreadWorkerRuntime) to createWasiThreadSpawn, or provide the " +
        `${HOSTCALL_IMPORT_MODULE} imports through an extraImports factory.`,
    );
  }

  const runtime = {
    imports,
    freshInstances: freshInstances === true,
    // A fresh instance over the same imports and the same memory; the caller
    // runs wasi_thread_start on it. No _initialize: the owner's instance
    // initialised the shared memory once.
    instantiate() {
      if (moduleImports(wasmModule) === null) throw notAModule(wasmModule);
      const made = new WebAssembly.Instance(wasmModule, imports);
      instance = made;
      currentMemory = made.exports.memory ?? memory;
      return made;
    },
    runThread(tid, startArg) {
      runner.run(tid, startArg);
    },
    close() {
      runner.discard();
      extras.close();
    },
  };
  const runner = createThreadRunner(runtime, { freshInstances });
  return runtime;
}
