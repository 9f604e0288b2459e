// Scenario: thread start under load (bench/lib/thread-start.js, group 11b).
// params: variant ("spare" | "no-spare" | "native"), burners, runs.

import { emit, params } from "../lib/child.js";
import { measureThreadStart } from "../lib/thread-start.js";

const { variant, burners = 0, runs = 5 } = params();
const r = await measureThreadStart(variant, { burners, runs });
if (r.skipped) {
  process.stdout.write(`BENCH_SKIP ${r.skipped}\n`);
  process.exit(0);
}
emit({
  metrics: {
    firstMs: { value: r.firstMs },
    medianMs: { value: r.medianMs },
    worstMs: { value: r.worstMs },
    lateRuns: { value: r.lateRuns },
  },
  info: { burners, runs },
});
