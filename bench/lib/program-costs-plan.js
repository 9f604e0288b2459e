// Group 13 of `npm run bench`: the fixed costs of a run of a real program
// (issue 29), a block of its own (buildPlan appends programCostScenarios,
// evaluateTargets appends programCostTargets). Each row runs
// bench/scenarios/program-costs.js once per variant and repetition: `node
// -e 0` (the floor), the runner (with its breakdown), the native build; the
// variants alternate.

import { nativeToolMissing } from "./program-costs.js";

const GROUP = "13. A real program's run: the fixed costs (breakdown), against native and node -e 0";

const TITLES = {
  "zstd-d": "zstd -d (stdin to stdout)",
  "zstd-T2": "zstd -T2 -3 (stdin to stdout)",
  "pigz-d": "pigz -p 2 -d (stdin to stdout)",
  "pigz-c": "pigz -p 2 (stdin to stdout)",
  "pthread-pool": "a pthreads pool, 8 threads, 20,000 tasks (bench/guest/pthread-pool.c)",
  hello: "hello world (a wasi-threads command that writes one line)",
};

// The programs whose module the runner's module cache keeps (64 KiB and more:
// lib/program/module-cache.js); the others' runs are the same with it off.
const CACHED = new Set(["zstd-d", "zstd-T2", "pigz-d", "pigz-c"]);

const variant = (id, label, program) => ({ id, label, params: { variant: id, program } });

const METRICS = [
  ["wallMs", "wall time (median of the runs)", true],
  ["bootMs", "  Node's boot (process start -> the runner's first line)"],
  ["loadMs", "  the runner's modules, checks and Liftoff pass -> compile"],
  ["compileMs", "  the guest's compile"],
  ["instanceMs", "  the main thread's instance"],
  ["runMs", "  the program's run (-> its end)"],
  ["exitMs", "  the end -> the process gone"],
  ["workers", "  pool workers started", false, null],
  ["workerStartMs", "  a worker's start (its boot -> its first guest instruction), median"],
  ["guestMs", "  sampled: guest code, every thread (its waits included)"],
  ["wasiMs", "  sampled: the guest's imports (WASI calls, spawn)"],
  ["gcMs", "  sampled: garbage collection"],
  ["otherMs", "  sampled: the rest (Node, the runner's JS; idle excluded)"],
  ["liftoffMs", "  perf: guest CPU in Liftoff code, every thread"],
  ["liftoffHotMs", "    of it in functions optimized later in the run (before their TurboFan code)"],
  ["turbofanMs", "  perf: guest CPU in TurboFan code, every thread"],
  ["firstTurbofanMs", "  perf: the guest's first instruction -> its first in TurboFan code (wall)"],
  ["bgCompileMs", "  perf: V8's background threads in its compilers (wasm compile, tier-up, JS)"],
  ["bgMs", "  perf: V8's background threads, all (compile, concurrent GC)"],
].map(([key, label, _, better = "lower"]) => ({ key, stat: "value", label, unit: key === "workers" ? "" : "ms", better }));

// A variant that cannot run is left out of the row (a skipped variant would
// skip the whole row); the title says why.
export function programCostScenarios(Q) {
  return Object.entries(TITLES).map(([program, title]) => {
    const missing = program === "hello" ? null : nativeToolMissing(program);
    const sized = program === "hello" || program === "pthread-pool" ? "" : `, ${Q(64, 4)} MiB of tar`;
    return {
      id: `costs-${program}`,
      group: GROUP,
      title: `${title}${sized}${missing ? ` (native: ${missing})` : ""}`,
      kind: "pool",
      script: "program-costs.js",
      reps: Q(5, 1),
      params: { program, runs: 1, mib: Q(64, 4) },
      variants: [
        variant("node", "node -e 0", program),
        variant("runner", "wasi-thread-pool run (module cache warm)", program),
        ...(CACHED.has(program) ? [variant("runner-cold", "wasi-thread-pool run -C cache=n", program)] : []),
        ...(program === "hello" || missing ? [] : [variant("native", "native (Debian's build)", program)]),
      ],
      baseline: "node",
      metrics: METRICS,
      timeoutMs: 300000,
      otherNode: true, // and on Node 24: bench/lib/other-node.js
    };
  });
}

// The issue's targets: within 2x native where native takes more than 0.2 s
// (and the pthreads pool's, which the issue names), within 1.3x WAMR 2.4.5
// AOT (its figures on this machine, from the issue: there is no WAMR here to
// run), the hello world within 1.3x node -e 0. The runner's figure is the
// warm module cache's (WAMR's AOT figures leave its compile out too).
const WAMR_AOT_MS = { "zstd-d": 160, "zstd-T2": 210, "pthread-pool": 320 };

export const PROGRAM_COST_BOUNDS =
  "Node's boot (node -e 0) and a worker's boot per thread are the floor; the rest is the breakdown's rows.";

export function programCostTargets(add, { figure, fr, f1 }) {
  for (const program of Object.keys(TITLES)) {
    const id = `costs-${program}`;
    const runner = figure(id, "runner", "wallMs:value");
    if (!Number.isFinite(runner)) continue;
    const native = figure(id, "native", "wallMs:value");
    const floor = figure(id, "node", "wallMs:value");
    if (program === "hello") {
      const q = runner / floor;
      add(
        "programCosts",
        `${TITLES[program]}: runner / node -e 0`,
        "<= 1.3",
        q,
        q <= 1.3,
        `${fr(q)} (${f1(runner, 0)} ms against ${f1(floor, 0)} ms)`,
        "",
        PROGRAM_COST_BOUNDS,
      );
      continue;
    }
    // The issue names the pthreads pool's "within 2x native" whatever its time.
    if (Number.isFinite(native) && (native > 200 || program === "pthread-pool")) {
      const q = runner / native;
      add(
        "programCosts",
        `${TITLES[program]}: runner / native`,
        "<= 2",
        q,
        q <= 2,
        `${fr(q)} (${f1(runner, 0)} ms against ${f1(native, 0)} ms)`,
        `node -e 0: ${f1(floor, 0)} ms`,
        PROGRAM_COST_BOUNDS,
      );
    }
    if (WAMR_AOT_MS[program]) {
      const q = runner / WAMR_AOT_MS[program];
      add(
        "programCosts",
        `${TITLES[program]}: runner / WAMR AOT (the issue's figure, 64 MiB where there is an input: the full run only)`,
        "<= 1.3",
        q,
        q <= 1.3,
        `${fr(q)} (${f1(runner, 0)} ms against ${WAMR_AOT_MS[program]} ms)`,
        Number.isFinite(native) ? `native: ${f1(native, 0)} ms` : "",
        PROGRAM_COST_BOUNDS,
      );
    }
  }
}
