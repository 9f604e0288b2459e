// Scenario 4: the thread-wave guest through the package's own host
// (createWasiThreadSpawn, lib/host/host.js), driven by test/support/wave-harness.js
// as the end-to-end tests drive it: lanes 8, 2000 waves, 16 rounds = 14,000
// threads in one waves() call on this process's main thread. The pool grows
// its workers during the first call (as the SDK's own test runs it); a second
// call on the same harness shows the warm pool.
//
// Figures per call: wall time (process.hrtime around the synchronous call)
// and process.cpuUsage() (every thread of the process), and the CPU time of
// this (the guest's main) thread against the pool workers' threads, from
// /proc/self/task/*/schedstat (ns on CPU).
//
// params: impl ("native" | "js"; "ref" for the serial reference, lanes 1),
// freshInstances (the SDK's instance policy), invokes (calls on one host),
// burners (N CPU-burning processes started before the host and killed at the
// end, bench/lib/burners.js: the machine loaded by others).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { emit, hrnow, params } from "../lib/child.js";

const { impl, lanes = 8, waves = 2000, rounds = 16, invokes = 2, freshInstances = false, burners = 0 } = params();
const harnessUrl = new URL("../../test/support/wave-harness.js", import.meta.url);
if (!existsSync(harnessUrl)) {
  process.stdout.write("BENCH_SKIP test/support/wave-harness.js not present yet\n");
  process.exit(0);
}
const { compileWaveGuest, createWaveHarness, settleActive, EXPECTED_14K_OUTPUT_HEX } = await import(harnessUrl.href);

const module = await compileWaveGuest();
const { startBurners } = await import("../lib/burners.js");
const load = burners > 0 ? await startBurners(burners) : null;
// ns on CPU of this thread and of all the others (schedstat), the others'
// system time (stat, clock ticks) and their voluntary context switches
// (status: how often they blocked). Linux; null elsewhere.
const TICK_MS = 10; // USER_HZ 100
function taskCpu() {
  try {
    let main = 0;
    let others = 0;
    let othersSysTicks = 0;
    let othersVoluntary = 0;
    let mainVoluntary = 0;
    for (const task of readdirSync("/proc/self/task")) {
      let sched, stat, status;
      try {
        sched = readFileSync(`/proc/self/task/${task}/schedstat`, "utf8");
        stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
        status = readFileSync(`/proc/self/task/${task}/status`, "utf8");
      } catch {
        continue; // a thread that just ended
      }
      const ns = Number(sched.split(" ")[0]);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const voluntary = Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      if (Number(task) === process.pid) {
        main += ns;
        mainVoluntary += voluntary;
      } else {
        others += ns;
        othersSysTicks += Number(fields[12]); // stime (field 15)
        othersVoluntary += voluntary;
      }
    }
    return { main, others, othersSysTicks, othersVoluntary, mainVoluntary };
  } catch {
    return null;
  }
}

const harness = await createWaveHarness({
  module,
  lanes,
  waves,
  rounds,
  implementation: impl === "ref" ? undefined : impl,
  hostOptions: freshInstances ? { freshInstances: true } : {},
});
const calls = [];
for (let i = 0; i < invokes; i++) {
  const tasks0 = taskCpu();
  const cpu0 = process.cpuUsage();
  const t0 = hrnow();
  const run = harness.invoke();
  const wallMs = Number(hrnow() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  const tasks1 = taskCpu();
  const split =
    tasks0 && tasks1
      ? {
          mainCpuMs: (tasks1.main - tasks0.main) / 1e6,
          otherCpuMs: (tasks1.others - tasks0.others) / 1e6,
          otherSysMs: (tasks1.othersSysTicks - tasks0.othersSysTicks) * TICK_MS,
          otherBlocks: tasks1.othersVoluntary - tasks0.othersVoluntary,
          mainBlocks: tasks1.mainVoluntary - tasks0.mainVoluntary,
        }
      : {};
  calls.push({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, ...split, status: run.status, output: run.output });
  if (run.status !== 0) break;
  // Let the last joined threads' workers mark their slots idle before the
  // next call, as a caller between two requests would.
  await settleActive(harness.host);
}
const loadAverage = os.loadavg().map((v) => Math.round(v * 100) / 100);
load?.stop();
const report = harness.host.spawnReport();
const workers = harness.host.distinctOsThreadCount();
await harness.destroy();

const expected = waves === 2000 && rounds === 16 && lanes > 1 ? EXPECTED_14K_OUTPUT_HEX : null;
const metrics = {
  wallMs: { value: calls[0].wallMs },
  cpuMs: { value: calls[0].cpuMs },
  loadAverage1: { value: loadAverage[0] },
};
if (Number.isFinite(calls[0].mainCpuMs)) metrics.mainCpuMs = { value: calls[0].mainCpuMs };
if (calls[1]) {
  metrics.warmWallMs = { value: calls[1].wallMs };
  metrics.warmCpuMs = { value: calls[1].cpuMs };
  if (Number.isFinite(calls[1].mainCpuMs)) {
    metrics.warmMainCpuMs = { value: calls[1].mainCpuMs };
    metrics.warmWorkerCpuMs = { value: calls[1].otherCpuMs };
    metrics.warmWorkerSysMs = { value: calls[1].otherSysMs };
    const threads = waves * (lanes - 1);
    if (threads > 0) {
      metrics.warmWorkerBlocksPerThread = { value: calls[1].otherBlocks / threads };
      metrics.warmMainBlocksPerThread = { value: calls[1].mainBlocks / threads };
    }
  }
}
emit({
  metrics,
  info: {
    calls,
    burners,
    loadAverage,
    outputOk: expected ? calls.every((c) => c.output === expected) : null,
    workers,
    availableParallelism: os.availableParallelism?.() ?? null,
    spawned: report.spawned,
    waited: report.waited,
    declined: report.declined,
  },
});
process.exit(calls.every((c) => c.status === 0) ? 0 : 3);
