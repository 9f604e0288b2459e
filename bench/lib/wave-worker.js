// A pool worker of the waves-pool scenario: serves one slot; each guest
// thread runs wasi_thread_start(tid, arg) on a fresh instance of the guest
// over the shared memory (the SDK's policy, freshInstances) or on the
// instance the worker's previous thread ran on (the package's default).
// With stamps, runThread writes its entry, instantiated and guest-end times
// (process.hrtime.bigint()) into the stamp table, indexed by tid.

import { parentPort, threadId, workerData } from "node:worker_threads";
import { api } from "./api.js";
import { K, ST_ENTRY, ST_GUEST_END, ST_INSTANTIATED } from "./wave-stamps.js";

const { pool, slot, module, memory, stamps, freshInstances = true } = workerData;
const hrnow = process.hrtime.bigint;

let spawn = null; // a guest thread may spawn (nested mode); made on first use
const imports = {
  env: { memory },
  wasi: {
    "thread-spawn": (arg) => {
      spawn ??= api.createWasiThreadPoolSpawn(pool);
      const r = spawn(arg);
      return r.tid > 0 ? r.tid : -1;
    },
  },
  wasi_snapshot_preview1: { environ_sizes_get: () => 52, environ_get: () => 52 },
};

let kept = null;
const instanceFor = freshInstances
  ? () => new WebAssembly.Instance(module, imports)
  : () => (kept ??= new WebAssembly.Instance(module, imports));
if (!freshInstances) instanceFor(); // made before serving, as the package's probe

const runThread = stamps
  ? (tid, arg) => {
      const at = tid * K;
      stamps[at + ST_ENTRY] = hrnow();
      const instance = instanceFor();
      stamps[at + ST_INSTANTIATED] = hrnow();
      instance.exports.wasi_thread_start(tid, arg);
      stamps[at + ST_GUEST_END] = hrnow();
    }
  : (tid, arg) => {
      instanceFor().exports.wasi_thread_start(tid, arg);
    };

parentPort.postMessage("ready");
api.serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId: threadId });
