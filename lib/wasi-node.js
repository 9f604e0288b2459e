// The per-thread runtime of runWasiThreadsProgram's threads (Node only): the
// guest's main thread (lib/program-worker.js) and every pool worker, which
// loads this file as its `runtimeModule` (lib/worker-node.js).
//
// WASI preview1 is Node's own node:wasi (uvwasi underneath): real clocks,
// random from the OS, args, env and preopened directories. One WASI object
// per thread, initialised over the program's shared memory. Replaced, where a
// program of many threads needs something else (docs/runner.md):
//   - proc_exit ends the whole program (lib/program-control.js), not a thread;
//   - fd_read on fd 0 takes bytes the supervisor hands over through shared
//     memory, waiting in Atomics.wait: a blocking read(0) in C could not be
//     interrupted when the program ends;
//   - fd_write on fds 1 and 2 writes synchronously, all of it, to the
//     program's stdout and stderr (nothing buffered, nothing lost at exit),
//     or, for a stream without a file descriptor, into the output ring that
//     the supervisor drains (lib/program-control.js);
//   - poll_oneoff sleeps in Atomics.wait (uvwasi would block in C) and
//     reports fd subscriptions ready at once;
//   - thread-spawn parks a thread whose program has ended instead of
//     starting another thread.
// The guest's memory import is linked under whatever name the guest uses.
//
// Limitation: each thread has its own WASI object, so its own table of open
// files. Preopened directories are the same in every thread; a file opened
// by one thread has no meaning as a number in another.

import { wasiThreadPoolLastTid } from "./pool.js";
import { writeAllSync as writeAllToFd } from "./write-sync.js";
import { endProgram, parkForever, programEnded, readStdin, trapProgram, writeOutputRing } from "./program-control.js";
import { createProgramThreadSpawn } from "./program-pool.js";
import { runProgramThread, runQueuedThreads, takeTrampoline, workerReady } from "./program-threads.js";

// node:wasi prints an ExperimentalWarning when it loads; the runner's users
// did not ask for node:wasi, so that one warning is dropped (in this thread).
async function importNodeWasiQuietly() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function filtered(warning, ...rest) {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && /WASI/.test(String(warning?.message ?? warning))) return;
    return emitWarning.call(process, warning, ...rest);
  };
  try {
    return await import("node:wasi");
  } finally {
    process.emitWarning = emitWarning;
  }
}

const { WASI } = await importNodeWasiQuietly();

const ERRNO_SUCCESS = 0;
const ERRNO_INVAL = 28;
const ERRNO_IO = 29;
const ERRNO_PIPE = 64;
const ERRNO_NOTSUP = 58;

const EVENTTYPE_CLOCK = 0;
const CLOCKID_REALTIME = 0;
const CLOCKID_MONOTONIC = 1;
const SUBCLOCKFLAGS_ABSTIME = 1;

// A program's output may wait longer for a full pipe than a pool worker's
// diagnostics: up to 10 s.
const writeAllSync = (fd, bytes) => writeAllToFd(fd, bytes, 10000);

function memoryImportOf(wasmModule) {
  const entry = WebAssembly.Module.imports(wasmModule).find((e) => e.kind === "memory");
  return entry ? { module: entry.module, name: entry.name } : { module: "env", name: "memory" };
}

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

function createImports({ wasmModule, memory, program, threadSpawn }) {
  const wasi = new WASI({
    version: "preview1",
    args: program.args,
    env: program.env,
    preopens: program.preopens,
    returnOnExit: false,
  });
  wasi.initialize({ exports: { memory } });
  const base = wasi.wasiImport;
  const own = { ...base };
  const outFd = { 1: program.stdoutFd, 2: program.stderrFd };

  own.proc_exit = (code) => endProgram(program, code >>> 0);

  own.fd_write = (fd, iovs, count, nwrittenPtr) => {
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
  };

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

  const { module, name } = memoryImportOf(wasmModule);
  const imports = {
    wasi_snapshot_preview1: own,
    wasi: {
      "thread-spawn": (startArg) => {
        if (programEnded(program)) parkForever(program.control);
        return threadSpawn(startArg);
      },
    },
  };
  imports[module] = { ...imports[module], [name]: memory };
  return imports;
}

function programOf(processState) {
  const program = processState?.program;
  if (!program || !(program.control instanceof Int32Array)) {
    throw new TypeError("lib/wasi-node.js is the runtime of runWasiThreadsProgram: its processState has no program.");
  }
  return program;
}

// For lib/worker-node.js (runtimeModule): {imports, instantiate(), close()},
// as the package's own runtime. The instance it returns has a
// wasi_thread_start that turns a trap into the end of the whole program.
// The pool's threadSpawn it is given is not used: a program's threads spawn
// by lib/program-threads.js's rules.
export function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, workerIndex } = {}) {
  const program = programOf(processState);
  const threadSpawn = createProgramThreadSpawn({ wasmModule, memory, processState });
  const imports = createImports({ wasmModule, memory, program, threadSpawn });
  let ready = false;
  return {
    imports,
    instantiate() {
      let instance;
      try {
        instance = new WebAssembly.Instance(wasmModule, imports);
      } catch (error) {
        // The thread this worker was started for (its slot's last tid)
        // cannot run: that ends the program as its trap would.
        const tid = Number.isInteger(workerIndex) ? wasiThreadPoolLastTid(program.pool, workerIndex) : "?";
        trapProgram(program, `thread ${tid} (instantiation)`, error);
      }
      if (!ready) {
        ready = true;
        workerReady(program, workerIndex);
      }
      const guestStart = instance.exports.wasi_thread_start;
      // A trap ends the program (never returns).
      const start = (tid, startArg) => {
        try {
          return guestStart(tid, startArg);
        } catch (error) {
          trapProgram(program, `thread ${tid}`, error);
        }
      };
      const exports = Object.assign(Object.create(null), instance.exports, {
        wasi_thread_start(tid, startArg) {
          if (programEnded(program)) parkForever(program.control);
          // A trampoline (lib/program-threads.js) runs queued threads only;
          // any other thread runs, then this worker runs queued threads.
          if (!takeTrampoline(program, startArg)) runProgramThread(program, start, tid, startArg);
          runQueuedThreads(program, start);
        },
      });
      return { exports };
    },
    close() {},
  };
}

// For lib/program-worker.js: instantiates the guest's main thread and runs
// _start; its return ends the program with 0, a trap ends it as a trap.
// Never returns.
export function runProgramMain({ wasmModule, memory, processState }) {
  const program = programOf(processState);
  const threadSpawn = createProgramThreadSpawn({ wasmModule, memory, processState });
  let instance;
  try {
    instance = new WebAssembly.Instance(wasmModule, createImports({ wasmModule, memory, program, threadSpawn }));
  } catch (error) {
    trapProgram(program, "the main thread (instantiation)", error);
  }
  try {
    instance.exports._start();
  } catch (error) {
    trapProgram(program, "the main thread", error);
  }
  endProgram(program, 0);
}
