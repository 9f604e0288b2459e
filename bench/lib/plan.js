// What `npm run bench` measures: the scenarios, their parameters in full and
// quick mode, and the metrics the table shows.
//
// kind:
//   "pool"     a child process per (implementation, repetition) running
//              bench/scenarios/<script> with JSON params; it prints one
//              BENCH_RESULT line;
//   "exit"     the same, but the runner also measures the child's exit
//              (shutdown scenario);
//   "c"        the plain C reference (bench/c/pingpong.c), no implementation.
//
// otherNode: true runs the row a second time on Node 24 (a row of its own,
//   id@node24: bench/lib/other-node.js); the program rows and shutdown's.
//
// metric: {key, stat, label, unit, better, digits}
//   key    the child's metric name;
//   stat   "p50" | "p99" for a per-event sample, "value" for one figure per
//          child (the table shows the median over repetitions).

import { runnerScenarios } from "./runner-plan.js";
import { threadStartScenarios } from "./thread-start.js";
import { memoryGrowthScenarios } from "./memory-growth-plan.js";
import { programCostScenarios } from "./program-costs-plan.js";
import { runSpreadScenarios } from "./run-spread-plan.js";
import { embedderScenarios } from "./embedder-plan.js";

// Quick mode (CI smoke) runs each scenario script once on small sizes and
// skips the variants marked skipInQuick, to keep the child processes few.
// The instance policy and the implementation apart, in one run: the SDK's
// configuration (JS pool, a fresh instance per thread) is the baseline.
export const WAVE_VARIANTS = [
  { id: "sdk", label: "SDK config (JS pool + fresh instances)", impl: "js", params: { freshInstances: true } },
  { id: "default", label: "package default (native + reuse)", impl: "native", params: { freshInstances: false } },
  { id: "native-fresh", label: "native + fresh", impl: "native", params: { freshInstances: true } },
  { id: "js-reuse", label: "JS + reuse", impl: "js", params: { freshInstances: false } },
];

export const PEER_VARIANTS = [
  { id: "emnapi", label: "@emnapi/wasi-threads 2.2.0", params: { host: "emnapi" } },
  {
    id: "default",
    label: "package default (native + reuse)",
    impl: "native",
    params: { host: "package", freshInstances: false },
  },
  { id: "sdk", label: "package, SDK config (JS + fresh)", impl: "js", params: { host: "package", freshInstances: true } },
];

// The program's WASI (src/wasi/) against node:wasi, which the runner falls
// back to (forced with WASI_THREAD_POOL_NODE_WASI=1): no pool implementation
// of their own (the pool default runs the programs).
export const WASI_VARIANTS = [
  { id: "node-wasi", label: "node:wasi (the runner's fallback)", params: { host: "node" } },
  { id: "c-wasi", label: "the program's C WASI", params: { host: "c" } },
];

// The real programs' rows add the browser runner in a page.
const WASI_PROGRAM_VARIANTS = [
  ...WASI_VARIANTS,
  { id: "page", label: "in a page (headless Chromium, the browser runner)", params: { host: "page" } },
];

export function buildPlan({ quick }) {
  const Q = (full, q) => (quick ? q : full);
  const plan = [
    {
      id: "handoff-hot",
      group: "1. Handoff latency",
      title: "hot: next thread 20-50 us after the previous finished",
      kind: "pool",
      script: "handoff.js",
      reps: Q(4, 1),
      params: { phase: "hot", samples: Q(2500, 300), warmup: Q(300, 50), gapMinUs: 20, gapMaxUs: 50 },
      metrics: [
        { key: "handoffUs", stat: "p50", label: "spawn -> runThread p50", unit: "us", better: "lower" },
        { key: "handoffUs", stat: "p99", label: "spawn -> runThread p99", unit: "us", better: "lower" },
        { key: "spawnCallUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
        { key: "gapUs", stat: "p50", label: "actual gap after finish p50", unit: "us", better: null },
      ],
      timeoutMs: 60000,
    },
    {
      id: "handoff-cold",
      skipInQuick: true,
      group: "1. Handoff latency",
      title: "cold: after 50 ms idle",
      kind: "pool",
      script: "handoff.js",
      reps: Q(3, 1),
      params: { phase: "cold", samples: Q(40, 4), warmup: Q(3, 1), idleMs: 50 },
      metrics: [
        { key: "handoffUs", stat: "p50", label: "spawn -> runThread p50", unit: "us", better: "lower" },
        { key: "handoffUs", stat: "p99", label: "spawn -> runThread p99", unit: "us", better: "lower" },
        { key: "spawnCallUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
      ],
      timeoutMs: 60000,
    },
  ];
  for (const workers of [1, 2, 4]) {
    plan.push({
      id: `throughput-${workers}`,
      skipInQuick: workers !== 1,
      group: "2. Empty-thread throughput",
      title: `${workers} worker${workers > 1 ? "s" : ""}, waves of ${workers}, joined`,
      kind: "pool",
      script: "throughput.js",
      reps: Q(4, 1),
      params: { workers, threads: Q(20000, 1000), warmup: Q(1000, 100) },
      metrics: [
        { key: "threadsPerSec", stat: "value", label: "threads/s", unit: "/s", better: "higher", digits: 0 },
        { key: "cpuUsPerThread", stat: "value", label: "CPU per thread", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    });
  }
  plan.push({
    id: "throughput-1-breakdown",
    skipInQuick: true,
    group: "2. Empty-thread throughput",
    title: "1 worker, every thread stamped: where one thread's time goes",
    kind: "pool",
    script: "throughput.js",
    reps: Q(2, 1),
    params: { workers: 1, threads: Q(5000, 500), warmup: Q(500, 50), breakdown: true },
    metrics: [
      { key: "threadsPerSec", stat: "value", label: "threads/s (stamped)", unit: "/s", better: "higher", digits: 0 },
      { key: "spawnCallUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
      { key: "handoffUs", stat: "p50", label: "spawn -> runThread p50", unit: "us", better: "lower" },
      { key: "joinWakeUs", stat: "p50", label: "runThread end -> join returned p50", unit: "us", better: "lower" },
      { key: "turnaroundUs", stat: "p50", label: "join returned -> next spawn p50", unit: "us", better: null },
    ],
    timeoutMs: 120000,
  });
  // A spawner waiting inside the pool for a slot: the pool is at its size,
  // so spawn() waits (spawnWaitMs) for a thread to finish. Empty threads on
  // the pool API (native against JS), then the wave guest on a pool narrower
  // than its waves (package default against the SDK configuration).
  plan.push(
    {
      id: "slot-wait-1",
      group: "2b. A spawner waiting for a slot",
      title: "1 worker, back-to-back spawns (joined only at the end): each spawn waits in the pool for the previous thread",
      kind: "pool",
      script: "throughput.js",
      reps: Q(4, 1),
      params: { workers: 1, threads: Q(10000, 1000), warmup: Q(500, 100), wave: Q(10000, 1000), spawnWaitMs: 1000 },
      metrics: [
        { key: "threadsPerSec", stat: "value", label: "threads/s", unit: "/s", better: "higher", digits: 0 },
        { key: "cpuUsPerThread", stat: "value", label: "CPU per thread", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "slot-wait-2x8",
      skipInQuick: true,
      group: "2b. A spawner waiting for a slot",
      title: "2 workers, waves of 8 spawns, joined: 6 of every 8 spawns wait for a slot",
      kind: "pool",
      script: "throughput.js",
      reps: Q(4, 1),
      params: { workers: 2, threads: Q(10000, 1000), warmup: Q(500, 100), wave: 8, spawnWaitMs: 1000 },
      metrics: [
        { key: "threadsPerSec", stat: "value", label: "threads/s", unit: "/s", better: "higher", digits: 0 },
        { key: "cpuUsPerThread", stat: "value", label: "CPU per thread", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    },
  );
  for (const [workers, lanes] of [
    [1, 8],
    [2, 9],
  ]) {
    plan.push({
      id: `slot-wait-guest-${workers}x${lanes - 1}`,
      skipInQuick: workers !== 1,
      group: "2b. A spawner waiting for a slot",
      title: `the wave guest on ${workers} pre-started worker${workers > 1 ? "s" : ""}, waves of ${lanes - 1} threads (${Q(300, 50)} waves): spawns wait for a slot`,
      kind: "pool",
      script: "waves-pool.js",
      reps: Q(3, 1),
      params: { lanes, waves: Q(300, 50), rounds: 16, workers, spawnWaitMs: 1000 },
      variants: WAVE_VARIANTS,
      baseline: "sdk",
      metrics: [
        { key: "wallMs", stat: "value", label: "wall time of the call", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "process CPU of the call", unit: "ms", better: "lower" },
        { key: "usPerThread", stat: "value", label: "wall per thread", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    });
  }
  plan.push(
    {
      id: "contention",
      group: "3. Contention",
      title: `3 spawner threads, 4 serving workers, ${Q("100,000", "3,000")} spawns`,
      kind: "pool",
      script: "contention.js",
      reps: Q(3, 1),
      params: { spawners: 3, servers: 4, spawns: Q(100000, 3000) },
      metrics: [
        { key: "wallMs", stat: "value", label: "wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "process CPU", unit: "ms", better: "lower" },
        { key: "declined", stat: "value", label: "declines", unit: "", better: "lower", digits: 0 },
      ],
      timeoutMs: 180000,
    },
    {
      id: "waves",
      group: "4. Thread-wave guest",
      title: Q(
        "14,000 threads in one call (2000 waves of 7, 16 rounds), package host via test/support/wave-harness.js",
        "1,400 threads (200 waves of 7), package host",
      ),
      // (the first call grows the pool, as the SDK's own test makes it; the
      // second call on the same host shows the warm pool)
      kind: "pool",
      script: "waves.js",
      reps: Q(3, 1),
      params: { lanes: 8, waves: Q(2000, 200), rounds: 16 },
      variants: WAVE_VARIANTS,
      baseline: "sdk",
      metrics: [
        { key: "wallMs", stat: "value", label: "first call (pool grows): wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "first call: process CPU", unit: "ms", better: "lower" },
        { key: "warmWallMs", stat: "value", label: "second call (warm pool): wall time", unit: "ms", better: "lower" },
        { key: "warmCpuMs", stat: "value", label: "second call: process CPU", unit: "ms", better: "lower" },
        { key: "warmMainCpuMs", stat: "value", label: "  of which the guest's main thread", unit: "ms", better: "lower" },
        { key: "warmWorkerCpuMs", stat: "value", label: "  of which the pool workers", unit: "ms", better: "lower" },
        {
          key: "warmWorkerSysMs",
          stat: "value",
          label: "  the workers' system (kernel) time, 10 ms ticks",
          unit: "ms",
          better: "lower",
          digits: 0,
        },
        {
          key: "warmWorkerBlocksPerThread",
          stat: "value",
          label: "  workers' blocking waits per guest thread",
          unit: "",
          better: "lower",
        },
        {
          key: "warmMainBlocksPerThread",
          stat: "value",
          label: "  main thread's blocking waits per guest thread",
          unit: "",
          better: "lower",
        },
      ],
      timeoutMs: 300000,
    },
    ...[0, 1, 2, 4].map((burners) => ({
      id: `load-${burners}`,
      skipInQuick: burners !== 2,
      group: "4b. The wave call on a machine others load",
      title: Q(
        `the 14,000-thread call with ${burners} CPU-burning process${burners === 1 ? "" : "es"} of the bench's own beside it (bench/lib/burners.js)`,
        `1,400 threads, ${burners} burning processes`,
      ),
      kind: "pool",
      script: "waves.js",
      reps: Q(2, 1),
      params: { lanes: 8, waves: Q(2000, 200), rounds: 16, burners },
      variants: WAVE_VARIANTS,
      baseline: "sdk",
      metrics: [
        { key: "wallMs", stat: "value", label: "first call (pool grows): wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "first call: process CPU", unit: "ms", better: "lower" },
        { key: "warmWallMs", stat: "value", label: "second call: wall time", unit: "ms", better: "lower" },
        { key: "warmCpuMs", stat: "value", label: "second call: process CPU", unit: "ms", better: "lower" },
        { key: "loadAverage1", stat: "value", label: "load average (1 min) at the end", unit: "", better: null },
      ],
      timeoutMs: 300000,
    })),
    ...[
      ["pthread", undefined],
      ["zig", undefined],
      ["zig", "volatile"],
    ].map(([guest, waits]) => ({
      id: `real-guest-${guest}${waits ? `-${waits}` : ""}`,
      skipInQuick: guest !== "pthread",
      group: "4c. Real-toolchain guests through the runner",
      title:
        guest === "pthread"
          ? `C with wasi-libc pthreads (clang-19, ../shared/wasi-threads-sysroot): ${Q("2000", "100")} waves of 7 threads, joined (bench/guest/pthread-waves.c)`
          : waits
            ? `the same Zig program waiting with its own volatile memory.atomic.wait32 (gate and thread end): ${Q("500", "100")} waves`
            : `Zig 0.11 std.Thread, ReleaseFast: ${Q("500", "100")} waves of 7 threads, joined (bench/guest/zig-waves.zig; std's waits spin)`,
      kind: "pool",
      script: "real-guest.js",
      reps: Q(2, 1),
      // (the Zig rows are shorter: std's spinning waits take seconds under load)
      params: { guest, waits, lanes: 8, waves: guest === "zig" ? Q(500, 100) : Q(2000, 100), rounds: 16 },
      metrics: [
        { key: "wallMs", stat: "value", label: "program wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "program process CPU", unit: "ms", better: "lower" },
        { key: "cpuUsPerThread", stat: "value", label: "CPU per thread (full run - one-wave run)", unit: "us", better: "lower" },
        { key: "createUs", stat: "value", label: "pthread_create / Thread.spawn call p50", unit: "us", better: "lower" },
        { key: "startUs", stat: "value", label: "create called -> thread function entry p50", unit: "us", better: "lower" },
        { key: "startMeanUs", stat: "value", label: "  the same, mean", unit: "us", better: "lower" },
        { key: "bodyUs", stat: "value", label: "thread function's work p50", unit: "us", better: null },
        { key: "exitJoinUs", stat: "value", label: "function return -> join returned p50", unit: "us", better: "lower" },
        { key: "exitJoinMeanUs", stat: "value", label: "  the same, mean", unit: "us", better: "lower" },
        { key: "waveUs", stat: "value", label: "one wave (7 creates .. 7 joins) p50", unit: "us", better: "lower" },
        { key: "waveMeanUs", stat: "value", label: "  the same, mean", unit: "us", better: "lower" },
      ],
      timeoutMs: 300000,
    })),
    ...[
      ["pthread", undefined, 0],
      ["zig", undefined, 0],
      ["zig", undefined, 2],
      ["zig", "volatile", 2],
    ].map(([guest, waits, burners]) => ({
      id: `real-host-${guest}${waits ? `-${waits}` : ""}${burners ? `-load${burners}` : ""}`,
      skipInQuick: true,
      group: "4c. Real-toolchain guests through the runner",
      title: `the ${guest === "pthread" ? "C pthreads" : waits ? "Zig (own blocking waits)" : "Zig std.Thread"} guest through the SDK's host API (createWasiThreadSpawn): ${guest === "zig" ? 500 : 2000} waves of 7${burners ? `, ${burners} CPU-burning processes beside it` : ""}`,
      kind: "pool",
      script: "real-guest-host.js",
      reps: 2,
      params: { guest, waits, burners, lanes: 8, waves: guest === "zig" ? 500 : 2000, rounds: 16 },
      variants: [WAVE_VARIANTS[0], WAVE_VARIANTS[1]],
      baseline: "sdk",
      metrics: [
        { key: "wallMs", stat: "value", label: "program wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "program process CPU", unit: "ms", better: "lower" },
        { key: "cpuUsPerThread", stat: "value", label: "CPU per thread (full run - one-wave run)", unit: "us", better: "lower" },
        { key: "startUs", stat: "value", label: "create called -> thread function entry p50", unit: "us", better: "lower" },
        { key: "exitJoinUs", stat: "value", label: "function return -> join returned p50", unit: "us", better: "lower" },
        { key: "waveUs", stat: "value", label: "one wave p50", unit: "us", better: "lower" },
        { key: "waveMeanUs", stat: "value", label: "  the same, mean", unit: "us", better: "lower" },
        { key: "loadAverage1", stat: "value", label: "load average (1 min) at the end", unit: "", better: null },
      ],
      timeoutMs: 300000,
    })),
    {
      id: "waves-serial",
      group: "4. Thread-wave guest",
      title: Q(
        "reference: the same guest work with lanes 1 (no thread spawned): the guest's own CPU",
        "reference: lanes 1, 200 waves",
      ),
      kind: "pool",
      script: "waves.js",
      reps: Q(3, 1),
      single: true,
      params: { lanes: 1, waves: Q(2000, 200), rounds: 16 },
      metrics: [
        { key: "cpuMs", stat: "value", label: "first call: CPU", unit: "ms", better: "lower" },
        { key: "warmCpuMs", stat: "value", label: "second call: CPU", unit: "ms", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "waves-startup",
      skipInQuick: true,
      group: "4. Thread-wave guest",
      title: "one wave of 7 threads on a fresh host: the first call's fixed cost (7 workers started)",
      kind: "pool",
      script: "waves.js",
      reps: 3,
      params: { lanes: 8, waves: 1, rounds: 16, invokes: 1 },
      variants: [WAVE_VARIANTS[0], WAVE_VARIANTS[1]],
      baseline: "sdk",
      metrics: [
        { key: "wallMs", stat: "value", label: "call: wall time", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "call: process CPU", unit: "ms", better: "lower" },
      ],
      timeoutMs: 60000,
    },
    {
      id: "waves-pool",
      skipInQuick: true,
      group: "4. Thread-wave guest",
      title: Q(
        "14,000 threads in one call, straight on the pool API, 7 pre-started workers, fresh instance per thread",
        "1,400 threads, pool API, 7 workers",
      ),
      kind: "pool",
      script: "waves-pool.js",
      reps: Q(4, 1),
      params: { lanes: 8, waves: Q(2000, 200), rounds: 16 },
      metrics: [
        { key: "wallMs", stat: "value", label: "wall time of the call", unit: "ms", better: "lower" },
        { key: "cpuMs", stat: "value", label: "process CPU of the call", unit: "ms", better: "lower" },
      ],
      timeoutMs: 300000,
    },
    {
      id: "waves-breakdown",
      group: "4. Thread-wave guest",
      title: Q(
        "the same on 7 pre-started workers, every thread stamped (per-thread breakdown; wall time not comparable)",
        "200 waves, stamped",
      ),
      kind: "pool",
      script: "waves-pool.js",
      reps: Q(2, 1),
      params: { lanes: 8, waves: Q(2000, 200), rounds: 16, breakdown: true },
      variants: WAVE_VARIANTS,
      baseline: "sdk",
      metrics: [
        { key: "spawnUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
        { key: "wakeUs", stat: "p50", label: "spawn start -> runThread entry p50", unit: "us", better: "lower" },
        { key: "instantiateUs", stat: "p50", label: "instance for the thread p50", unit: "us", better: "lower" },
        { key: "guestUs", stat: "p50", label: "wasi_thread_start (guest work) p50", unit: "us", better: "lower" },
        { key: "finishUs", stat: "p50", label: "guest end -> slot left RUNNING p50", unit: "us", better: "lower" },
        { key: "spawnUs", stat: "p99", label: "spawn() call p99", unit: "us", better: "lower" },
      ],
      timeoutMs: 300000,
    },
    {
      id: "scan",
      group: "5. Scan cost",
      title: "capacity 1024, 1020 slots busy, 4 idle at the end",
      kind: "pool",
      script: "scan.js",
      reps: Q(3, 1),
      params: { capacity: 1024, busy: 1020, samples: Q(2000, 100), warmup: Q(200, 20) },
      metrics: [
        { key: "spawnCallUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
        { key: "handoffUs", stat: "p50", label: "spawn -> runThread p50", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "scan-small",
      skipInQuick: true,
      group: "5. Scan cost",
      title: "reference: capacity 4, all idle",
      kind: "pool",
      script: "scan.js",
      reps: Q(3, 1),
      params: { capacity: 4, busy: 0, samples: Q(2000, 100), warmup: Q(200, 20) },
      metrics: [
        { key: "spawnCallUs", stat: "p50", label: "spawn() call p50", unit: "us", better: "lower" },
        { key: "handoffUs", stat: "p50", label: "spawn -> runThread p50", unit: "us", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "idle",
      group: "6. Idle cost",
      title: Q("64 parked workers for 5 s", "8 parked workers for 0.3 s"),
      kind: "pool",
      script: "idle.js",
      reps: Q(2, 1),
      params: { workers: Q(64, 8), seconds: Q(5, 0.3), settleMs: Q(500, 100) },
      metrics: [
        { key: "cpuPctOfCore", stat: "value", label: "CPU, % of one core", unit: "%", better: "lower", digits: 3 },
        { key: "wakeupsPerSec", stat: "value", label: "context switches/s", unit: "/s", better: "lower", digits: 0 },
        { key: "cpuUsPerWakeup", stat: "value", label: "CPU per context switch", unit: "us", better: null },
        { key: "userUsPerWakeup", stat: "value", label: "  of which user", unit: "us", better: null },
        { key: "systemUsPerWakeup", stat: "value", label: "  of which system", unit: "us", better: null },
      ],
      timeoutMs: 120000,
    },
    {
      id: "shutdown",
      group: "7. Shutdown",
      title: Q("64 idle workers, unref'd, main module ends", "8 idle workers, unref'd, main module ends"),
      kind: "exit",
      script: "shutdown-child.js",
      reps: Q(3, 1),
      params: { workers: Q(64, 8), variant: "unref", settleMs: Q(300, 100) },
      metrics: [{ key: "exitMs", stat: "value", label: "main module end -> exit", unit: "ms", better: "lower" }],
      timeoutMs: 60000,
      otherNode: true,
    },
    {
      id: "shutdown-retire",
      skipInQuick: true,
      group: "7. Shutdown",
      title: Q("64 idle workers, every slot retired, main module ends", "8 idle workers, retired"),
      kind: "exit",
      script: "shutdown-child.js",
      reps: Q(2, 1),
      params: { workers: Q(64, 8), variant: "retire", settleMs: Q(300, 100) },
      metrics: [{ key: "exitMs", stat: "value", label: "main module end -> exit", unit: "ms", better: "lower" }],
      timeoutMs: 60000,
      otherNode: true,
    },
  );
  plan.push({
    id: "shutdown-bare",
    skipInQuick: true,
    group: "7. Shutdown",
    title: Q("reference: 64 unref'd workers blocked in Atomics.wait, no pool at all", "reference: 8 bare workers"),
    kind: "exit",
    script: "shutdown-child.js",
    reps: Q(2, 1),
    single: true,
    params: { workers: Q(64, 8), variant: "bare", settleMs: Q(300, 100) },
    metrics: [{ key: "exitMs", stat: "value", label: "main module end -> exit", unit: "ms", better: "lower" }],
    timeoutMs: 60000,
    otherNode: true,
  });
  plan.push({
    id: "shutdown-bare-filled",
    skipInQuick: true,
    group: "7. Shutdown",
    title: Q(
      "reference: the same 64 bare workers, each having allocated 800 KiB before it parks (past V8's minor-GC task trigger)",
      "reference: 8 bare workers, 800 KiB each",
    ),
    kind: "exit",
    script: "shutdown-child.js",
    reps: Q(2, 1),
    single: true,
    params: { workers: Q(64, 8), variant: "bare", settleMs: Q(300, 100), fillKiB: 800 },
    metrics: [{ key: "exitMs", stat: "value", label: "main module end -> exit", unit: "ms", better: "lower" }],
    timeoutMs: 60000,
    otherNode: true,
  });
  plan.push(
    {
      id: "peer-repeat",
      group: "9. The peer: @emnapi/wasi-threads",
      title: Q(
        "reactor guest, one wave of 7 threads (+ the caller's lane) per call, 3,000 calls from the event loop, 7 workers preloaded",
        "reactor guest, 300 calls",
      ),
      kind: "pool",
      script: "peer.js",
      reps: Q(3, 1),
      params: { mode: "repeat", threads: 7, work: 2000, calls: Q(3000, 300), warmup: Q(300, 50) },
      variants: PEER_VARIANTS,
      baseline: "emnapi",
      metrics: [
        { key: "callsPerSec", stat: "value", label: "calls/s", unit: "/s", better: "higher", digits: 0 },
        { key: "cpuUsPerCall", stat: "value", label: "process CPU per call", unit: "us", better: "lower" },
        { key: "workersCreated", stat: "value", label: "workers started in all", unit: "", better: "lower", digits: 0 },
      ],
      timeoutMs: 120000,
    },
    {
      id: "peer-blocked",
      group: "9. The peer: @emnapi/wasi-threads",
      title: Q(
        "what the peer cannot run: 20 waves of 7 inside one blocked call (no event-loop turn between waves)",
        "5 waves in one blocked call",
      ),
      kind: "pool",
      script: "peer.js",
      reps: 1,
      params: { mode: "one-blocked-call", threads: 7, work: 2000, waves: Q(20, 5) },
      variants: [PEER_VARIANTS[0], PEER_VARIANTS[1]],
      baseline: "emnapi",
      metrics: [
        {
          key: "workersPerThread",
          stat: "value",
          label: "workers started per thread (after the first 7)",
          unit: "",
          better: "lower",
        },
        {
          key: "msPerWave",
          stat: "value",
          label: "time per wave (package: includes its 7 workers' start)",
          unit: "ms",
          better: "lower",
        },
      ],
      timeoutMs: 120000,
    },
    {
      id: "peer-wave-guest",
      group: "9. The peer: @emnapi/wasi-threads",
      title: "what the peer cannot run: the thread-wave guest of guest/ (14,000 threads in one call; no malloc/free exports)",
      kind: "pool",
      script: "peer.js",
      reps: 1,
      params: { mode: "wave-guest" },
      variants: [PEER_VARIANTS[0], PEER_VARIANTS[1]],
      baseline: "emnapi",
      metrics: [
        {
          key: "ranOk",
          stat: "value",
          label: "ran to the right output (1) or failed (0)",
          unit: "",
          better: "higher",
          digits: 0,
        },
        { key: "wallMs", stat: "value", label: "time to result or failure", unit: "ms", better: null },
      ],
      timeoutMs: 120000,
    },
  );
  for (const [cpus, label] of [
    ["0", "1 CPU"],
    ["0,1", "2 CPUs"],
  ]) {
    plan.push({
      id: `pinned-${label.replace(/ .*/, "")}cpu`,
      skipInQuick: true,
      group: "10. A bigger machine on paper: pinned runs",
      title: `the 14,000-thread call, child pinned to ${label} (taskset -c ${cpus})`,
      kind: "pool",
      script: "waves.js",
      cpus,
      reps: 2,
      params: { lanes: 8, waves: 2000, rounds: 16 },
      variants: WAVE_VARIANTS,
      baseline: "sdk",
      metrics: [
        { key: "warmWallMs", stat: "value", label: "second call (warm pool): wall time", unit: "ms", better: "lower" },
        { key: "warmCpuMs", stat: "value", label: "second call: process CPU", unit: "ms", better: "lower" },
        { key: "wallMs", stat: "value", label: "first call: wall time", unit: "ms", better: "lower" },
      ],
      timeoutMs: 300000,
    });
  }
  // The plain C reference: each configuration once per repetition.
  const cIters = Q(20000, 2000);
  const cGapIters = Q(4000, 300);
  const cConfigs = [
    {
      id: "c-spin",
      title: "spin-then-futex (2000 pauses, as FINDINGS measured it), back to back",
      args: ["--mode", "spin", "--spin", "2000", "--iters", cIters],
    },
    {
      id: "c-spin-core",
      title: "spin-then-futex (100 pauses, the core's WTP_PARK_SPIN_LIMIT), back to back",
      args: ["--mode", "spin", "--spin", "100", "--iters", cIters],
    },
    {
      id: "c-futex",
      title: "futex only (park at once, always wake), back to back",
      args: ["--mode", "futex", "--iters", cIters],
    },
    {
      id: "c-spin-gap",
      title: "spin-then-futex (100 pauses), next handoff 30 us later",
      args: ["--mode", "spin", "--spin", "100", "--gap-us", "30", "--iters", cGapIters],
    },
    {
      id: "c-longspin-gap",
      title: "spin-then-futex (4000 pauses, ~100 us), next handoff 30 us later",
      args: ["--mode", "spin", "--spin", "4000", "--gap-us", "30", "--iters", cGapIters],
    },
    {
      id: "c-futex-gap",
      title: "futex only, next handoff 30 us later",
      args: ["--mode", "futex", "--gap-us", "30", "--iters", cGapIters],
    },
    {
      id: "c-futex-same",
      title: "futex only, both threads pinned to one CPU",
      args: ["--mode", "futex", "--pin", "same", "--iters", cGapIters],
    },
  ];
  for (const c of cConfigs) {
    plan.push({
      id: c.id,
      skipInQuick: c.id !== "c-spin" && c.id !== "c-futex",
      group: "8. Plain C reference",
      title: c.title,
      kind: "c",
      args: c.args.map(String),
      reps: Q(3, 1),
      metrics: [
        { key: "oneWayUs", stat: "value", label: "one way p50", unit: "us", better: "lower" },
        { key: "roundTripUs", stat: "value", label: "round trip p50", unit: "us", better: "lower" },
        { key: "oneWayP99Us", stat: "value", label: "one way p99", unit: "us", better: "lower" },
        { key: "wakeCallUs", stat: "value", label: "waker's FUTEX_WAKE call p50", unit: "us", better: "lower" },
      ],
      timeoutMs: 60000,
    });
  }
  plan.push({
    id: "c-scan",
    group: "8. Plain C reference",
    title: "one scan of 1024 slots, 1020 busy: compare-exchange on every slot (as the core) vs load first",
    kind: "c",
    program: "scan",
    args: ["1024", "1020", String(Q(20000, 2000))],
    reps: Q(3, 1),
    metrics: [
      { key: "casFirstUs", stat: "value", label: "CAS on every slot", unit: "us", better: "lower" },
      { key: "loadFirstUs", stat: "value", label: "load first, CAS only an IDLE slot", unit: "us", better: "lower" },
    ],
    timeoutMs: 60000,
  });
  plan.push(
    {
      id: "wasi-calls",
      group: "10. The program's WASI",
      title: Q(
        "one call in a loop of 20,000 (clock_time_get 200,000) on the guest's thread, ns per call: C WASI vs node:wasi",
        "one call in a loop of 2,000",
      ),
      kind: "pool",
      script: "wasi-calls.js",
      reps: Q(3, 1),
      params: { n: Q(20000, 2000), rounds: Q(5, 2) },
      variants: WASI_VARIANTS,
      baseline: "node-wasi",
      metrics: [
        { key: "fdWrite4kNs", stat: "value", label: "fd_write 4 KiB to a file", unit: "ns", better: "lower", digits: 0 },
        { key: "fdRead4kNs", stat: "value", label: "fd_read 4 KiB from a file", unit: "ns", better: "lower", digits: 0 },
        { key: "openCloseNs", stat: "value", label: "path_open + fd_close", unit: "ns", better: "lower", digits: 0 },
        { key: "clockNs", stat: "value", label: "clock_time_get(MONOTONIC)", unit: "ns", better: "lower", digits: 0 },
      ],
      timeoutMs: 120000,
    },
    {
      id: "wasi-programs",
      group: "10. The program's WASI",
      title: Q(
        "pigz -p 2 and zstd -T2 on 8 MiB of text (../shared/real-programs), wall time of the call; file to file only on the C WASI",
        "pigz and zstd on 1 MiB",
      ),
      kind: "pool",
      script: "wasi-programs.js",
      reps: Q(3, 1),
      params: { mib: Q(8, 1) },
      variants: WASI_PROGRAM_VARIANTS,
      baseline: "node-wasi",
      otherNode: true,
      metrics: [
        { key: "pigzStdioMs", stat: "value", label: "pigz -p 2 -c, stdin to stdout", unit: "ms", better: "lower", digits: 0 },
        { key: "zstdStdioMs", stat: "value", label: "zstd -T2 -c, stdin to stdout", unit: "ms", better: "lower", digits: 0 },
        {
          key: "pigzFileMs",
          stat: "value",
          label: "pigz -p 2 -k FILE (fails on node:wasi)",
          unit: "ms",
          better: "lower",
          digits: 0,
        },
        {
          key: "zstdFileMs",
          stat: "value",
          label: "zstd -T2 FILE -o OUT (fails on node:wasi)",
          unit: "ms",
          better: "lower",
          digits: 0,
        },
      ],
      timeoutMs: 300000,
    },
  );
  // Group 11, the runner (issue 19): a block of its own.
  plan.push(...runnerScenarios(Q));
  plan.push(...threadStartScenarios(Q));
  plan.push(...memoryGrowthScenarios(Q));
  // Group 13, a real program's fixed costs (issue 29): a block of its own.
  plan.push(...programCostScenarios(Q));
  // Group 14, a long-running embedder (issue 36): a block of its own.
  plan.push(...embedderScenarios(Q));
  // Group 15, the spread of a program's runs: a block of its own.
  plan.push(...runSpreadScenarios(Q));
  // Run order: the C references first, right before the handoff scenario, so
  // that the floor and the handoff it bounds are measured minutes apart at
  // most on a machine whose load drifts. The report lists them by group.
  const ordered = [...plan.filter((s) => s.kind === "c"), ...plan.filter((s) => s.kind !== "c")];
  return quick ? ordered.filter((s) => !s.skipInQuick) : ordered;
}
