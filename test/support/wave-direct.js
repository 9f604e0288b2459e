// A minimal wasi-threads host for the thread-wave guest, independent of this
// package's pool and host: K plain Node workers, each parked on its own word
// of a small SharedArrayBuffer; a spawn claims an idle worker by CAS, stores
// the start argument and notifies it. Any thread may spawn (nested mode).
// It proves the guest itself (guest/README.md); the package is tested through
// wave-harness.js.
//
//   runWaveDirect({module, lanes, mode, waves, rounds, workers, spawnWaitMs, reuse})
//     -> {status, output, errorCode, errorMessage, guest, spawned, declined}
//
// reuse: false makes each worker run one thread and stay busy until the run
// ends, so the spawns that find a worker are exactly the first `workers` of
// the run (with spawnWaitMs 0 the next one declines), whatever the timing.

import { Worker } from "node:worker_threads";

import { protectFromLiftoffHazard } from "../../lib/worker/liftoff.js";
import { GUEST_MEMORY, environImports, readWaveResult, threadWaveEnv } from "./wave-guest.js";

// Control words: [0] next tid, [1] generation, [2] spawned, [3] declined;
// then per worker: [4+2w] state, [5+2w] start argument.
const IDLE = 0,
  CLAIMED = 1,
  ASSIGNED = 2,
  RUNNING = 3,
  EXIT = 4;

// Shared with the workers as source text (no extra file to serve).
const spawnSource = `
function makeSpawn(ctl, workers, spawnWaitMs) {
  return function spawn(arg) {
    const deadline = Date.now() + spawnWaitMs;
    for (;;) {
      const gen = Atomics.load(ctl, 1);
      for (let w = 0; w < workers; w++) {
        if (Atomics.compareExchange(ctl, 4 + 2 * w, ${IDLE}, ${CLAIMED}) === ${IDLE}) {
          const tid = Atomics.add(ctl, 0, 1);
          Atomics.store(ctl, 5 + 2 * w, arg);
          Atomics.store(ctl, 4 + 2 * w, ${ASSIGNED});
          Atomics.notify(ctl, 4 + 2 * w);
          Atomics.add(ctl, 2, 1);
          return tid;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) { Atomics.add(ctl, 3, 1); return -1; }
      Atomics.wait(ctl, 1, gen, left);
    }
  };
}
`;

const workerSource = `
const { workerData } = require("node:worker_threads");
${spawnSource}
const { module, memory, ctl, index, workers, spawnWaitMs, reuse } = workerData;
const spawn = makeSpawn(ctl, workers, spawnWaitMs);
const imports = {
  env: { memory },
  wasi: { "thread-spawn": spawn },
  wasi_snapshot_preview1: { environ_sizes_get: () => 52, environ_get: () => 52 },
};
const word = 4 + 2 * index;
for (;;) {
  const state = Atomics.load(ctl, word);
  if (state === ${EXIT}) break;
  if (state !== ${ASSIGNED}) { Atomics.wait(ctl, word, state); continue; }
  if (Atomics.compareExchange(ctl, word, ${ASSIGNED}, ${RUNNING}) !== ${ASSIGNED}) continue;
  const tid = Atomics.load(ctl, 0) - 1; // informational only
  const instance = new WebAssembly.Instance(module, imports);
  instance.exports.wasi_thread_start(tid, Atomics.load(ctl, word + 1));
  if (!reuse) {
    // Busy (RUNNING) until the owner stores EXIT: no spawn claims it again.
    while (Atomics.load(ctl, word) !== ${EXIT}) Atomics.wait(ctl, word, ${RUNNING});
    break;
  }
  // CAS: the owner may have stored EXIT while the thread's joiner returned.
  if (Atomics.compareExchange(ctl, word, ${RUNNING}, ${IDLE}) !== ${RUNNING}) break;
  Atomics.add(ctl, 1, 1);
  Atomics.notify(ctl, 1);
}
`;

const makeSpawn = new Function(`${spawnSource}; return makeSpawn;`)();

// The guest's own bytes, compiled as they are: on an engine with the Liftoff
// hazard (lib/worker/liftoff.js's probe decides) after --no-liftoff, which
// the protection sets only there; elsewhere no V8 flag is set (Node 26 aborts
// in wave guests compiled after that flag was set at run time).
export function compileWaveModule(bytes) {
  if (!protectFromLiftoffHazard()) throw new Error("the engine shows the Liftoff hazard and --no-liftoff could not be set");
  return new WebAssembly.Module(bytes);
}

export async function runWaveDirect({
  module,
  lanes = 1,
  mode = "",
  waves,
  rounds,
  workers = lanes,
  spawnWaitMs = 5000,
  reuse = true,
  beforeRun = null, // (memory, control) => void: a debugging hook
}) {
  const memory = new WebAssembly.Memory(GUEST_MEMORY);
  const ctl = new Int32Array(new SharedArrayBuffer(4 * (4 + 2 * workers)));
  ctl[0] = 1;
  const threads = [];
  for (let index = 0; index < workers; index++) {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { module, memory, ctl, index, workers, spawnWaitMs, reuse },
    });
    threads.push(
      new Promise((resolve, reject) => {
        worker.once("error", reject);
        worker.once("exit", resolve);
      }),
    );
  }
  try {
    if (beforeRun) beforeRun(memory, ctl);
    const env = threadWaveEnv(lanes, { mode, waves, rounds });
    const instance = new WebAssembly.Instance(module, {
      env: { memory },
      wasi: { "thread-spawn": makeSpawn(ctl, workers, spawnWaitMs) },
      wasi_snapshot_preview1: environImports(() => memory, env),
    });
    const status = instance.exports.waves();
    return {
      ...readWaveResult(instance.exports, memory, status),
      spawned: Atomics.load(ctl, 2),
      declined: Atomics.load(ctl, 3),
    };
  } finally {
    for (let w = 0; w < workers; w++) {
      Atomics.store(ctl, 4 + 2 * w, EXIT);
      Atomics.notify(ctl, 4 + 2 * w);
    }
    await Promise.all(threads);
  }
}
