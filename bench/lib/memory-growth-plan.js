// Group 12 of `npm run bench`: what the memory growth remedy costs (issue 26,
// docs/runtime.md "Memory growth across threads"), the module as it is and
// the memory grown on demand ("grow", WASI_THREAD_POOL_RESERVE_MEMORY=0)
// against the memory pass and the memory reserved at its maximum
// ("reserve", the default). bench/scenarios/memory-growth.js measures; a
// block of its own (buildPlan appends memoryGrowthScenarios).

const GROUP = "12. Memory growth across threads: the remedy's cost";

export function memoryGrowthScenarios(Q) {
  return [
    {
      id: "memory-growth",
      group: GROUP,
      title:
        "compileWasiThreadGuest of pigz, zstd and a generated 6.8 MiB module; ns per memory.size / memory.grow(0); pigz -p 4 on 4 MiB: peak RSS and virtual size",
      kind: "pool",
      script: "memory-growth.js",
      reps: Q(3, 1),
      params: { calls: Q(1_000_000, 100_000), mib: Q(4, 1) },
      variants: [
        { id: "grow", label: "grown on demand (the hazard)", params: { variant: "grow" } },
        { id: "reserve", label: "memory pass + reserved memory", params: { variant: "reserve" } },
      ],
      baseline: "grow",
      metrics: [
        { key: "pigzCompileMs", stat: "value", label: "compile pigz.wasm (292 KiB)", unit: "ms", better: "lower" },
        { key: "zstdCompileMs", stat: "value", label: "compile zstd.wasm (720 KiB)", unit: "ms", better: "lower" },
        { key: "bigCompileMs", stat: "value", label: "compile a 6.8 MiB module", unit: "ms", better: "lower" },
        { key: "sizeNs", stat: "value", label: "memory.size", unit: "ns", better: "lower", digits: 1 },
        { key: "growNs", stat: "value", label: "memory.grow(0)", unit: "ns", better: "lower", digits: 0 },
        { key: "rssMiB", stat: "value", label: "pigz -p 4: peak RSS", unit: "MiB", better: "lower" },
        { key: "vszMiB", stat: "value", label: "pigz -p 4: peak virtual size", unit: "MiB", better: "lower" },
      ],
      timeoutMs: 300000,
    },
  ];
}
