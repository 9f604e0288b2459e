// The runner's rows (issue 19) against their targets, outside `npm run bench`
// (where they are group 11, bench/lib/runner-plan.js); the same measurements
// (bench/lib/runner-rows.js):
//
//   node bench/runner-threads.js [--runs N] [--alive N]
//
// Each figure is a median of --runs processes (default 5). Needs
// guest/out/spawn.wasm (scripts/build-c-guests.sh); peak RSS needs
// /usr/bin/time. The machine's load is not controlled: quote it.

import { loadavg } from "node:os";
import { alive, burst, runnerRowsMissing, starts, startup } from "./lib/runner-rows.js";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const runs = option("--runs", 5);
const n = option("--alive", 16);

const missing = runnerRowsMissing();
if (missing) {
  console.log(`runner-threads: ${missing}; skipped`);
  process.exit(0);
}
const hasNative = runnerRowsMissing({ native: true }) === null;

const rows = [];
const row = (name, runner, against, target, native = null) =>
  rows.push([name, runner, against, (runner / against).toFixed(2), target, native]);

const boot = { runner: await startup("runner", { runs }), node: await startup("node", { runs }) };
row("start-up (ms), vs node -e 0", boot.runner.wallMs, boot.node.wallMs, "<= 1.5");

const burstOf = (variant) => burst(variant, { threads: 10000, runs });
const [fixed, byDefault] = [burstOf("fixed"), burstOf("default")];
const nativeBurst = hasNative ? burstOf("native") : null;
row("burst 10,000: wall (ms), vs best fixed pool", byDefault.wallMs, fixed.wallMs, "<= 2", nativeBurst?.wallMs);
row("burst 10,000: peak RSS (MiB), vs best fixed pool", byDefault.rssMiB, fixed.rssMiB, "<= 2", nativeBurst?.rssMiB);

const perThread = { runner: alive("runner", { n, runs }), bare: alive("bare", { n, runs }) };
const nativeAlive = hasNative ? alive("native", { n, runs }) : null;
row(
  `per thread alive (${n}): wall (ms), vs bare workers`,
  perThread.runner.perThreadMs,
  perThread.bare.perThreadMs,
  "<= 1.25",
  nativeAlive?.perThreadMs,
);
row(
  `per thread alive (${n}): RSS (MiB), vs bare workers`,
  perThread.runner.perThreadRssMiB,
  perThread.bare.perThreadRssMiB,
  "<= 1.25",
  nativeAlive?.perThreadRssMiB,
);

const startOf = (variant) => starts(variant, { n: 8, runs: Math.max(1, Math.ceil(runs / 2)) });
const nativeStarts = hasNative ? startOf("native") : null;
row(
  "spawn -> start, new worker (ms), vs a bare worker's start",
  startOf("runner").startMs,
  startOf("bare").startMs,
  "<= 1.25",
  nativeStarts?.startMs,
);

const fmt = (v) => (typeof v === "number" ? v.toFixed(2) : (v ?? "-"));
console.log(
  `runs ${runs}, load average ${loadavg()
    .map((v) => v.toFixed(2))
    .join(" ")}`,
);
console.log("| row | runner | against | ratio | target | native (gcc -pthread) |\n| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.map(fmt).join(" | ")} |`);
