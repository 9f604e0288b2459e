// Scenario: the runner's start-up, threads and workers (group 11; issue 19),
// whole processes measured from this child (bench/lib/runner-rows.js).
//
// params: row ("startup" | "burst" | "alive" | "starts" | "together"), variant (the
// row's: see bench/lib/runner-plan.js), runs (processes per figure), threads
// (burst), n (alive, starts, together).

import { emit, params } from "../lib/child.js";
import { alive, burst, runnerRowsMissing, starts, startup, together } from "../lib/runner-rows.js";

const { row, variant, runs = 3, threads, n } = params();
const missing = runnerRowsMissing({ native: variant === "native" });
if (missing) {
  process.stdout.write(`BENCH_SKIP ${missing}\n`);
  process.exit(0);
}
const measured = {
  startup: () => startup(variant, { runs }),
  burst: () => burst(variant, { threads, runs }),
  alive: () => alive(variant, { n, runs }),
  starts: () => starts(variant, { n, runs }),
  together: () => together(variant, { n, runs }),
}[row];
if (!measured) throw new RangeError(`runner scenario: unknown row ${JSON.stringify(row)}`);
const figures = await measured();
const metrics = {};
const info = {};
for (const [key, value] of Object.entries(figures)) {
  if (typeof value === "number" && key !== "fastestPool" && key !== "leanestPool") metrics[key] = { value };
  else info[key] = value;
}
emit({ metrics, info });
