// What runWasiThreadsProgram (lib/program/run.js) and the CLI's program
// (lib/program/process.js) share before the guest's main thread runs: the
// options, checked and normalized; the module, checked (a command, its
// memory, its imports: lib/program/link.js) and compiled; and the program
// its threads share (memory, pool, control words, thread words, C WASI).
// Light on purpose (the CLI's start-up): no Worker, no host.

import { statSync } from "node:fs";
import { compileWasiThreadGuestStored } from "../worker/liftoff.js";
import { createWasiThreadPool, terminateWasiThreadPool } from "../pool.js";
import { createProgramControl } from "./control.js";
import { docsLink } from "./docs.js";
import { checkProgramImports } from "./link.js";
import { DEFAULT_MAX_THREADS, DEFAULT_POOL_SIZE, MOST_THREADS, createGrowTimes, createThreadWords } from "./threads.js";
import { declarationsOf, describePlainMemory, describeProgramMemory } from "../worker/wasm-memory.js";
import { growthRemedyWanted } from "../worker/guest-memory.js";
import { createProgramWasi, programWasiUnavailable, tellFallbackOnce } from "./wasi.js";
import { makeProgramMemory, reservesMemory } from "./memory.js";
import { createStartRequests } from "./starts.js";

const OPTION_NAMES = ["args", "env", "stdin", "stdout", "stderr", "preopens", "poolSize", "maxThreads", "implementation"];

function fail(Kind, message) {
  throw new Kind(`runWasiThreadsProgram: ${message}`);
}

// An argument or an environment value: a string, passed as its UTF-8, or a
// Uint8Array of exact bytes (a value that is not UTF-8: the CLI passes such
// bytes from the host). A string that is not well-formed (a lone surrogate)
// has no UTF-8 and would reach the program altered: refused, as a NUL is.
function checkValue(value, what) {
  const bytes = value instanceof Uint8Array;
  if (bytes ? value.includes(0) : value.includes("\0"))
    fail(TypeError, `${what} contains a NUL character, which WASI cannot pass.`);
  if (!bytes && !value.isWellFormed()) {
    fail(TypeError, `${what} holds a lone surrogate, which has no UTF-8: pass the program's bytes as a Uint8Array.`);
  }
  return bytes ? Uint8Array.from(value) : value;
}

const isValue = (value) => typeof value === "string" || value instanceof Uint8Array;

function normalizeArgs(args) {
  if (args === undefined) return ["program"];
  if (!Array.isArray(args) || !args.every(isValue)) {
    fail(TypeError, "options.args must be an array of strings or Uint8Arrays (args[0] is the program's name).");
  }
  const checked = args.map((arg, i) => checkValue(arg, `options.args[${i}]`));
  return checked.length === 0 ? ["program"] : checked;
}

function normalizeEnv(env) {
  if (env === undefined) return {};
  if (env === null || typeof env !== "object" || Array.isArray(env)) {
    fail(TypeError, "options.env must be an object of NAME: value strings.");
  }
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (!isValue(value)) fail(TypeError, `options.env.${key} must be a string or a Uint8Array.`);
    if (key.includes("=")) fail(TypeError, `options.env name ${JSON.stringify(key)} contains "=".`);
    checkValue(key, `options.env name ${JSON.stringify(key)}`);
    out[key] = checkValue(value, `options.env.${key}`);
  }
  return out;
}

function normalizePreopens(preopens) {
  if (preopens === undefined) return {};
  if (preopens === null || typeof preopens !== "object" || Array.isArray(preopens)) {
    fail(TypeError, 'options.preopens must be an object { "/guest/path": "host/dir" }.');
  }
  for (const [guest, host] of Object.entries(preopens)) {
    if (typeof host !== "string") fail(TypeError, `options.preopens[${JSON.stringify(guest)}] must be a string.`);
    // Refused before the program starts, as wasmtime refuses a --dir it cannot open.
    let isDirectory = false;
    try {
      isDirectory = statSync(host).isDirectory();
    } catch {
      // not there, or not reachable: said below
    }
    if (!isDirectory) fail(Error, `cannot open directory ${JSON.stringify(host)} (preopened as ${JSON.stringify(guest)}).`);
  }
  return { ...preopens };
}

// stdout/stderr: the process's own fd by default; a number is an fd; a
// stream with a numeric fd (process.stdout, an opened fs.WriteStream) is
// written through that fd; any other writable stream gets the bytes from
// the output ring (lib/program/control.js), fd -1 for the threads.
function normalizeOutput(value, name, fallback) {
  if (value === undefined) return { fd: fallback, stream: null };
  if (Number.isInteger(value) && value >= 0) return { fd: value, stream: null };
  if (value && typeof value === "object" && Number.isInteger(value.fd) && value.fd >= 0) {
    return { fd: value.fd, stream: null };
  }
  if (value && typeof value.write === "function") return { fd: -1, stream: value };
  fail(TypeError, `options.${name} must be a file descriptor or a writable stream.`);
}

function normalizeStdin(stdin) {
  // process.stdin is looked up only when the program first reads.
  if (stdin === undefined) return { stream: null, processStdin: true };
  if (stdin === null) return { bytes: new Uint8Array(0) };
  if (typeof stdin === "string") return { bytes: new TextEncoder().encode(stdin) };
  if (stdin instanceof Uint8Array) return { bytes: stdin };
  if (stdin && typeof stdin.on === "function" && typeof stdin.pause === "function") return { stream: stdin };
  fail(TypeError, "options.stdin must be a readable stream, a string, a Uint8Array or null (empty).");
}

export function normalizeOptions(options) {
  if (options === null || typeof options !== "object") fail(TypeError, "options must be an object.");
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) fail(TypeError, `unknown option ${JSON.stringify(key)}.`);
  }
  const { poolSize, maxThreads, implementation } = options;
  if (poolSize !== undefined && !(Number.isInteger(poolSize) && poolSize >= 1 && poolSize <= MOST_THREADS)) {
    fail(RangeError, `options.poolSize must be an integer from 1 to ${MOST_THREADS} (the most pool workers alive at once).`);
  }
  if (maxThreads !== undefined && !(Number.isInteger(maxThreads) && maxThreads >= 0 && maxThreads <= MOST_THREADS)) {
    fail(
      RangeError,
      `options.maxThreads must be an integer from 0 to ${MOST_THREADS} (the most threads alive at once, the main thread not counted).`,
    );
  }
  if (implementation !== undefined && implementation !== "native" && implementation !== "js") {
    fail(RangeError, `options.implementation must be "native" or "js".`);
  }
  return {
    args: normalizeArgs(options.args),
    env: normalizeEnv(options.env),
    preopens: normalizePreopens(options.preopens),
    stdout: normalizeOutput(options.stdout, "stdout", 1),
    stderr: normalizeOutput(options.stderr, "stderr", 2),
    stdin: normalizeStdin(options.stdin),
    poolSize: poolSize ?? DEFAULT_POOL_SIZE,
    maxThreads: maxThreads ?? DEFAULT_MAX_THREADS,
    implementation,
  };
}

// The errors of the module itself that loadProgram throws (it is not wasm,
// cannot be linked or compiled, or is not a command), as opposed to the
// options' or the environment's: the CLI names the module's file in them
// (lib/program/cli-main.js).
const moduleFaults = new WeakSet();

export function isModuleFault(error) {
  return error !== null && typeof error === "object" && moduleFaults.has(error);
}

function asModuleFault(error) {
  if (error !== null && typeof error === "object") moduleFaults.add(error);
  return error;
}

// The module's {memory, threaded}, or its fault.
function declarationsOfProgram(wasm) {
  try {
    const declarations = declarationsOf(wasm); // throws TypeError with the reason
    // A wasi-threads program (it imports thread-spawn or a shared memory): one
    // imported shared memory (TypeError otherwise). A plain program: its own
    // memory, or one imported non-shared memory, on one thread.
    const threaded =
      declarations.all.some((e) => e.module === "wasi" && e.name === "thread-spawn") ||
      declarations.imports.some((m) => m.shared);
    const memory = threaded ? describeProgramMemory(wasm) : describePlainMemory(declarations);
    checkProgramImports(declarations.all, { threaded }); // WebAssembly.LinkError naming the import
    return { memory, threaded };
  } catch (error) {
    throw asModuleFault(error);
  }
}

// store: where the bytes the passes make are kept between runs (the CLI's
// module cache, lib/program/module-cache.js), or null.
export async function loadProgram(wasm, { store = null } = {}) {
  const { memory, threaded } = declarationsOfProgram(wasm);
  let wasmModule;
  if (wasm instanceof WebAssembly.Module) {
    wasmModule = wasm; // compiled by compileWasiThreadGuest (or describeProgramMemory threw)
  } else {
    const bytes = ArrayBuffer.isView(wasm) ? new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength) : new Uint8Array(wasm);
    // A threaded program's memory.grow/memory.size become calls over a
    // shared counter (lib/worker/guest-memory.js): then `reserved`, and its
    // memory is made at its maximum (lib/program/memory.js). The pass's
    // switch is read first: a bad value is the environment's fault; any
    // error of the passes or the compile is the module's.
    growthRemedyWanted();
    try {
      wasmModule = await compileWasiThreadGuestStored(bytes, undefined, store);
    } catch (error) {
      throw asModuleFault(error);
    }
  }
  const exports = WebAssembly.Module.exports(wasmModule);
  if (!exports.some((e) => e.name === "_start" && e.kind === "function")) {
    const error = new TypeError(
      "runWasiThreadsProgram: this module exports no _start function: it is not a command. A reactor (_initialize and " +
        `exported functions) is run with createWasiThreadSpawn (${docsLink("api.md", "reactors")}).`,
    );
    throw asModuleFault(error);
  }
  return { wasmModule, memory, threaded, reserved: threaded && reservesMemory(wasmModule) };
}

// The program's memory, pool, control words and WASI, as its threads will
// share them (processState.program). ownsProcess: the program's end ends the
// process (the CLI, lib/program/process.js), instead of being reported to a
// supervisor.
export async function makeProgram(opts, { wasmModule, memory: memoryType, threaded, reserved }, { ownsProcess = false } = {}) {
  const fallback = programWasiUnavailable();
  if (fallback && hasBytes(opts)) {
    fail(Error, `an argument or environment value is not UTF-8, and node:wasi (used here: ${fallback.reason}) passes text only.`);
  }
  // A plain program has no pool: its one thread makes its memory (a
  // non-shared one cannot be sent to a worker). A rewritten program's
  // memory is made at its maximum, its size kept in memoryPages.
  const { memory, memoryPages } = threaded ? makeProgramMemory(memoryType, reserved) : { memory: null, memoryPages: null };
  // A program's spawn never waits inside the pool (lib/program/threads.js:
  // below its thread limit it queues a thread rather than fail it); the SDK
  // host's 250 ms are not a program's rule.
  const pool = threaded
    ? createWasiThreadPool({ capacity: opts.poolSize, spawnWaitMs: 0, implementation: opts.implementation })
    : null;
  // The program's one C WASI (lib/program/wasi.js), or node:wasi per thread.
  // Made last before the main worker: its descriptors are released at the end.
  const unavailable = programWasiUnavailable();
  if (unavailable) tellFallbackOnce(unavailable);
  const { control, stdinBuffer, trapText, outRing } = createProgramControl({
    outputRing: unavailable !== null && (opts.stdout.stream !== null || opts.stderr.stream !== null),
  });
  const programWasi = unavailable ? null : await createProgramWasiOrClose(opts, pool);
  const program = {
    pool,
    control,
    stdinBuffer,
    trapText,
    outRing,
    // The thread limit, the queue and the workers' start times of a threaded
    // program (lib/program/threads.js); a plain program has none.
    threads: threaded ? createThreadWords(opts.maxThreads) : null,
    growTimes: threaded ? createGrowTimes(opts.poolSize) : null,
    // The workers its threads ask the supervisor to start (lib/program/starts.js).
    starts: threaded ? createStartRequests() : null,
    // The program's size in pages when its memory is reserved
    // (lib/program/memory.js), read and grown by every thread; else null.
    memoryPages,
    args: opts.args,
    env: opts.env,
    preopens: opts.preopens,
    stdoutFd: opts.stdout.fd,
    stderrFd: opts.stderr.fd,
    wasiId: programWasi?.id ?? 0,
    execArgv: await workerExecArgvOf(process.execArgv),
    poolSize: opts.poolSize,
    ownsProcess,
  };
  const plainMemory = threaded ? null : memoryType;
  return { program, threaded, wasmModule, memory, plainMemory, pool, programWasi };
}

// Some argument or environment value is given as bytes (not UTF-8).
function hasBytes(opts) {
  return [...opts.args, ...Object.values(opts.env)].some((value) => value instanceof Uint8Array);
}

// The program's C WASI; if it cannot be made (a preopen), the pool made for
// the program (none for a plain program) is closed (no worker runs yet) and
// the error thrown.
async function createProgramWasiOrClose(opts, pool) {
  try {
    return await createProgramWasi(opts);
  } catch (error) {
    if (pool !== null) terminateWasiThreadPool(pool);
    throw error;
  }
}

// The workers' execArgv (lib/host/node.js, workerExecArgv), loaded only when
// the process has the flag that needs it.
async function workerExecArgvOf(execArgv) {
  if (!execArgv.some((arg) => arg.startsWith("--input-type"))) return undefined;
  const { workerExecArgv } = await import("../host/node.js");
  return workerExecArgv(execArgv);
}
