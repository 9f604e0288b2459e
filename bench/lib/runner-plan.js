// Group 11 of `npm run bench`: the runner (`wasi-thread-pool run`), its
// start-up, its threads and its workers, against what they are held to
// (issue 19): `node -e 0`, the best fixed pool, bare Node workers, and the
// same C program built with gcc -pthread. A block of its own (buildPlan
// appends runnerScenarios, evaluateTargets appends runnerTargets). Each
// scenario runs bench/scenarios/runner.js once per variant and repetition;
// the variants alternate, so a drifting load hits them alike.

const GROUP = "11. The runner: start-up, threads and workers";

const variant = (id, label, row) => ({ id, label, params: { variant: id, row } });

// Every row runs on the machine's Node and on Node 24 (bench/lib/other-node.js).
export function runnerScenarios(Q) {
  return withOtherNodeMark([
    {
      id: "runner-startup",
      group: GROUP,
      title: "start-up of a trivial program (_start returns at once): `wasi-thread-pool run` against `node -e 0`",
      kind: "pool",
      script: "runner.js",
      reps: Q(5, 1),
      params: { row: "startup", runs: Q(5, 1) },
      variants: [variant("node", "node -e 0", "startup"), variant("runner", "wasi-thread-pool run", "startup")],
      baseline: "node",
      metrics: [
        { key: "wallMs", stat: "value", label: "wall time", unit: "ms", better: "lower" },
        { key: "rssMiB", stat: "value", label: "peak RSS", unit: "MiB", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "runner-burst",
      skipInQuick: true,
      group: GROUP,
      title: `a burst of ${Q("10,000", "1,000")} short threads (spawn burst), joined: default settings against the best of --pool 1, 2, 4, 8`,
      kind: "pool",
      script: "runner.js",
      reps: Q(3, 1),
      params: { row: "burst", threads: Q(10000, 1000), runs: Q(3, 1) },
      variants: [
        variant("fixed", "best fixed pool (--pool 1/2/4/8)", "burst"),
        variant("default", "default settings", "burst"),
        variant("native", "native (gcc -pthread)", "burst"),
      ],
      baseline: "fixed",
      metrics: [
        { key: "wallMs", stat: "value", label: "wall time", unit: "ms", better: "lower" },
        { key: "rssMiB", stat: "value", label: "peak RSS", unit: "MiB", better: "lower" },
      ],
      timeoutMs: 300000,
    },
    {
      id: "runner-alive",
      group: GROUP,
      title: `per thread alive: ${Q(16, 4)} threads that stay alive until all have started, minus 1, per thread; against as many bare Node workers`,
      kind: "pool",
      script: "runner.js",
      reps: Q(5, 1),
      params: { row: "alive", n: Q(16, 4), runs: Q(5, 1) },
      variants: [
        variant("bare", "bare workers (empty script)", "alive"),
        variant("runner", "wasi-thread-pool run", "alive"),
        variant("native", "native (gcc -pthread)", "alive"),
      ],
      baseline: "bare",
      metrics: [
        { key: "perThreadMs", stat: "value", label: "wall time per thread", unit: "ms", better: "lower" },
        { key: "perThreadRssMiB", stat: "value", label: "peak RSS per thread", unit: "MiB", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "runner-starts",
      skipInQuick: true,
      group: GROUP,
      title:
        "a thread that needs a new worker: pthread_create -> its first instruction (spawn starts 8: each thread stays alive, the next is created once it has started); against new Worker -> first message",
      kind: "pool",
      script: "runner.js",
      reps: Q(3, 1),
      params: { row: "starts", n: 8, runs: Q(3, 1) },
      variants: [
        variant("bare", "bare worker: new Worker -> first message", "starts"),
        variant("runner", "wasi-thread-pool run", "starts"),
        variant("native", "native (gcc -pthread)", "starts"),
      ],
      baseline: "bare",
      metrics: [
        { key: "startMs", stat: "value", label: "spawn -> start, median", unit: "ms", better: "lower" },
        { key: "startMaxMs", stat: "value", label: "spawn -> start, largest", unit: "ms", better: "lower" },
      ],
      timeoutMs: 120000,
    },
    {
      id: "runner-together",
      skipInQuick: true,
      group: GROUP,
      title:
        "a burst of 64 threads that each need a new worker: pthread_create -> each thread's first instruction (spawn together 64: created back to back, each stays alive); against 64 new Workers at once, each to its first message",
      kind: "pool",
      script: "runner.js",
      reps: Q(3, 1),
      params: { row: "together", n: 64, runs: Q(3, 1) },
      variants: [
        variant("bare", "bare workers: 64 new Workers at once -> each first message", "together"),
        variant("runner", "wasi-thread-pool run", "together"),
        variant("native", "native (gcc -pthread)", "together"),
      ],
      baseline: "bare",
      metrics: [
        {
          key: "slowestMs",
          stat: "value",
          label: "slowest thread: spawn -> start (the burst's stall)",
          unit: "ms",
          better: "lower",
        },
        { key: "startMs", stat: "value", label: "every thread: spawn -> start, median", unit: "ms", better: "lower" },
      ],
      timeoutMs: 300000,
    },
  ]);
}

const withOtherNodeMark = (scenarios) => scenarios.map((s) => ({ ...s, otherNode: true }));

// What bounds each target when it is missed.
export const RUNNER_BOUNDS = {
  runnerStartup:
    "The guest's main thread runs in a worker: one worker bootstrap (about 20 ms quiet) plus the runner's modules in the process and in that worker (docs/runner.md).",
  runnerBurst:
    "Workers start while the burst runs; a new worker pays only when threads run at least as long as a start (lib/program/threads.js, growthPays).",
  runnerAlive:
    "Every thread alive is a Node worker: the bare worker's bootstrap, plus 2.5 to 3.5 ms of the runner's: loading dist/pool-worker.cjs and the addon, the thread's imports, the probe instance (bench/worker-start.js).",
  runnerStarts:
    "A thread that needs a worker waits for that worker's start: the bare worker's, plus the runner's 2.5 to 3.5 ms (runner-alive's bound). A spare worker started ahead would not shorten this row: each thread here needs a worker right after the previous one started.",
  runnerTogether:
    "Worker starts are CPU work (about 30 ms of CPU each on Node 24, 27 ms on Node 20): a burst's workers start a few at a time (lib/program/threads.js, startsAtOnce), each next one as soon as one is up (feedQueue), so its last thread waits for about as many starts as the CPUs can do.",
};

// Targets of group 11, through evaluateTargets' add(key, name, want, value,
// ok, figure, note, bound) and its helpers over the results: vratio(id,
// variant, metric), figure(id, variant, metric), and its number formats.
const TARGETS = [
  // [bound key, scenario, metric, name, wanted ratio, unit]
  ["runnerStartup", "runner-startup", "wallMs", "start-up of a trivial program, wasi-thread-pool run / node -e 0", 1.5, "ms"],
  [
    "runnerBurst",
    "runner-burst",
    "wallMs",
    "burst of short threads (10,000 in the full run), default settings / best fixed pool: wall",
    2,
    "ms",
  ],
  [
    "runnerBurst",
    "runner-burst",
    "rssMiB",
    "burst of short threads (10,000 in the full run), default settings / best fixed pool: peak RSS",
    2,
    "MiB",
  ],
  ["runnerAlive", "runner-alive", "perThreadMs", "per thread alive (16 in the full run), runner / bare worker: wall", 1.25, "ms"],
  [
    "runnerAlive",
    "runner-alive",
    "perThreadRssMiB",
    "per thread alive (16 in the full run), runner / bare worker: RSS",
    1.25,
    "MiB",
  ],
  [
    "runnerStarts",
    "runner-starts",
    "startMs",
    "a thread that needs a new worker, spawn -> start, runner / a bare worker's start",
    1.25,
    "ms",
  ],
  [
    "runnerTogether",
    "runner-together",
    "slowestMs",
    "a burst of 64 threads: its slowest thread's spawn -> start, runner / 64 bare workers started at once",
    1,
    "ms",
  ],
];

export function runnerTargets(add, { vratio, figure, fr, f1 }) {
  for (const [key, id, metric, name, want, unit] of TARGETS) {
    const measured = id === "runner-burst" ? "default" : "runner";
    const base = id === "runner-burst" ? "fixed" : id === "runner-startup" ? "node" : "bare";
    const value = (variantId) => figure(id, variantId, `${metric}:value`);
    const digits = unit === "MiB" ? 2 : 1;
    const q = vratio(id, measured, `${metric}:value`);
    const native = value("native");
    add(
      key,
      name,
      `<= ${want}`,
      q,
      q <= want,
      `${fr(q)} (${f1(value(measured), digits)} ${unit} against ${f1(value(base), digits)} ${unit})`,
      Number.isFinite(native) ? `native (gcc -pthread): ${f1(native, digits)} ${unit}` : "",
      RUNNER_BOUNDS[key],
    );
  }
}
