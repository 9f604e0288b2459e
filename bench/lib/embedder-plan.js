// Group 14 of `npm run bench`: a long-running embedder, one process running
// program after program through runWasiThreadsProgram (docs/runner.md,
// "Running many programs in one process"): its resident set, its JS heap and
// its MessagePorts per run, on each pool. bench/scenarios/embedder.js
// measures; a block of its own (buildPlan appends embedderScenarios).

const GROUP = "14. A long-running embedder: memory and ports per run";

export function embedderScenarios(Q) {
  return [
    {
      id: "embedder",
      group: GROUP,
      title: Q(
        "150 runs in one process, one after another, of a program that writes 48 MiB of its memory, then 150 of one whose _start returns with two threads running",
        "30 runs of each",
      ),
      kind: "pool",
      script: "embedder.js",
      reps: Q(2, 1),
      params: { runs: Q(150, 30) },
      metrics: [
        { key: "touchRssPeakMiB", stat: "value", label: "48 MiB written: peak RSS after a run", unit: "MiB", better: "lower" },
        { key: "touchRssEndMiB", stat: "value", label: "48 MiB written: RSS after the last run", unit: "MiB", better: "lower" },
        { key: "touchMsPerRun", stat: "value", label: "48 MiB written: wall time per run", unit: "ms", better: "lower" },
        {
          key: "heapKiBPerRun",
          stat: "value",
          label: "threads left running: JS heap per run",
          unit: "KiB",
          better: "lower",
          digits: 2,
        },
        {
          key: "portsPer100Runs",
          stat: "value",
          label: "threads left running: MessagePorts kept per 100 runs",
          unit: "ports",
          better: "lower",
          digits: 1,
        },
        { key: "returnsMsPerRun", stat: "value", label: "threads left running: wall time per run", unit: "ms", better: "lower" },
      ],
      timeoutMs: 600000,
    },
  ];
}
