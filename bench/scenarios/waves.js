// Scenario 4: the thread-wave guest through the package's own host
// (createWasiThreadSpawn, lib/host.js) as test/support/wave-harness.js drives
// it: 2000 waves of 7 threads (lanes 8, 16 rounds) in one call. The figure is
// the call's wall time and process.cpuUsage() (every thread of the process).
// Until the harness lands this prints BENCH_SKIP.

import { existsSync } from "node:fs";
import { emit, hrnow, params } from "../lib/child.js";

const { impl, lanes = 8, waves = 2000, rounds = 16 } = params();
const harnessUrl = new URL("../../test/support/wave-harness.js", import.meta.url);
if (!existsSync(harnessUrl)) {
  process.stdout.write("BENCH_SKIP test/support/wave-harness.js not present yet\n");
  process.exit(0);
}
const harness = await import(harnessUrl.href);
process.stdout.write(`BENCH_SKIP wave-harness.js exports ${Object.keys(harness).join(", ")}: scenario not wired yet\n`);
process.exit(0);
