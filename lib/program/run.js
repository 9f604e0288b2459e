// runWasiThreadsProgram: runs a wasi-threads command program (a module with
// _start) with WASI's process semantics, the way `wasmtime run` runs one
// (docs/runner.md). Node only.
//
// The room: lib/program/ owns the program runner: on Node the supervisor, the command line, the
// link check, the guest's main thread, the program's threads and their workers, and the per-thread
// WASI runtimes (the C WASI's glue or node:wasi); in browsers its browser half, lib/program/browser/
// (browser-safe, behind run.browser.js). It may import every other room of lib/; nothing outside it
// imports it but the entries and bin/.
//
// The caller's thread is the supervisor: it never runs guest code and never
// blocks (the CLI's process, which is the program's, runs the guest's main
// thread on its own main thread instead: lib/program/process.js). The
// guest's main thread runs in a worker (lib/program/main-worker.js),
// its other threads on the pool's workers (lib/worker/node.js with
// lib/program/wasi-c.js as their runtime over the program's one C WASI, or
// lib/program/wasi-node.js, node:wasi per thread, where that is not there); a plain
// single-threaded program has no pool, only its main thread. Every thread reports to the supervisor
// through shared words (lib/program/control.js) that the supervisor waits on
// with Atomics.waitAsync. When the program ends (proc_exit or _start's return
// on any thread, or a trap on any thread) the supervisor retires the pool,
// wakes native waits, and terminates every worker of the program: all of them
// are its own (lib/program/starts.js), so none outlives the thread that made
// it. Then it gives the program's memory back to the OS and resolves
// {exitCode}.

import { write } from "node:fs";
import { Worker } from "node:worker_threads";
import { native } from "../native/binding.js";
import { HEADER_WORDS, H_SLOTS, SLOT_WORDS, S_THREAD } from "../pool/layout.js";
import { terminateWasiThreadPool, wasiThreadPoolImplementationOf } from "../pool.js";
import {
  C_DOORBELL,
  C_STATE,
  C_STDIN_LEN,
  C_STDIN_POS,
  C_STDIN_STATE,
  STATE_RUNNING,
  STDIN_EOF,
  STDIN_FULL,
  STDIN_REQUESTED,
  TRAP_EXIT_CODE,
  closeOutputRing,
  drainOutputRing,
  fullStallMessage,
  programOutcome,
} from "./control.js";
import { releaseProgramMemory } from "./memory.js";
import { createOutputSink, streamClosed } from "./output-stream.js";
import { createSupervisorSpawn, openSpareSlots, startSpare } from "./pool.js";
import { loadProgram, makeProgram, normalizeOptions } from "./setup.js";
import { spareCount } from "./spare-worker.js";
import { stopThreadQueue, watchThreadQueue } from "./threads.js";

export { TRAP_EXIT_CODE } from "./control.js";

const PROGRAM_WORKER_URL = new URL("./main-worker.js", import.meta.url);

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
  const spares = spareCount(); // WASI_THREAD_POOL_SPARE, checked before anything is made
  const run = await makeProgram(opts, await loadProgram(wasm));
  run.workerFault = null;
  run.workerGone = false;
  const { program } = run;
  // The node:wasi fallback's output ring to its streams (the C WASI's pipes
  // are read by lib/program/wasi.js).
  const output = program.outRing ? createRingOutput(run, opts) : { drain() {}, finish() {} };
  startMainThread(run, opts, spares);
  // The C WASI reads stdin itself (lib/program/wasi.js feeds what is not a descriptor).
  const feeder = run.programWasi
    ? { serve() {}, close() {} }
    : createStdinFeeder(opts.stdin, program.control, program.stdinBuffer);
  await supervise(run, output.drain, feeder);
  await stopEverything(run);
  // Every byte a thread wrote before it ended the program: the output pipes
  // to their end (C WASI), or the ring's records.
  await run.programWasi?.release();
  output.finish();
  // Every worker of the program has exited (stopEverything): its memory is garbage.
  releaseProgramMemory(run.memory);
  return outcome(program, run.workerFault, (text) => writeText(opts.stderr, text));
}

// The ring's records go to their streams as they come, in order, as a
// pipe's reader takes them (lib/program/output-stream.js): while a stream
// asks to wait, the ring is not drained, so the program's writers wait once
// it is full (both fds share the ring: a stdout that waits holds stderr's
// records behind it too); a stream that closes makes its fd's writes answer
// EPIPE. finish(), after the program's end: every record left, without
// waiting (at most the ring's size).
function createRingOutput(run, opts) {
  const { program } = run;
  const sinks = {};
  for (const [fd, { stream }] of [
    [1, opts.stdout],
    [2, opts.stderr],
  ]) {
    if (stream === null) continue;
    sinks[fd] = createOutputSink(stream, {
      onReady: () => run.poke?.(),
      onClosed: () => closeOutputRing(program, fd),
    });
  }
  const all = Object.values(sinks);
  const deliver = (fd, bytes) => sinks[fd]?.write(bytes) ?? true;
  return {
    drain() {
      if (!all.some((sink) => sink.waiting)) drainOutputRing(program, deliver);
    },
    finish() {
      drainOutputRing(program, (fd, bytes) => void sinks[fd]?.write(bytes));
      for (const sink of all) sink.detach();
    },
  };
}

// The guest's main thread's worker and, for a threaded program, its `spares`
// and the watch over its queue of threads (lib/program/threads.js). Sets run.worker,
// run.supervisorSpawn, run.queueWatch, and run.workerFault / run.workerGone
// as the worker fails or exits (each also wakes the supervision loop).
function startMainThread(run, opts, spareWorkers) {
  const { program, threaded, wasmModule, memory, plainMemory, pool } = run;
  const processState = { program };
  const spares = threaded ? openSpareSlots(program, spareWorkers) : 0;
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
  // The first thread's worker starts with the main thread's
  // (lib/program/spare-worker.js); its slot was opened before.
  for (let slot = 0; slot < spares; slot++) {
    run.supervisorSpawn.ownWorkers.push(startSpare({ wasmModule, memory, processState }, slot));
  }
  run.queueWatch = threaded
    ? watchThreadQueue(program, {
        ...run.supervisorSpawn,
        onFullStall: (queued) => writeText(opts.stderr, fullStallMessage(queued, opts.poolSize)),
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
      run.supervisorSpawn?.startRequested();
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
  const ended = programOutcome(program);
  if (ended === null) {
    // The main thread's worker failed before the program could end itself.
    const why = workerFault ? (workerFault.stack ?? String(workerFault)) : "its worker exited";
    await writeStderr(`wasi-thread-pool: the program's main thread's worker failed: ${why}\n`);
    return { exitCode: TRAP_EXIT_CODE };
  }
  if (ended.message !== null) await writeStderr(ended.message);
  return { exitCode: ended.exitCode };
}

// Every thread of the program stops: no slot can be claimed or served any
// more, native waits return, and every worker of the program (the main
// thread's and the pool's, all made on this thread) is terminated; resolves
// when each has exited.
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

// The runner's own message (a trap) to the program's stderr (not to a stream
// that has closed).
function writeText({ fd, stream }, text) {
  if (stream) {
    if (!streamClosed(stream)) stream.write(text);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    if (fd === 2) process.stderr.write(text, () => resolve());
    else write(fd, text, () => resolve());
  });
}
