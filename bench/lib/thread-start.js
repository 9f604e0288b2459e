// Thread start under load: how long a
// threaded program's first threads take from pthread_create to their first
// instruction, with 0, 2 and 8 CPU-burning processes beside it
// (bench/lib/burners.js). The program is guest/spawn/spawn.c's `together 4`
// (crossbeam-channel's `tick` tests' shape: 4 threads spawned together at the
// program's start, each timing its own start), run by the CLI with its spare
// worker (lib/program/spare-worker.js), without it (WASI_THREAD_POOL_SPARE=0),
// and natively (gcc -pthread). docs/runner.md, "The first thread's worker
// starts with the program".
//
// The rows of `npm run bench` (bench/lib/plan.js, threadStartScenarios):
// bench/scenarios/thread-start.js calls measureThreadStart; alone,
// `npm run bench -- --only=thread-start`.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBurners } from "./burners.js";
import { runnerRowsMissing } from "./runner-rows.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(root, "bin/wasi-thread-pool.js");
const WASM = join(root, "guest/out/spawn.wasm");
const NATIVE = join(root, "guest/out/spawn-native");
export const THREADS = 4;
export const LOADS = [0, 2, 8];
export const VARIANTS = ["spare", "no-spare", "native"];
const LABELS = {
  spare: "wasi-thread-pool run (a spare worker)",
  "no-spare": "wasi-thread-pool run, WASI_THREAD_POOL_SPARE=0",
  native: "native (gcc -pthread)",
};

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

// One run of `spawn together THREADS`: each thread's spawn -> start, ms.
function togetherOnce(variant) {
  const [command, args] = variant === "native" ? [NATIVE, []] : [process.execPath, [CLI, "run", WASM]];
  const env = { ...process.env, WASI_THREAD_POOL_SPARE: variant === "no-spare" ? "0" : "1" };
  const r = spawnSync(command, [...args, "together", String(THREADS)], { encoding: "utf8", env, timeout: 120_000 });
  if (r.status !== 0) throw new Error(`spawn together: exit ${r.status ?? r.signal}: ${r.stderr.trim().slice(-400)}`);
  const ms = [...r.stdout.matchAll(/thread (\d+) started ([\d.]+) ms/g)].map((m) => Number(m[2]));
  if (ms.length !== THREADS) throw new Error(`spawn together: ${ms.length} stamps of ${THREADS}:\n${r.stdout}`);
  return ms;
}

// crossbeam-channel's tick test `ready` counts the ticks its 4 threads see
// until each one's own 1.1 s timeout: a thread that starts more than about
// 100 ms after its spawn sees a tick too many, and the test fails.
export const LATE_MS = 100;

// {firstMs, medianMs, worstMs, lateRuns} over `runs` runs with `burners` busy
// processes beside them: the first thread's start (median of the runs), every
// thread's (median), the slowest thread's start seen, and the share of runs
// with a thread later than LATE_MS (%).
export async function measureThreadStart(variant, { burners = 0, runs = 5 } = {}) {
  const missing = runnerRowsMissing({ native: variant === "native" });
  if (missing) return { skipped: missing };
  const load = await startBurners(burners, { maxMs: 600_000 });
  try {
    const seen = Array.from({ length: runs }, () => togetherOnce(variant));
    return {
      firstMs: median(seen.map((ms) => ms[0])),
      medianMs: median(seen.flat()),
      worstMs: Math.max(...seen.flat()),
      lateRuns: (100 * seen.filter((ms) => Math.max(...ms) > LATE_MS).length) / runs,
    };
  } finally {
    load.stop();
    await load.ended;
  }
}

// The rows of `npm run bench` (bench/lib/plan.js appends them): one scenario
// per load, the variants alternated within it, on the machine's Node and on
// Node 24.
export function threadStartScenarios(Q) {
  return LOADS.map((burners) => ({
    id: `thread-start-load${burners}`,
    skipInQuick: burners !== 2,
    group: "11b. Thread start under load",
    title: `thread start under load: spawn together ${THREADS} (pthread_create -> each thread's first instruction), ${burners} CPU-burning process${burners === 1 ? "" : "es"} beside it; the CLI with its spare worker, without it, and native`,
    kind: "pool",
    script: "thread-start.js",
    reps: Q(3, 1),
    params: { burners, runs: Q(5, 2) },
    variants: VARIANTS.map((variant) => ({ id: variant, label: LABELS[variant], params: { variant } })),
    baseline: "no-spare",
    metrics: [
      { key: "firstMs", stat: "value", label: "first thread: spawn -> start", unit: "ms", better: "lower" },
      { key: "medianMs", stat: "value", label: "every thread: spawn -> start, median", unit: "ms", better: "lower" },
      { key: "worstMs", stat: "value", label: "slowest thread", unit: "ms", better: "lower" },
      {
        key: "lateRuns",
        stat: "value",
        label: `runs with a thread later than ${LATE_MS} ms (crossbeam-channel's tick test \`ready\` fails on such a run)`,
        unit: "%",
        better: "lower",
      },
    ],
    timeoutMs: 300000,
    otherNode: true, // and on Node 24 (bench/lib/other-node.js)
  }));
}
