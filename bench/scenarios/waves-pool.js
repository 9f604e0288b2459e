// Scenario 4b: the thread-wave guest straight on the pool API, with a fixed
// pool of `workers` pre-started workers (no host, no growth). The guest's
// main thread is this process's main thread; its wasi.thread-spawn import is
// the pool's spawn (owner). Reports the call's wall time and process CPU.
//
// breakdown: true also stamps every thread (see bench/lib/wave-stamps.js):
//   spawn        the spawn() call on the spawning thread
//   wake         spawn() start -> runThread entry (overlaps the spawn call)
//   instantiate  new WebAssembly.Instance(module) in the worker
//   guest        wasi_thread_start(tid, arg)
//   finish       guest end -> the slot seen leaving RUNNING (runThread's
//                return through the pool's serve loop to finishWasiThreadPoolRun)
// "finish" needs an observer: at the first spawn of every wave, the main
// thread polls the slots until none is RUNNING and stamps each transition.
// That poll delays the wave by the time the previous wave's finishes take, so
// the breakdown run's wall time is not the headline figure.

import { Worker } from "node:worker_threads";
import { once } from "node:events";
import { emit, hrnow, params, sleepSync } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";
import { K, ST_GUEST_END, ST_ENTRY, ST_IDLE, ST_INSTANTIATED, ST_SPAWN_END, ST_SPAWN_START } from "../lib/wave-stamps.js";
import { S_STATE, S_TID, WASI_THREAD_POOL_SLOT, slotBase } from "../../lib/pool/layout.js";
import { protectFromLiftoffHazard } from "../../lib/worker/liftoff.js";
import {
  EXPECTED_14K_OUTPUT_HEX,
  GUEST_MEMORY,
  environImports,
  readWaveGuest,
  readWaveResult,
  threadWaveEnv,
} from "../../test/support/wave-guest.js";

const {
  impl,
  lanes = 8,
  waves = 2000,
  rounds = 16,
  workers = lanes - 1,
  breakdown = false,
  spawnWaitMs,
  freshInstances = true,
} = params();

// The guest's bytes as they are: --no-liftoff only where the engine shows the
// Liftoff hazard (lib/worker/liftoff.js's probe); no flag elsewhere.
protectFromLiftoffHazard();
const module = new WebAssembly.Module(readWaveGuest({ build: false }));
const memory = new WebAssembly.Memory(GUEST_MEMORY);

const pool = createPool(impl, { capacity: workers, spawnWaitMs });
api.openWasiThreadPoolSlots(pool, workers);
const maxTid = waves * lanes + 16;
const stamps = breakdown ? new BigInt64Array(new SharedArrayBuffer(8 * K * (maxTid + 1))) : null;
const threads = [];
for (let slot = 0; slot < workers; slot++) {
  api.armWasiThreadPoolSlot(pool, slot);
  threads.push(
    new Worker(new URL("../lib/wave-worker.js", import.meta.url), {
      workerData: { pool, slot, module, memory, stamps, freshInstances },
    }),
  );
}
await Promise.all(threads.map((w) => once(w, "message")));
sleepSync(50);

const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true });
const control = pool.control;
const RUNNING = WASI_THREAD_POOL_SLOT.RUNNING;
let spawns = 0;
let stillRunningAtWaveStart = 0;

// Wave start (breakdown only): wait until no slot is RUNNING, stamping when
// each slot's last thread is seen to leave RUNNING.
function observeFinishes() {
  let pending = 0;
  const waiting = new Array(workers).fill(false);
  for (let s = 0; s < workers; s++) {
    if (Atomics.load(control, slotBase(s) + S_STATE) === RUNNING) {
      waiting[s] = true;
      pending++;
    } else {
      const tid = Atomics.load(control, slotBase(s) + S_TID);
      if (tid > 0 && tid <= maxTid && stamps[tid * K + ST_IDLE] === 0n) stamps[tid * K + ST_IDLE] = -1n; // already idle: unknown
    }
  }
  stillRunningAtWaveStart += pending;
  while (pending > 0) {
    for (let s = 0; s < workers; s++) {
      if (waiting[s] && Atomics.load(control, slotBase(s) + S_STATE) !== RUNNING) {
        const t = hrnow();
        const tid = Atomics.load(control, slotBase(s) + S_TID);
        if (tid > 0 && tid <= maxTid) stamps[tid * K + ST_IDLE] = t;
        waiting[s] = false;
        pending--;
      }
    }
  }
}

const threadSpawn = breakdown
  ? (arg) => {
      if (spawns % (lanes - 1) === 0) observeFinishes();
      spawns++;
      const t0 = hrnow();
      const r = spawn(arg);
      const t1 = hrnow();
      if (r.tid > 0 && r.tid <= maxTid) {
        stamps[r.tid * K + ST_SPAWN_START] = t0;
        stamps[r.tid * K + ST_SPAWN_END] = t1;
      }
      return r.tid > 0 ? r.tid : -1;
    }
  : (arg) => {
      const r = spawn(arg);
      return r.tid > 0 ? r.tid : -1;
    };

const env = threadWaveEnv(lanes, { waves, rounds });
const instance = new WebAssembly.Instance(module, {
  env: { memory },
  wasi: { "thread-spawn": threadSpawn },
  wasi_snapshot_preview1: environImports(() => memory, env),
});

const cpu0 = process.cpuUsage();
const t0 = hrnow();
const status = instance.exports.waves();
const wallNs = Number(hrnow() - t0);
const cpu = process.cpuUsage(cpu0);
const result = readWaveResult(instance.exports, memory, status);
const report = api.readWasiThreadPoolReport(pool);
for (let s = 0; s < workers; s++) api.retireWasiThreadPoolSlot(pool, s);

const metrics = {
  wallMs: { value: wallNs / 1e6 },
  cpuMs: { value: (cpu.user + cpu.system) / 1000 },
  usPerThread: { value: wallNs / 1000 / Math.max(1, report.spawned) },
};
if (breakdown) {
  const us = (a, b) => Number(b - a) / 1000;
  const cols = { spawnUs: [], wakeUs: [], instantiateUs: [], guestUs: [], finishUs: [] };
  for (let tid = 1; tid <= maxTid; tid++) {
    const at = tid * K;
    if (stamps[at + ST_SPAWN_START] === 0n || stamps[at + ST_GUEST_END] === 0n) continue;
    cols.spawnUs.push(us(stamps[at + ST_SPAWN_START], stamps[at + ST_SPAWN_END]));
    cols.wakeUs.push(us(stamps[at + ST_SPAWN_START], stamps[at + ST_ENTRY]));
    cols.instantiateUs.push(us(stamps[at + ST_ENTRY], stamps[at + ST_INSTANTIATED]));
    cols.guestUs.push(us(stamps[at + ST_INSTANTIATED], stamps[at + ST_GUEST_END]));
    if (stamps[at + ST_IDLE] > 0n) cols.finishUs.push(us(stamps[at + ST_GUEST_END], stamps[at + ST_IDLE]));
  }
  for (const [k, v] of Object.entries(cols)) metrics[k] = { samples: v };
}
const expected = waves === 2000 && rounds === 16 && lanes > 1 ? EXPECTED_14K_OUTPUT_HEX : null;
emit({
  metrics,
  info: {
    status,
    output: result.output,
    outputOk: expected ? result.output === expected : null,
    spawned: report.spawned,
    waited: report.waited,
    declined: report.declined,
    stillRunningAtWaveStart: breakdown ? stillRunningAtWaveStart : undefined,
  },
});
process.exit(status === 0 ? 0 : 3);
