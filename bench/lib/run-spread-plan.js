// Group 15 of `npm run bench`: the spread of a program's runs, 20 in a row
// with a pause before each (bench/lib/run-spread.js): no run should take 2x
// the median of its kind. Each row runs bench/scenarios/run-spread.js once
// per variant and repetition, the variants alternating, on the machine's
// Node and on Node 24 (otherNode). A block of its own (buildPlan appends
// runSpreadScenarios).

const GROUP = "15. The spread of a program's runs: 20 in a row, a pause before each";

const TITLES = {
  "long-line": "a search of one long line (bench/guest/long-line.c, 2 threads; memory grown by realloc)",
  "zstd-T2": "zstd -T2 -3 (stdin to stdout)",
};
const MIB = { "long-line": [400, 16], "zstd-T2": [64, 4] };

const METRICS = [
  ["medianMs", "wall time, median of the runs", "ms"],
  ["maxMs", "wall time, slowest run", "ms"],
  ["maxOverMedian", "slowest / median (target: under 2)", "x", 2],
  ["sysMedianMs", "system time, median of the runs", "ms"],
  ["sysMaxMs", "system time, most of any run", "ms"],
].map(([key, label, unit, digits = 0]) => ({ key, stat: "value", label, unit, better: "lower", digits }));

export function runSpreadScenarios(Q) {
  return Object.entries(TITLES).map(([program, title]) => {
    const mib = Q(...MIB[program]);
    return {
      id: `spread-${program}`,
      group: GROUP,
      title: `${title}, ${mib} MiB, ${Q(20, 3)} runs 3 s apart`,
      kind: "pool",
      script: "run-spread.js",
      reps: 1,
      params: { program, runs: Q(20, 3), pauseMs: 3000, mib },
      variants: [
        { id: "auto", label: "wasi-thread-pool run", params: { variant: "auto" } },
        {
          id: "huge",
          label: "WASI_THREAD_POOL_HUGE_PAGES=1 (huge pages however the host reclaims)",
          params: { variant: "huge" },
        },
      ],
      baseline: "huge",
      metrics: METRICS,
      timeoutMs: 600000,
      otherNode: true, // and on Node 24: bench/lib/other-node.js
    };
  });
}

// The target: no run 2x the median of its kind, on each Node.
export function runSpreadTargets(add, { figure, fr, f1 }) {
  for (const [program, title] of Object.entries(TITLES)) {
    for (const id of [`spread-${program}`, `spread-${program}@node24`]) {
      const q = figure(id, "auto", "maxOverMedian:value");
      if (!Number.isFinite(q)) continue;
      const node = id.endsWith("@node24") ? "Node 24" : "the machine's Node";
      add(
        "runSpread",
        `${title}, ${node}: slowest run / median`,
        "< 2",
        q,
        q < 2,
        `${fr(q)} (${f1(figure(id, "auto", "maxMs:value"), 0)} ms against ${f1(figure(id, "auto", "medianMs:value"), 0)} ms)`,
        `with huge pages however the host reclaims (=1): ${fr(figure(id, "huge", "maxOverMedian:value"))}`,
        "",
      );
    }
  }
}
