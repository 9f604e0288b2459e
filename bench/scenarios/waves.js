// Scenario 4: the thread-wave guest through the package's own host
// (createWasiThreadSpawn, lib/host.js), driven by test/support/wave-harness.js
// as the end-to-end tests drive it: lanes 8, 2000 waves, 16 rounds = 14,000
// threads in one waves() call on this process's main thread. The pool grows
// its workers during the first call (as the SDK's own test runs it); a second
// call on the same harness shows the warm pool.
//
// Figures per call: wall time (process.hrtime around the synchronous call)
// and process.cpuUsage() (every thread of the process).

import { existsSync } from "node:fs";
import { emit, hrnow, params } from "../lib/child.js";

const { impl, lanes = 8, waves = 2000, rounds = 16, invokes = 2, freshInstances = false } = params();
const harnessUrl = new URL("../../test/support/wave-harness.js", import.meta.url);
if (!existsSync(harnessUrl)) {
  process.stdout.write("BENCH_SKIP test/support/wave-harness.js not present yet\n");
  process.exit(0);
}
const { compileWaveGuest, createWaveHarness, settleActive, EXPECTED_14K_OUTPUT_HEX } = await import(harnessUrl.href);

const module = await compileWaveGuest();
const harness = await createWaveHarness({
  module, lanes, waves, rounds, implementation: impl,
  hostOptions: freshInstances ? { freshInstances: true } : {},
});
const calls = [];
for (let i = 0; i < invokes; i++) {
  const cpu0 = process.cpuUsage();
  const t0 = hrnow();
  const run = harness.invoke();
  const wallMs = Number(hrnow() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  calls.push({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, status: run.status, output: run.output });
  if (run.status !== 0) break;
  // Let the last joined threads' workers mark their slots idle before the
  // next call, as a caller between two requests would.
  await settleActive(harness.host);
}
const report = harness.host.spawnReport();
const workers = harness.host.distinctOsThreadCount();
await harness.destroy();

const expected = waves === 2000 && rounds === 16 && lanes > 1 ? EXPECTED_14K_OUTPUT_HEX : null;
const metrics = {
  wallMs: { value: calls[0].wallMs },
  cpuMs: { value: calls[0].cpuMs },
};
if (calls[1]) {
  metrics.warmWallMs = { value: calls[1].wallMs };
  metrics.warmCpuMs = { value: calls[1].cpuMs };
}
emit({
  metrics,
  info: {
    calls,
    outputOk: expected ? calls.every((c) => c.output === expected) : null,
    workers,
    spawned: report.spawned,
    waited: report.waited,
    declined: report.declined,
  },
});
process.exit(calls.every((c) => c.status === 0) ? 0 : 3);
