// The fallback per-thread runtime of runWasiThreadsProgram's threads (Node
// only), used where the program's C WASI is not there (lib/program/wasi-c.js: no
// addon) or WASI_THREAD_POOL_NODE_WASI=1 asks for it: the guest's
// main thread (lib/program/main-worker.js) and every pool worker, which loads
// this file as its `runtimeModule` (lib/worker/node.js).
//
// WASI preview1 is Node's own node:wasi (uvwasi underneath): real clocks,
// random from the OS, args, env and preopened directories. One WASI object
// per thread, initialised over the program's shared memory (a single-threaded
// program: its one thread, over its own non-shared memory). Replaced, where a
// program of many threads needs something else (docs/runner.md):
//   - proc_exit ends the whole program (lib/program/control.js), not a thread,
//     and so does an fd_write that answers EPIPE (141, endOnBrokenPipe);
//   - fd_read on fd 0 takes bytes the supervisor hands over through shared
//     memory, waiting in Atomics.wait: a blocking read(0) in C could not be
//     interrupted when the program ends;
//   - fd_write on fds 1 and 2 writes synchronously, all of it, to the
//     program's stdout and stderr (nothing buffered, nothing lost at exit),
//     or, for a stream without a file descriptor, into the output ring that
//     the supervisor drains (lib/program/control.js);
//   - poll_oneoff sleeps in Atomics.wait (uvwasi would block in C) and
//     reports fd subscriptions ready at once;
//   - thread-spawn parks a thread whose program has ended instead of
//     starting another thread;
//   - stdio is never a socket to the program, as in the C WASI: fds 0-2
//     report no socket type or right, and sock_* on them answer ENOTSOCK
//     without reaching uvwasi (whose sock_shutdown on a host's socket as
//     stdio shuts it, or crashes the process).
// The guest's memory import is linked under whatever name the guest uses.
//
// Limitation: each thread has its own WASI object, so its own table of open
// files. Preopened directories are the same in every thread; a file opened
// by one thread has no meaning as a number in another.

import { createRequire } from "node:module";
import { writeAllSync as writeAllToFd } from "../worker/write-sync.js";
import { endOnBrokenPipe, endProgram, readStdin, writeOutputRing } from "./control.js";
import { createProgramWorkerRuntime, programImports, programOf, programThreadSpawn, runProgramMainWith } from "./runtime.js";
import { createQueueFeeder } from "./pool.js";

// node:wasi prints an ExperimentalWarning when it loads; the runner's users
// did not ask for node:wasi, so that one warning is dropped (in this thread).
// Loaded with require, not a top-level await: the runner's pool worker is
// built into one CommonJS file (lib/program/pool-worker.js).
function requireNodeWasiQuietly() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function filtered(warning, ...rest) {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && /WASI/.test(String(warning?.message ?? warning))) return;
    return emitWarning.call(process, warning, ...rest);
  };
  try {
    return createRequire(import.meta.url)("node:wasi");
  } finally {
    process.emitWarning = emitWarning;
  }
}

const { WASI } = requireNodeWasiQuietly();

const ERRNO_SUCCESS = 0;
const ERRNO_INVAL = 28;
const ERRNO_IO = 29;
const ERRNO_PIPE = 64;
const ERRNO_NOTSUP = 58;
const ERRNO_NOTSOCK = 57;

const FILETYPE_UNKNOWN = 0;
const FILETYPE_SOCKET_DGRAM = 5;
const FILETYPE_SOCKET_STREAM = 6;
const RIGHTS_SOCK_SHUTDOWN_ACCEPT = (1n << 28n) | (1n << 29n);
const SDFLAGS_ALL = 3; // RD | WR

const EVENTTYPE_CLOCK = 0;
const CLOCKID_REALTIME = 0;
const CLOCKID_MONOTONIC = 1;
const SUBCLOCKFLAGS_ABSTIME = 1;

// A program's output may wait longer for a full pipe than a pool worker's
// diagnostics: up to 10 s.
const writeAllSync = (fd, bytes) => writeAllToFd(fd, bytes, 10000);

// Gathers the bytes of an iovec array.
function gather(memory, iovs, count) {
  const view = new DataView(memory.buffer);
  const parts = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const ptr = view.getUint32(iovs + 8 * i, true);
    const len = view.getUint32(iovs + 8 * i + 4, true);
    if (len > 0) parts.push(new Uint8Array(memory.buffer, ptr, len));
    total += len;
  }
  if (parts.length === 1) return parts[0].slice();
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// memory: the program's memory, or null when the module defines its own (a
// plain program): attachMemory(instance.exports.memory) then binds WASI to
// it before the program runs. The imports read `memory` at every call, never
// a buffer kept across one (a non-shared memory's buffer moves when it grows).
function createImports({ wasmModule, memory: givenMemory, program, threadSpawn }) {
  const wasi = new WASI({
    version: "preview1",
    args: program.args,
    env: program.env,
    preopens: program.preopens,
    returnOnExit: false,
  });
  let memory = givenMemory;
  const attachMemory = (programMemory) => {
    memory = programMemory;
    wasi.initialize({ exports: { memory } });
  };
  if (memory) attachMemory(memory);
  const base = wasi.wasiImport;
  const own = { ...base };
  const outFd = { 1: program.stdoutFd, 2: program.stderrFd };

  own.proc_exit = (code) => endProgram(program, code >>> 0);

  own.fd_write = endOnBrokenPipe(program, (fd, iovs, count, nwrittenPtr) => {
    if (fd !== 1 && fd !== 2) return base.fd_write(fd, iovs, count, nwrittenPtr);
    const bytes = gather(memory, iovs, count);
    try {
      // A negative fd: the destination is a stream on the supervisor's side.
      if (outFd[fd] < 0) writeOutputRing(program, fd, bytes);
      else writeAllSync(outFd[fd], bytes);
    } catch (error) {
      return error?.code === "EPIPE" ? ERRNO_PIPE : ERRNO_IO;
    }
    new DataView(memory.buffer).setUint32(nwrittenPtr, bytes.length, true);
    return ERRNO_SUCCESS;
  });

  own.fd_read = (fd, iovs, count, nreadPtr) => {
    if (fd !== 0) return base.fd_read(fd, iovs, count, nreadPtr);
    let view = new DataView(memory.buffer);
    let want = 0;
    for (let i = 0; i < count; i++) want += view.getUint32(iovs + 8 * i + 4, true);
    const bytes = readStdin(program, want);
    view = new DataView(memory.buffer);
    let at = 0;
    for (let i = 0; i < count && at < bytes.length; i++) {
      const ptr = view.getUint32(iovs + 8 * i, true);
      const len = view.getUint32(iovs + 8 * i + 4, true);
      const take = Math.min(len, bytes.length - at);
      new Uint8Array(memory.buffer, ptr, take).set(bytes.subarray(at, at + take));
      at += take;
    }
    view.setUint32(nreadPtr, at, true);
    return ERRNO_SUCCESS;
  };

  // Subscriptions are 48 bytes, events 32 (preview1).
  own.poll_oneoff = (inPtr, outPtr, nsubscriptions, neventsPtr) => {
    if (nsubscriptions === 0) return ERRNO_INVAL;
    const view = new DataView(memory.buffer);
    let earliest = null; // {index, waitMs}
    const ready = [];
    for (let i = 0; i < nsubscriptions; i++) {
      const sub = inPtr + 48 * i;
      const tag = view.getUint8(sub + 8);
      if (tag === EVENTTYPE_CLOCK) {
        const clock = view.getUint32(sub + 16, true);
        const timeout = view.getBigUint64(sub + 24, true);
        const flags = view.getUint16(sub + 40, true);
        let waitMs;
        if (clock === CLOCKID_MONOTONIC) {
          waitMs = flags & SUBCLOCKFLAGS_ABSTIME ? Number(timeout - process.hrtime.bigint()) / 1e6 : Number(timeout) / 1e6;
        } else if (clock === CLOCKID_REALTIME) {
          waitMs = flags & SUBCLOCKFLAGS_ABSTIME ? Number(timeout / 1000000n) - Date.now() : Number(timeout) / 1e6;
        } else {
          return ERRNO_INVAL;
        }
        if (earliest === null || waitMs < earliest.waitMs) earliest = { index: i, waitMs };
      } else if (tag === 1 || tag === 2) {
        ready.push(i); // fd_read / fd_write: reported ready (an fd_read on 0 then waits interruptibly)
      } else {
        return ERRNO_NOTSUP;
      }
    }
    const events = ready.length > 0 ? ready : [earliest.index];
    if (ready.length === 0 && earliest.waitMs > 0) Atomics.wait(program.control, 7 /* C_PARK */, 0, earliest.waitMs);
    const out = new DataView(memory.buffer);
    events.forEach((index, n) => {
      const sub = inPtr + 48 * index;
      const ev = outPtr + 32 * n;
      out.setBigUint64(ev, out.getBigUint64(sub, true), true);
      out.setUint16(ev + 8, ERRNO_SUCCESS, true);
      out.setUint8(ev + 10, out.getUint8(sub + 8));
      out.setBigUint64(ev + 16, 1n, true);
      out.setUint16(ev + 24, 0, true);
    });
    out.setUint32(neventsPtr, events.length, true);
    return ERRNO_SUCCESS;
  };

  stdioNeverSockets(own, base, () => memory);

  return { imports: programImports({ preview1: own, program, threadSpawn, wasmModule, memory }), attachMemory };
}

const isStdio = (fd) => fd >>> 0 <= 2;

// The program's stdio is its own stream, never a socket (see the top): the
// type fdstat and filestat report for 0-2 is UNKNOWN where uvwasi says
// socket, without the socket rights, and sock_* on 0-2 answer ENOTSOCK
// (after their flags are checked, as the C WASI does).
function stdioNeverSockets(own, base, getMemory) {
  const unsocket = (view, at) => {
    const type = view.getUint8(at);
    if (type === FILETYPE_SOCKET_STREAM || type === FILETYPE_SOCKET_DGRAM) view.setUint8(at, FILETYPE_UNKNOWN);
  };
  own.fd_fdstat_get = (fd, at) => {
    const err = base.fd_fdstat_get(fd, at);
    if (err !== ERRNO_SUCCESS || !isStdio(fd)) return err;
    const view = new DataView(getMemory().buffer);
    unsocket(view, at);
    view.setBigUint64(at + 8, view.getBigUint64(at + 8, true) & ~RIGHTS_SOCK_SHUTDOWN_ACCEPT, true);
    return err;
  };
  own.fd_filestat_get = (fd, at) => {
    const err = base.fd_filestat_get(fd, at);
    if (err === ERRNO_SUCCESS && isStdio(fd)) unsocket(new DataView(getMemory().buffer), at + 16);
    return err;
  };
  const notSocket = (name, badFlags) => {
    own[name] = (fd, ...rest) => {
      if (!isStdio(fd)) return base[name](fd, ...rest);
      return badFlags(...rest) ? ERRNO_INVAL : ERRNO_NOTSOCK;
    };
  };
  notSocket("sock_recv", (data, len, flags) => (flags & ~3) !== 0); // RECV_PEEK | RECV_WAITALL
  notSocket("sock_send", (data, len, flags) => flags !== 0);
  notSocket("sock_shutdown", (how) => (how & ~SDFLAGS_ALL) !== 0);
  notSocket("sock_accept", (flags) => (flags & ~4) !== 0); // fdflags NONBLOCK
}

const FILE = "lib/program/wasi-node.js";

// For lib/worker/node.js (runtimeModule): lib/program/runtime.js's worker
// runtime over this file's imports. Its threads spawn by the program's rules
// (programThreadSpawn), not the pool's.
export function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, workerIndex, spare = false } = {}) {
  const program = programOf(processState, FILE);
  const threadSpawn = programThreadSpawn({ wasmModule, memory, processState });
  const { imports } = createImports({ wasmModule, memory, program, threadSpawn });
  return createProgramWorkerRuntime({
    wasmModule,
    program,
    imports,
    workerIndex,
    spare,
    feedQueue: createQueueFeeder({ wasmModule, memory, processState }),
  });
}

// For lib/program/main-worker.js: the guest's main thread (never returns).
// A plain program (threadSpawn null, no shared memory): memory is its
// imported non-shared memory, or null when it defines its own (bound to
// node:wasi once instantiated).
export function runProgramMain({ wasmModule, memory, processState, threadSpawn }) {
  const program = programOf(processState, FILE);
  const { imports, attachMemory } = createImports({ wasmModule, memory, program, threadSpawn });
  runProgramMainWith({ wasmModule, program, imports, attachMemory: memory ? undefined : attachMemory });
}
