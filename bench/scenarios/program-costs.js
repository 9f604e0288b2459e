// Scenario: the fixed costs of a run of a real program (group 13; issues 29 and 38):
// whole processes of `wasi-thread-pool run`, Debian's native build and
// `node -e 0`, measured from this child (bench/lib/program-costs.js).
//
// params: program (a key of PROGRAMS), variant ("node" | "runner" |
// "runner-cold" | "native"), runs (processes per wall figure), mib (the
// input's size), breakdown (false: the runner's wall runs only).

import { emit, params } from "../lib/child.js";
import { programCosts, programCostsMissing } from "../lib/program-costs.js";

const { program, variant, runs = 3, mib = 64, breakdown = true } = params();
const missing = programCostsMissing(program, variant);
if (missing) {
  process.stdout.write(`BENCH_SKIP ${missing}\n`);
  process.exit(0);
}
const figures = await programCosts(program, variant, { runs, mib, breakdown });
const metrics = {};
for (const [key, value] of Object.entries(figures)) if (Number.isFinite(value)) metrics[key] = { value };
emit({ metrics, info: { program, variant, mib } });
