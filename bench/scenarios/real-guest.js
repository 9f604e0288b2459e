// Scenario: a real-toolchain guest through the program runner
// (runWasiThreadsProgram, what `wasi-thread-pool run` does): waves of
// lanes-1 threads, each a few microseconds of work, joined, repeated
// (bench/guest/pthread-waves.c or zig-waves.zig, built by
// bench/lib/real-guests.js). The guest stamps every thread with the WASI
// monotonic clock and prints the quantiles (see the head of
// pthread-waves.c); this child adds the process's wall and CPU time.
//
// Three programs run in this child, one after the other, each on its own
// pool and workers: one wave to warm the process (the runner's modules
// loaded and compiled: not counted), one wave (the fixed cost of a program:
// its main worker, the pool's workers started, instances made), then the
// full run. The CPU difference of the last two over the extra threads is the
// marginal host + guest CPU per thread.
//
// params: impl, guest ("pthread" | "zig"), lanes, waves, rounds, waits
// ("volatile": the Zig guest waits with its own blocking wait instead of
// std's, whose waits spin in ReleaseFast; see zig-waves.zig).

import { Writable } from "node:stream";
import { readFileSync } from "node:fs";
import { emit, hrnow, params } from "../lib/child.js";
import { buildRealGuest } from "../lib/real-guests.js";

const { impl, guest = "pthread", lanes = 8, waves = 2000, rounds = 16, waits } = params();
const built = buildRealGuest(guest);
if (built.skip) {
  process.stdout.write(`BENCH_SKIP ${guest} guest: ${built.skip}\n`);
  process.exit(0);
}
const { runWasiThreadsProgram } = await import("../../lib/program/run.js");
const bytes = readFileSync(built.path);

async function runOnce(count) {
  let out = "";
  let err = "";
  const sink = (append) => new Writable({ write: (chunk, _enc, cb) => (append(String(chunk)), cb()) });
  const cpu0 = process.cpuUsage();
  const t0 = hrnow();
  const { exitCode } = await runWasiThreadsProgram(bytes, {
    args: [`${guest}-waves`, String(lanes), String(count), String(rounds), ...(waits ? [waits] : [])],
    implementation: impl,
    stdin: null,
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
  });
  const wallMs = Number(hrnow() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  const line = /^STAMPS (.*)$/m.exec(out);
  if (exitCode !== 0 || !line) throw new Error(`${guest} guest: exit ${exitCode}: ${err.trim().split("\n").slice(-2).join(" ")}`);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, stamps: JSON.parse(line[1]) };
}

await runOnce(1);
const fixed = await runOnce(1);
const full = await runOnce(waves);
const extraThreads = full.stamps.threads - fixed.stamps.threads;
const s = full.stamps;
const q = (name, i) => ({ value: s[name]?.[i] ?? NaN });
emit({
  metrics: {
    wallMs: { value: full.wallMs },
    cpuMs: { value: full.cpuMs },
    cpuUsPerThread: { value: ((full.cpuMs - fixed.cpuMs) * 1000) / extraThreads },
    wallUsPerThread: { value: ((full.wallMs - fixed.wallMs) * 1000) / extraThreads },
    createUs: q("createUs", 0),
    startUs: q("startUs", 0),
    startMeanUs: q("startUs", 3),
    bodyUs: q("bodyUs", 0),
    exitJoinUs: q("exitJoinUs", 0),
    exitJoinMeanUs: q("exitJoinUs", 3),
    waveUs: q("waveUs", 0),
    waveMeanUs: q("waveUs", 3),
  },
  info: { guest, waits, fixed, stamps: s, grewPages: s.pagesAfter - s.pagesBefore },
});
process.exit(0);
