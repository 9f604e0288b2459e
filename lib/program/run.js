// runWasiThreadsProgram: runs a wasi-threads command program (a module with
// _start) with WASI's process semantics, the way `wasmtime run` runs one
// (docs/runner.md). Node only.
//
// The room: lib/program/ owns the program runner (Node only): the supervisor, the command line, the
// link check, the guest's main thread, the program's threads and their workers, and the per-thread
// WASI runtimes (the C WASI's glue or node:wasi). It may import every other room of lib/; nothing
// outside it imports it but the entries and bin/.
//
// The caller's thread is the supervisor: it never runs guest code and never
// blocks. The guest's main thread runs in a worker (lib/program/main-worker.js),
// its other threads on the pool's workers (lib/worker/node.js with
// lib/program/wasi-c.js as their runtime over the program's one C WASI, or
// lib/program/wasi-node.js, node:wasi per thread, where that is not there); a plain
// single-threaded program has no pool, only its main thread. Every thread reports to the supervisor
// through shared words (lib/program/control.js) that the supervisor waits on
// with Atomics.waitAsync. When the program ends (proc_exit or _start's return
// on any thread, or a trap on any thread) the supervisor retires the pool,
// wakes native waits, and terminates the main thread's worker, which ends
// every pool worker with it; then it resolves {exitCode}.

import { statSync, write } from "node:fs";
import { Worker } from "node:worker_threads";
import { native } from "../native/binding.js";
import { compileWasiThreadGuest } from "../worker/liftoff.js";
import { HEADER_WORDS, H_SLOTS, SLOT_WORDS, S_THREAD } from "../pool/layout.js";
import { workerExecArgv } from "../host/node.js";
import { createWasiThreadPool, terminateWasiThreadPool, wasiThreadPoolImplementationOf } from "../pool.js";
import {
  C_DOORBELL,
  C_EXIT_CODE,
  C_STATE,
  C_STDIN_LEN,
  C_STDIN_POS,
  C_STDIN_STATE,
  C_TRAP_LEN,
  STATE_FAILED,
  STATE_RUNNING,
  STATE_TRAPPED,
  STDIN_EOF,
  STDIN_FULL,
  STDIN_REQUESTED,
  createProgramControl,
  drainOutputRing,
} from "./control.js";
import { checkProgramImports } from "./link.js";
import { createSupervisorSpawn } from "./pool.js";
import {
  DEFAULT_MAX_THREADS,
  DEFAULT_POOL_SIZE,
  createGrowTimes,
  createThreadWords,
  stopThreadQueue,
  watchThreadQueue,
} from "./threads.js";
import { declarationsOf, describePlainMemory, describeProgramMemory } from "../worker/wasm-memory.js";
import { createProgramWasi, programWasiUnavailable, tellFallbackOnce } from "./wasi.js";

const PROGRAM_WORKER_URL = new URL("./main-worker.js", import.meta.url);

// A trap ends the program the way an abort ends a process: 128 + SIGABRT.
export const TRAP_EXIT_CODE = 134;
// proc_exit outside [0..126): an error, as wasmtime reports it.
const FAILED_EXIT_CODE = 1;

const OPTION_NAMES = ["args", "env", "stdin", "stdout", "stderr", "preopens", "poolSize", "maxThreads", "implementation"];
// A pool's capacity is at most this (lib/pool/validate.js, checkCapacity).
const MOST_THREADS = 0x0ffffffe;

function fail(Kind, message) {
  throw new Kind(`runWasiThreadsProgram: ${message}`);
}

function normalizeArgs(args) {
  if (args === undefined) return ["program"];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    fail(TypeError, "options.args must be an array of strings (args[0] is the program's name).");
  }
  args.forEach((arg, i) => {
    if (arg.includes("\0")) fail(TypeError, `options.args[${i}] contains a NUL character, which WASI cannot pass.`);
  });
  return args.length === 0 ? ["program"] : args;
}

function normalizeEnv(env) {
  if (env === undefined) return {};
  if (env === null || typeof env !== "object" || Array.isArray(env)) {
    fail(TypeError, "options.env must be an object of NAME: value strings.");
  }
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value !== "string") fail(TypeError, `options.env.${key} must be a string.`);
    if (key.includes("=")) fail(TypeError, `options.env name ${JSON.stringify(key)} contains "=".`);
    if (key.includes("\0") || value.includes("\0")) {
      fail(TypeError, `options.env.${key} contains a NUL character, which WASI cannot pass.`);
    }
    out[key] = value;
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

function normalizeOptions(options) {
  if (options === null || typeof options !== "object") fail(TypeError, "options must be an object.");
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) fail(TypeError, `unknown option ${JSON.stringify(key)}.`);
  }
  const { poolSize, maxThreads, implementation } = options;
  if (poolSize !== undefined && !(Number.isInteger(poolSize) && poolSize >= 1 && poolSize <= MOST_THREADS)) {
    fail(RangeError, "options.poolSize must be a positive integer (the most pool workers alive at once).");
  }
  if (maxThreads !== undefined && !(Number.isInteger(maxThreads) && maxThreads >= 0 && maxThreads <= MOST_THREADS)) {
    fail(
      RangeError,
      "options.maxThreads must be a non-negative integer (the most threads alive at once, the main thread not counted).",
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

async function loadProgram(wasm) {
  const declarations = declarationsOf(wasm); // throws TypeError with the reason
  // A wasi-threads program (it imports thread-spawn or a shared memory): one
  // imported shared memory (TypeError otherwise). A plain program: its own
  // memory, or one imported non-shared memory, on one thread.
  const threaded =
    declarations.all.some((e) => e.module === "wasi" && e.name === "thread-spawn") || declarations.imports.some((m) => m.shared);
  const memory = threaded ? describeProgramMemory(wasm) : describePlainMemory(declarations);
  checkProgramImports(declarations.all, { threaded }); // WebAssembly.LinkError naming the import
  let wasmModule;
  if (wasm instanceof WebAssembly.Module) {
    wasmModule = wasm; // compiled by compileWasiThreadGuest (or describeProgramMemory threw)
  } else {
    const bytes = ArrayBuffer.isView(wasm) ? new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength) : new Uint8Array(wasm);
    wasmModule = await compileWasiThreadGuest(bytes);
  }
  const exports = WebAssembly.Module.exports(wasmModule);
  if (!exports.some((e) => e.name === "_start" && e.kind === "function")) {
    fail(
      TypeError,
      "this module exports no _start function: it is not a command. A reactor (_initialize and " +
        'exported functions) is run with createWasiThreadSpawn (docs/api.md, "Reactors").',
    );
  }
  return { wasmModule, memory, threaded };
}

// Hands stdin to the program's readers, chunk by chunk, only when one asks.
function createStdinFeeder(source, control, stdinBuffer) {
  const pending = [];
  let ended = false;
  let attached = false;
  let stream = source.stream ?? null;
  if (source.bytes) {
    if (source.bytes.length > 0) pending.push(source.bytes);
    ended = true;
  }

  function serve() {
    if (Atomics.load(control, C_STDIN_STATE) !== STDIN_REQUESTED) return;
    if (pending.length > 0) {
      const chunk = pending[0];
      const take = Math.min(chunk.length, stdinBuffer.length);
      stdinBuffer.set(chunk.subarray(0, take));
      if (take === chunk.length) pending.shift();
      else pending[0] = chunk.subarray(take);
      Atomics.store(control, C_STDIN_LEN, take);
      Atomics.store(control, C_STDIN_POS, 0);
      Atomics.store(control, C_STDIN_STATE, STDIN_FULL);
      Atomics.notify(control, C_STDIN_STATE);
    } else if (ended) {
      Atomics.store(control, C_STDIN_STATE, STDIN_EOF);
      Atomics.notify(control, C_STDIN_STATE);
    } else if (stream || source.processStdin) {
      stream ??= process.stdin;
      attach();
      stream.resume();
    }
  }

  const onData = (chunk) => {
    stream.pause();
    pending.push(
      typeof chunk === "string"
        ? new TextEncoder().encode(chunk)
        : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
    serve();
  };
  const onEnd = () => {
    ended = true;
    serve();
  };

  function attach() {
    if (attached) return;
    attached = true;
    if (typeof stream.ref === "function") stream.ref();
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onEnd);
  }

  // A paused socket (process.stdin on a pipe) goes on reading into its
  // buffer and keeps the event loop alive: unref'd after the program, it no
  // longer holds the caller's process (ref() it to read it again).
  const detach = () => {
    stream.off("data", onData);
    stream.off("end", onEnd);
    stream.off("error", onEnd);
    stream.pause();
    if (typeof stream.unref === "function") stream.unref();
  };

  return {
    serve,
    close() {
      if (attached) detach();
    },
  };
}

export async function runWasiThreadsProgram(wasm, options = {}) {
  const opts = normalizeOptions(options ?? {});
  const run = makeProgram(opts, await loadProgram(wasm));
  const { program } = run;
  startMainThread(run, opts);
  // Records of the ring go to their stream as they come, in order; the
  // streams buffer what they cannot pass on yet (no 'drain' is awaited, so
  // a stream read only after the program cannot block it).
  const streams = { 1: opts.stdout.stream, 2: opts.stderr.stream };
  const drainOutput = () => drainOutputRing(program, (fd, bytes) => streams[fd]?.write(bytes));
  // The C WASI reads stdin itself (lib/program/wasi.js feeds what is not a descriptor).
  const feeder = run.programWasi
    ? { serve() {}, close() {} }
    : createStdinFeeder(opts.stdin, program.control, program.stdinBuffer);
  await supervise(run, drainOutput, feeder);
  await stopEverything(run);
  // Every byte a thread wrote before it ended the program: the output pipes
  // to their end (C WASI), or the ring's records.
  await run.programWasi?.release();
  drainOutput();
  return outcome(program, run.workerFault, (text) => writeText(opts.stderr, text));
}

// The program's memory, pool, control words and WASI, as its threads will
// share them (processState.program).
function makeProgram(opts, { wasmModule, memory: memoryType, threaded }) {
  // A plain program has no pool: its one thread is the main thread's worker,
  // which makes its memory (a non-shared one cannot be sent to a worker).
  const memory = threaded
    ? new WebAssembly.Memory({ initial: memoryType.initial, maximum: memoryType.maximum, shared: true })
    : null;
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
  const programWasi = unavailable ? null : createProgramWasiOrClose(opts, pool);
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
    args: opts.args,
    env: opts.env,
    preopens: opts.preopens,
    stdoutFd: opts.stdout.fd,
    stderrFd: opts.stderr.fd,
    wasiId: programWasi?.id ?? 0,
    execArgv: workerExecArgv(process.execArgv),
  };
  const plainMemory = threaded ? null : memoryType;
  return { program, threaded, wasmModule, memory, plainMemory, pool, programWasi, workerFault: null, workerGone: false };
}

// The guest's main thread's worker and, for a threaded program, the watch
// over its queue of threads (lib/program/threads.js). Sets run.worker,
// run.supervisorSpawn, run.queueWatch, and run.workerFault / run.workerGone
// as the worker fails or exits (each also wakes the supervision loop).
function startMainThread(run, opts) {
  const { program, threaded, wasmModule, memory, plainMemory, pool } = run;
  const processState = { program };
  run.worker = new Worker(PROGRAM_WORKER_URL, {
    execArgv: program.execArgv,
    workerData: { wasmModule, memory, plainMemory, pool, processState },
  });
  run.worker.on("error", (error) => {
    run.workerFault = error;
    run.poke?.();
  });
  run.worker.on("exit", () => {
    run.workerGone = true;
    run.poke?.();
  });
  // Workers for queued threads that nobody picks up; a plain program has no
  // pool and spawns nothing.
  run.supervisorSpawn = threaded ? createSupervisorSpawn({ wasmModule, memory, processState }) : null;
  run.queueWatch = threaded
    ? watchThreadQueue(program, {
        ...run.supervisorSpawn,
        onFullStall: (queued) =>
          writeText(
            opts.stderr,
            `wasi-thread-pool: ${queued} thread(s) wait for a worker, and all ${opts.poolSize} workers (poolSize, --pool) ` +
              "run threads that do not end: if those wait for the queued ones, the program waits for ever.\n",
          ),
      })
    : null;
}

// The supervision loop, until the program ends or its main worker fails:
// read the doorbell, act on the words, wait on the value read (a ring in
// between returns the wait at once).
async function supervise(run, drainOutput, feeder) {
  const { control } = run.program;
  try {
    for (;;) {
      const seen = Atomics.load(control, C_DOORBELL);
      if (Atomics.load(control, C_STATE) !== STATE_RUNNING) break;
      if (run.workerFault || run.workerGone) break;
      drainOutput();
      feeder.serve();
      const waiting = Atomics.waitAsync(control, C_DOORBELL, seen);
      if (waiting.async) {
        await new Promise((resolve) => {
          run.poke = resolve;
          waiting.value.then(resolve);
        });
        run.poke = null;
      }
    }
  } finally {
    feeder.close();
    // The last Atomics.waitAsync of the loop may still be pending: wake it,
    // so that V8 drops its waiter.
    Atomics.notify(control, C_DOORBELL);
  }
}

// Every thread stops: the queue watch, then the WASI (calls blocked in it
// return and park before the terminate), then the workers.
async function stopEverything(run) {
  if (run.threaded) {
    stopThreadQueue(run.program);
    await run.queueWatch;
  }
  run.programWasi?.stop();
  await stopProgram(run.pool, run.worker, run.supervisorSpawn?.ownWorkers ?? []);
}

// {exitCode} from the program's end state; a failure's text to stderr.
async function outcome(program, workerFault, writeStderr) {
  const { control, trapText } = program;
  const state = Atomics.load(control, C_STATE);
  if (state === STATE_RUNNING) {
    // The main thread's worker failed before the program could end itself.
    const why = workerFault ? (workerFault.stack ?? String(workerFault)) : "its worker exited";
    await writeStderr(`wasi-thread-pool: the program's main thread's worker failed: ${why}\n`);
    return { exitCode: TRAP_EXIT_CODE };
  }
  if (state === STATE_TRAPPED || state === STATE_FAILED) {
    const text = new TextDecoder().decode(trapText.slice(0, Atomics.load(control, C_TRAP_LEN)));
    await writeStderr(`wasi-thread-pool: ${text}\n`);
    return { exitCode: state === STATE_TRAPPED ? TRAP_EXIT_CODE : FAILED_EXIT_CODE };
  }
  return { exitCode: Atomics.load(control, C_EXIT_CODE) >>> 0 };
}

// The program's C WASI; if it cannot be made (a preopen), the pool made for
// the program (none for a plain program) is closed (no worker runs yet) and
// the error thrown.
function createProgramWasiOrClose(opts, pool) {
  try {
    return createProgramWasi(opts);
  } catch (error) {
    if (pool !== null) terminateWasiThreadPool(pool);
    throw error;
  }
}

// Every thread of the program stops: no slot can be claimed or served any
// more, native waits return, and the main thread's worker (with every pool
// worker under it) is terminated.
async function stopProgram(pool, worker, ownWorkers) {
  if (pool === null) {
    await worker.terminate(); // a plain program: its one thread
    return;
  }
  const nativePool = native.binding !== null && wasiThreadPoolImplementationOf(pool) === "native";
  // Closed: every spawn on any thread declines and starts no worker (a
  // grow() already under way may, and that worker finds its slot retired:
  // src/core/wtp.h, "Closing a pool"); every slot in service is retired (idle
  // serve loops return).
  const retired = terminateWasiThreadPool(pool);
  // Pool workers are not this thread's workers, so the terminate hook of
  // lib/native/backend.js does not see them: wake their native waits by thread id.
  if (nativePool) {
    const control = pool.control;
    const slots = Math.min(Atomics.load(control, H_SLOTS), retired);
    for (let slot = 0; slot < slots; slot++) {
      const osThread = Atomics.load(control, HEADER_WORDS + SLOT_WORDS * slot + S_THREAD);
      if (osThread > 0) native.binding.interruptThread(osThread);
    }
  }
  await Promise.all([worker, ...ownWorkers].map((w) => w.terminate()));
}

// The runner's own message (a trap) to the program's stderr.
function writeText({ fd, stream }, text) {
  if (stream) {
    stream.write(text);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    if (fd === 2) process.stderr.write(text, () => resolve());
    else write(fd, text, () => resolve());
  });
}
