// The Node pool worker (SDK-CONTRACT 3.1): serves one pool slot, running a
// guest thread each time the slot is assigned: on the instance the worker's
// last thread ran on (this package's default), or on a fresh
// WebAssembly.Instance (the SDK's, with freshInstances: true); see
// createThreadRunner in lib/runtime.js.
//
// It is told nothing by messages: it blocks in serveWasiThreadPoolSlot until a
// spawner (the owner, or any guest thread) assigns its slot, and it reports
// nothing by messages either. It ends when its slot is retired.
//
// workerData: {wasmModule, memory, hostcallChannel, processState,
//              extraImports, pool, slot, execArgv, runtimeModule,
//              freshInstances}
// (runtimeModule and freshInstances are this package's additions: the URL of
// a module whose createWasiThreadWorkerRuntime replaces lib/runtime.js's, and
// the instance policy.)

import { protectFromLiftoffHazard } from "./liftoff.js";
import { writeSync } from "node:fs";
import { threadId, Worker, workerData } from "node:worker_threads";
import {
  createWasiThreadPoolSpawn,
  retireWasiThreadPoolSlot,
  serveWasiThreadPoolSlot,
  wasiThreadPoolLastTid,
} from "./pool.js";
import * as ownRuntime from "./runtime.js";

// Before anything compiles in this thread (extraImports modules may compile
// wasm). The flag is process-wide; the owner normally applied it already.
protectFromLiftoffHazard();

const { pool, slot, execArgv } = workerData;
const freshInstances = workerData.freshInstances === true;

// Writes all of `bytes` to fd, synchronously: a guest thread's output must
// appear even while the owner's event loop is blocked in the guest's join.
function writeAllSync(fd, bytes) {
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
      retries = 0;
    } catch (error) {
      // A non-blocking pipe that is full: back off briefly and retry.
      if (error?.code === "EAGAIN" && retries++ < 1000) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      throw error;
    }
  }
}

function writeLine(text) {
  try {
    writeAllSync(2, Buffer.from(text));
  } catch {
    // stderr gone: nothing better to do.
  }
}

function describe(error) {
  return error?.stack ?? String(error);
}

// Workers started by guest threads of this worker. Node ends them when this
// thread ends; their slots are retired here first, so that no spawner waits
// on, or claims, a slot whose worker is about to disappear, and a thread
// they are running gets a moment to finish (see settleChildren).
const children = new Map(); // slot -> {worker, exited: Promise}
const CHILD_GRACE_MS = 1000;

// grow for spawns from this worker's guest threads: a sibling of this file,
// owned by this thread. Faults of such workers are reported on stderr by the
// workers themselves; nobody here could deliver an event anyway (this thread
// is blocked in its serve loop).
function grow(nextSlot) {
  const worker = new Worker(new URL(import.meta.url), {
    execArgv,
    workerData: { ...workerData, slot: nextSlot },
  });
  worker.unref();
  worker.on("error", () => {});
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  children.set(nextSlot, { worker, exited });
}

function retireChildren() {
  for (const childSlot of children.keys()) retireWasiThreadPoolSlot(pool, childSlot);
}

// Retires the children's slots, then lets this thread's event loop run until
// they have left their serve loops (each finishes the thread it is running
// first), for at most CHILD_GRACE_MS. Ending this thread earlier would kill a
// running guest thread midway.
async function settleChildren() {
  retireChildren();
  if (children.size === 0) return;
  let timer;
  await Promise.race([
    Promise.all([...children.values()].map((child) => child.exited)),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CHILD_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  children.clear();
}

async function loadRuntime() {
  if (!workerData.runtimeModule) return ownRuntime;
  const plugged = await import(workerData.runtimeModule);
  if (typeof plugged.createWasiThreadWorkerRuntime !== "function") {
    throw new TypeError(
      `runtimeModule ${workerData.runtimeModule} exports no createWasiThreadWorkerRuntime function.`,
    );
  }
  return plugged;
}

let runtime = null;
let runner = null;
let plugged = false;

try {
  const runtimeApi = await loadRuntime();
  plugged = runtimeApi !== ownRuntime;
  const resolveModules =
    typeof runtimeApi.resolveModuleExtraImports === "function"
      ? runtimeApi.resolveModuleExtraImports
      : ownRuntime.resolveModuleExtraImports;
  let extraImports = await resolveModules(workerData.extraImports ?? []);
  // A plugged runtime (the SDK's) may come with its Node-only descriptor
  // resolver (flatsql-io-node); pass its descriptors through it.
  if (typeof runtimeApi.resolveNodeFlatsqlIoDescriptors === "function") {
    extraImports = runtimeApi.resolveNodeFlatsqlIoDescriptors(extraImports);
  }
  const spawn = createWasiThreadPoolSpawn(pool, { grow });
  const options = {
    wasmModule: workerData.wasmModule,
    memory: workerData.memory,
    hostcallChannel: workerData.hostcallChannel ?? null,
    processState: workerData.processState,
    extraImports,
    workerIndex: slot,
    threadSpawn: (startArg) => spawn(startArg).tid,
  };
  // Our runtime writes fds 1 and 2 straight to the process's; a plugged one
  // gets exactly the SDK's options.
  if (!plugged) {
    options.writeOutput = writeAllSync;
    options.freshInstances = freshInstances;
  }
  runtime = runtimeApi.createWasiThreadWorkerRuntime(options);
  runner = ownRuntime.createThreadRunner(runtime, { freshInstances });
  // Probe: a module this worker cannot instantiate fails here, before it
  // takes any thread. With reuse, the first thread runs on this instance.
  runner.adopt(runtime.instantiate());
} catch (error) {
  // The slot already holds the thread this worker was started for.
  writeLine(
    `[wasi-thread] guest thread ${wasiThreadPoolLastTid(pool, slot)} failed to instantiate: ${describe(error)}\n`,
  );
  retireWasiThreadPoolSlot(pool, slot);
  try {
    runtime?.close();
  } catch {
    // Closing is best effort; the start-up error is the one to report.
  }
  throw error;
}

let fault = null;

function runThread(tid, startArg) {
  try {
    runner.run(tid, startArg);
    return true;
  } catch (error) {
    // proc_exit on a thread ends that thread normally.
    if (error?.name === "WasiExitError") return true;
    writeLine(`[wasi-thread] guest thread ${tid} trapped: ${describe(error)}\n`);
    fault = error;
    return false; // retires the slot; this worker ends
  }
}

try {
  serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId: threadId });
} catch (error) {
  retireChildren();
  throw error;
} finally {
  try {
    runtime.close();
  } catch {
    // best effort
  }
}

await settleChildren();

// The owner's "error" event (and so onGuestError) comes from this throw.
if (fault) throw fault;
