// Group 13 of `npm run bench`: the fixed costs of a run of a real program
// (issues 29 and 38), a block of its own (buildPlan appends
// programCostScenarios, evaluateTargets appends programCostTargets). Each
// row runs bench/scenarios/program-costs.js once per variant and repetition:
// `node -e 0` (the floor), the runner (with its breakdown), the native build;
// the variants alternate. The spread rows run each program `runs` times in a
// row (the runner's, then native's) and give the slowest against their
// median. Every row runs on the machine's Node and, as `ID@node24`, on
// Node 24 (bench/lib/other-node.js): the targets are Node 24's, with the
// machine's Node's figure beside.

import { nativeToolMissing } from "./program-costs.js";
import { OTHER_MAJOR } from "./other-node.js";

const GROUP = "13. A real program's run: the fixed costs (breakdown), against native and node -e 0";
const SPREAD_GROUP = "13b. A real program's runs in a row: the slowest against their median";

const TITLES = {
  "zstd-d": "zstd -d (stdin to stdout)",
  "zstd-T2": "zstd -T2 -3 (stdin to stdout)",
  "pigz-d": "pigz -p 2 -d (stdin to stdout)",
  "pigz-c": "pigz -p 2 (stdin to stdout)",
  "pthread-pool": "a pthreads pool, 8 threads, 20,000 tasks (bench/guest/pthread-pool.c)",
  hello: "hello world (a wasi-threads command that writes one line)",
  "zstd-V": "zstd -V (read, pass and compile zstd.wasm, print its version, exit)",
};

// The rows: [row, program, the input's MiB as [full, quick] where it has one].
// The 512 MiB inputs are made once, like the 64 MiB one; the spread rows are
// the rows up to 64 MiB.
const ROWS = [
  ["hello", "hello"],
  ["zstd-V", "zstd-V"],
  ["zstd-d", "zstd-d", [64, 4]],
  ["zstd-T2", "zstd-T2", [64, 4]],
  ["pigz-d", "pigz-d", [64, 4]],
  ["pigz-c", "pigz-c", [64, 4]],
  ["pthread-pool", "pthread-pool"],
  ["zstd-T2-512", "zstd-T2", [512, 8]],
  ["zstd-d-512", "zstd-d", [512, 8]],
];

// The programs whose module the runner's module cache keeps (64 KiB and more:
// lib/program/module-cache.js); the others' runs are the same with it off.
const CACHED = new Set(["zstd-V", "zstd-d", "zstd-T2", "pigz-d", "pigz-c"]);

const variant = (id, label, program) => ({ id, label, params: { variant: id, program } });

const metric = ([key, label, better = "lower", unit = "ms"]) => ({ key, stat: "value", label, unit, better });

const METRICS = [
  ["wallMs", "wall time (median of the runs)"],
  ["bootMs", "  Node's boot (process start -> the runner's first line)"],
  ["loadMs", "  the runner's modules, checks and Liftoff pass -> compile"],
  ["compileMs", "  the guest's compile"],
  ["instanceMs", "  the main thread's instance"],
  ["runMs", "  the program's run (-> its end)"],
  ["exitMs", "  the end -> the process gone"],
  ["workers", "  pool workers started", null, ""],
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
].map(metric);

const SPREAD_METRICS = [
  ["wallMs", "wall time (median of the runs)"],
  ["slowestMs", "  the slowest run"],
  ["slowestRatio", "  the slowest / the median", "lower", "x"],
].map(metric);

// A variant that cannot run is left out of the row (a skipped variant would
// skip the whole row); the title says why.
export function programCostScenarios(Q) {
  const rows = ROWS.map(([row, program, mib]) => {
    const missing = program === "hello" ? null : nativeToolMissing(program);
    const title = `${TITLES[program]}${mib ? `, ${Q(...mib)} MiB of tar` : ""}${missing ? ` (native: ${missing})` : ""}`;
    return {
      row,
      program,
      mib: mib ? Q(...mib) : 0,
      spread: !mib || mib[0] <= 64,
      title,
      native: !missing && program !== "hello",
    };
  });
  const costs = rows.map(({ row, program, mib, title, native }) => ({
    id: `costs-${row}`,
    group: GROUP,
    title,
    kind: "pool",
    script: "program-costs.js",
    reps: mib > 64 ? Q(3, 1) : Q(5, 1),
    params: { program, runs: 1, mib },
    variants: [
      variant("node", "node -e 0", program),
      variant("runner", "wasi-thread-pool run (module cache warm)", program),
      ...(CACHED.has(program) ? [variant("runner-cold", "wasi-thread-pool run -C cache=n", program)] : []),
      ...(native ? [variant("native", "native (Debian's build)", program)] : []),
    ],
    baseline: "node",
    metrics: METRICS,
    timeoutMs: 300000,
    otherNode: true, // and on Node 24: bench/lib/other-node.js
  }));
  const spread = rows
    .filter(({ spread }) => spread)
    .map(({ row, program, mib, title, native }) => ({
      id: `costs-spread-${row}`,
      group: SPREAD_GROUP,
      title: `${title}: ${Q(20, 3)} runs in a row`,
      kind: "pool",
      script: "program-costs.js",
      reps: 1,
      params: { program, runs: Q(20, 3), mib, breakdown: false },
      variants: [
        variant("runner", "wasi-thread-pool run (module cache warm)", program),
        ...(native ? [variant("native", "native (Debian's build)", program)] : []),
      ],
      baseline: "runner",
      metrics: SPREAD_METRICS,
      timeoutMs: 300000,
      otherNode: true,
    }));
  return [...costs, ...spread];
}

// The issue's targets, on Node 24 (the `@node24` rows), the machine's Node's
// figure beside: [row, against ("node" | "native"), the most allowed, "x"
// (runner / against) or "ms" (runner - against)]. The runner's figure is
// the warm module cache's (a second run).
const TARGETS = [
  ["hello", "node", 1.3, "x"],
  ["zstd-V", "node", 20, "ms"],
  ["zstd-d", "native", 3, "x"],
  ["zstd-T2", "native", 2, "x"],
  ["pigz-d", "native", 1.8, "x"],
  ["pigz-c", "native", 1.3, "x"],
  ["zstd-T2-512", "native", 1.2, "x"],
  ["zstd-d-512", "native", 1.2, "x"],
];
const SPREAD_MOST = 2;

export const PROGRAM_COST_BOUNDS =
  "Node's boot (node -e 0) and a worker's boot per thread are the floor; the rest is the breakdown's rows (the tiers: Liftoff time before TurboFan code, the background compile).";

const SPREAD_BOUNDS =
  "A run is a whole process on a shared machine: native's own slowest/median over the same number of runs, beside, is the machine's share; the breakdown rows say which part of the runner's run grows.";

const AGAINST = { node: "node -e 0", native: "native" };

export function programCostTargets(add, { figure, fr, f1 }) {
  const other = `@node${OTHER_MAJOR}`;
  const here = `Node ${process.versions.node.split(".")[0]}`;
  for (const [row, against, most, unit] of TARGETS) {
    const id = `costs-${row}`;
    const compare = (at) => {
      const runner = figure(at, "runner", "wallMs:value");
      const base = figure(at, against, "wallMs:value");
      const value = unit === "x" ? runner / base : runner - base;
      const text = `${unit === "x" ? fr(value) : `${value >= 0 ? "+" : ""}${f1(value, 0)} ms`} (${f1(runner, 0)} ms against ${f1(base, 0)} ms)`;
      return { runner, value, text };
    };
    const [theirs, ours] = [compare(id + other), compare(id)];
    if (!Number.isFinite(theirs.runner) && !Number.isFinite(ours.runner)) continue;
    const name = `${nameOf(row)}: runner ${unit === "x" ? "/" : "-"} ${AGAINST[against]}, Node ${OTHER_MAJOR}`;
    add(
      "programCosts",
      name,
      unit === "x" ? `<= ${most}` : `<= +${most} ms`,
      theirs.value,
      theirs.value <= most,
      theirs.text,
      `${here}: ${ours.text}`,
      PROGRAM_COST_BOUNDS,
    );
  }
  for (const [row] of ROWS) {
    const id = `costs-spread-${row}`;
    const [theirs, ours] = [id + other, id].map((at) => figure(at, "runner", "slowestRatio:value"));
    if (!Number.isFinite(theirs) && !Number.isFinite(ours)) continue;
    const native = figure(id + other, "native", "slowestRatio:value");
    add(
      "programCosts",
      `${nameOf(row)}: the runner's slowest of its runs in a row / their median, Node ${OTHER_MAJOR}`,
      `<= ${SPREAD_MOST}`,
      theirs,
      theirs <= SPREAD_MOST,
      `${fr(theirs)}`,
      `${here}: ${fr(ours)}${Number.isFinite(native) ? `; native's own: ${fr(native)}` : ""}`,
      SPREAD_BOUNDS,
    );
  }
}

// A row's program and full input size, as the targets name them.
function nameOf(row) {
  const [, program, mib] = ROWS.find(([r]) => r === row);
  return `${TITLES[program]}${mib ? `, ${mib[0]} MiB` : ""}`;
}
