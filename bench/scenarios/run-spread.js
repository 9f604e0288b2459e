// Scenario: the spread of a program's runs (group 15): `runs` processes of
// the CLI, a pause before each, their median, slowest and system times
// (bench/lib/run-spread.js).
//
// params: program ("long-line" | "zstd-T2"), variant ("auto" | "huge"),
// runs, pauseMs, mib (the input's size).

import { emit, params } from "../lib/child.js";
import { programOf, runSpread } from "../lib/run-spread.js";

const { program, variant, runs = 20, pauseMs = 3000, mib = 400 } = params();
const { skip } = programOf(program, mib);
if (skip) {
  process.stdout.write(`BENCH_SKIP ${skip}\n`);
  process.exit(0);
}
if (process.platform !== "linux") {
  process.stdout.write("BENCH_SKIP Linux only (the children's times come from /proc)\n");
  process.exit(0);
}
const figures = await runSpread(program, variant, { runs, pauseMs, mib });
const metrics = {};
for (const [key, value] of Object.entries(figures)) metrics[key] = { value };
emit({ metrics, info: { program, variant, runs, pauseMs, mib } });
