#!/usr/bin/env node
// What-if runs for the C core: builds variants of the addon from the current
// src/ with different compile-time tunables (cc, binding.gyp's flags, into
// .tmp/bench/exp/) and runs chosen scenarios on each variant and on the JS
// pool, interleaved (variant A, B, ..., js, A, B, ...), each repetition in a
// fresh process. Nothing in src/ or lib/ is touched: lib/native/binding.js loads the
// variant named by WASI_THREAD_POOL_ADDON.
//
//   node bench/experiment.js [--reps=N] [--only=handoff-hot,...] [--variants=a,b]
//
// Writes bench/results/experiments-<scenarios>.json and prints a table of medians.

import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import os from "node:os";
import { summarize } from "./lib/stats.js";
import { machineInfo } from "./lib/machine.js";
import { ccAddon } from "./lib/cc-addon.js";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(benchDir, "..");
const expDir = join(repoDir, ".tmp", "bench", "exp");
mkdirSync(expDir, { recursive: true });

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : def;
};
const reps = Number(opt("reps", 3));

// -D tunables of src/core/wtp_park.h, or a patch applied to a scratch copy of
// src/ (never to src/ itself): { defines, patch: [[file, from, to], ...] }.
const VARIANTS = {
  current: [],
  // No spinning at all (no spinner tickets).
  spin0: ["-DWTP_PARK_MAX_SPINNERS=0"],
  // The adaptive policy's constants (src/core/wtp_park.h), one at a time.
  long30us: ["-DWTP_PARK_LONG_SPIN_NS=30000"],
  long120us: ["-DWTP_PARK_LONG_SPIN_NS=120000"],
  catch1: ["-DWTP_PARK_SCORE_CATCH=1"],
  "no-machine-signal": ["-DWTP_PARK_CONTENDED_PERMILLE=1001"],
  contended100: ["-DWTP_PARK_CONTENDED_PERMILLE=100"],
  slice200: ["-DWTP_PARK_SLICE_MS=200"],
  slice1000: ["-DWTP_PARK_SLICE_MS=1000"],
  // The wait tokens without their backstop's call into JavaScript (what the
  // slice end costs when the stopping test stays in C).
  "c-only-interrupted": {
    defines: [],
    patch: [
      [
        "node/binding.c",
        "static int env_backstop(void* env) { return env_stopping((napi_env)env); }",
        "static int env_backstop(void* env) { (void)env; return 0; /* experiment: no JS call */ }",
      ],
    ],
  },
  // The rule before the parked threads counted as CPU demand (commit
  // 3b45018; bench/analysis.md), applied to the source of main before the
  // adaptive policy.
  "any-idle-spin": {
    gitRef: "fe08000",
    defines: [],
    patch: [
      [
        "core/wtp_park.c",
        `  if (busy + (parked > 0 ? parked : 0) < n - 1) return WTP_PARK_IDLE_SPIN_LIMIT;`,
        `  (void)parked;
  if (busy < n - 1) return WTP_PARK_IDLE_SPIN_LIMIT;`,
      ],
    ],
  },
  // Counts the long spins' outcomes of the rule before the adaptive policy
  // and prints them at exit (stderr).
  "spin-stats": {
    gitRef: "fe08000",
    defines: [],
    patch: [
      [
        "core/wtp_park.c",
        `  atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
  return changed;`,
        `  atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
  if (limit > WTP_PARK_SPIN_LIMIT) {
    if (!changed) atomic_fetch_add(&stat_long_out, 1);
    else if (i >= WTP_PARK_SPIN_LIMIT) atomic_fetch_add(&stat_long_late, 1);
    else atomic_fetch_add(&stat_long_early, 1);
  } else if (limit > 0) {
    atomic_fetch_add(changed ? &stat_short_hit : &stat_short_out, 1);
  } else atomic_fetch_add(&stat_none, 1);
  return changed;`,
      ],
      [
        "core/wtp_park.c",
        `/* Returns 1 if *addr changed while spinning. Spins only with a ticket. */`,
        `#include <stdio.h>
#include <stdlib.h>
static _Atomic long stat_long_out, stat_long_late, stat_long_early, stat_short_hit, stat_short_out, stat_none;
static void stat_print(void) { fprintf(stderr, "SPINSTATS long: out %ld caught-late %ld caught-early %ld; short: hit %ld out %ld; none %ld\\n", (long)stat_long_out, (long)stat_long_late, (long)stat_long_early, (long)stat_short_hit, (long)stat_short_out, (long)stat_none); }
__attribute__((constructor)) static void stat_init(void) { atexit(stat_print); }
/* Returns 1 if *addr changed while spinning. Spins only with a ticket. */`,
      ],
      [
        "core/wtp_park.c",
        `  int changed = 0;
  for (int i = 0; i < limit; i++) {`,
        `  int changed = 0;
  int i;
  for (i = 0; i < limit; i++) {`,
      ],
    ],
  },
  // scan(): a plain load first, the compare-exchange only on an IDLE slot.
  "tatas-scan": {
    defines: [],
    patch: [
      [
        "core/wtp_pool.c",
        "  int32_t expected = WTP_IDLE;\n  /* Acquire:",
        "  int32_t expected = WTP_IDLE;\n  if (atomic_load_explicit(state, memory_order_relaxed) != WTP_IDLE) return 0; /* experiment */\n  /* Acquire:",
      ],
    ],
  },
};
// Every recommendation of bench/analysis.md at once: no spin, 200 ms
// slices, interrupted() kept in C (a stand-in: a real change needs another
// stopping signal), load-first scan.
VARIANTS.recommended = {
  defines: ["-DWTP_PARK_MAX_SPINNERS=0", "-DWTP_PARK_SLICE_MS=200"],
  patch: [...VARIANTS["c-only-interrupted"].patch, ...VARIANTS["tatas-scan"].patch],
};
// The rule before 3b45018 with the spin outcomes counted (stderr at exit):
// what the slot-wait rows' waits do under each rule (bench/analysis.md).
VARIANTS["any-idle-spin-stats"] = {
  gitRef: "fe08000",
  defines: [],
  patch: [...VARIANTS["any-idle-spin"].patch, ...VARIANTS["spin-stats"].patch],
};
// The adaptive policy (issue 20) with its decisions counted (stderr at exit).
VARIANTS.stats = ["-DWTP_PARK_STATS"];
// The rule on main before the adaptive policy (counts of our own threads,
// commit fe08000), from git: the "before" of the comparison, alternating with
// the current src/ in one run; "main-stats" counts its spins (the patch of
// "spin-stats", which applies to that source).
VARIANTS.main = { gitRef: "fe08000", defines: [], patch: [] };
VARIANTS["main-stats"] = VARIANTS["spin-stats"];
const definesOf = (v) => (Array.isArray(VARIANTS[v]) ? VARIANTS[v] : VARIANTS[v].defines);
const SCENARIOS = {
  "handoff-hot": { script: "handoff.js", params: { phase: "hot", samples: 1500, warmup: 200 }, metric: ["handoffUs", "p50"] },
  "throughput-1": {
    script: "throughput.js",
    params: { workers: 1, threads: 10000, warmup: 500 },
    metric: ["threadsPerSec", "value"],
  },
  "waves-pool": {
    script: "waves-pool.js",
    params: { lanes: 8, waves: 2000, rounds: 16 },
    metric: ["wallMs", "value"],
    extra: ["cpuMs", "value"],
  },
  idle: {
    script: "idle.js",
    params: { workers: 64, seconds: 3, settleMs: 500 },
    metric: ["cpuPctOfCore", "value"],
    extra: ["wakeupsPerSec", "value"],
  },
  waves: {
    script: "waves.js",
    params: { lanes: 8, waves: 2000, rounds: 16 },
    metric: ["warmWallMs", "value"],
    extra: ["warmCpuMs", "value"],
  },
  scan: { script: "scan.js", params: { capacity: 1024, busy: 1020, samples: 1000, warmup: 100 }, metric: ["spawnCallUs", "p50"] },
  "throughput-4": {
    script: "throughput.js",
    params: { workers: 4, threads: 10000, warmup: 500 },
    metric: ["threadsPerSec", "value"],
  },
  contention: {
    script: "contention.js",
    params: { spawners: 3, servers: 4, spawns: 100000 },
    metric: ["wallMs", "value"],
    extra: ["cpuMs", "value"],
  },
  "handoff-cold": {
    script: "handoff.js",
    params: { phase: "cold", samples: 30, warmup: 3, idleMs: 50 },
    metric: ["handoffUs", "p50"],
  },
  // A spawner waiting inside the pool for a slot (bench/lib/plan.js
  // "slot-wait-*"): 1 worker, back-to-back spawns joined only at the end.
  "slot-wait-1": {
    script: "throughput.js",
    params: { workers: 1, threads: 10000, warmup: 500, wave: 10000, spawnWaitMs: 1000 },
    metric: ["threadsPerSec", "value"],
    extra: ["cpuUsPerThread", "value"],
  },
  // A pool narrower than its waves: 2 workers, waves of 8.
  "slot-wait-2x8": {
    script: "throughput.js",
    params: { workers: 2, threads: 10000, warmup: 500, wave: 8, spawnWaitMs: 1000 },
    metric: ["threadsPerSec", "value"],
    extra: ["cpuUsPerThread", "value"],
  },
  // The wave guest on 1 pre-started worker (7 spawns per wave, each waiting
  // for the previous thread).
  "slot-wait-guest": {
    script: "waves-pool.js",
    params: { lanes: 8, waves: 300, rounds: 16, workers: 1, spawnWaitMs: 1000 },
    metric: ["wallMs", "value"],
    extra: ["cpuMs", "value"],
  },
  "throughput-2": {
    script: "throughput.js",
    params: { workers: 2, threads: 10000, warmup: 500 },
    metric: ["threadsPerSec", "value"],
  },
  // The wave call beside N CPU burners of the bench's own (bench/lib/plan.js
  // "load-*"), the package default (native + reuse) against the SDK's
  // configuration (JS + fresh instances); 1,000 waves to keep a run short.
  ...Object.fromEntries(
    [0, 1, 2, 4].map((burners) => [
      `load-${burners}`,
      {
        script: "waves.js",
        params: { lanes: 8, waves: 1000, rounds: 16, burners },
        jsParams: { freshInstances: true },
        metric: ["wallMs", "value"],
        extra: ["warmWallMs", "value"],
      },
    ]),
  ),
};
const variants = opt("variants", "current,spin0,spin2000,slice1000").split(",");
const scenarios = opt("only", "handoff-hot,throughput-1,waves-pool,idle").split(",");

function build(name) {
  const out = join(expDir, `${name}.node`);
  let srcDir = join(repoDir, "src");
  const patch = Array.isArray(VARIANTS[name]) ? null : VARIANTS[name].patch;
  const gitRef = Array.isArray(VARIANTS[name]) ? null : VARIANTS[name].gitRef;
  if (patch) {
    // A scratch copy of src/ (or of src/ at gitRef) with the patch applied.
    const copy = join(expDir, `${name}-src`);
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    if (gitRef) {
      const tar = execFileSync("git", ["-C", repoDir, "archive", gitRef, "src"]);
      execFileSync("tar", ["-x", "-C", copy, "--strip-components=1"], { input: tar });
    } else cpSync(srcDir, copy, { recursive: true }); // src/ has sub-folders (src/wasi/)
    for (const [file, from, to] of patch) {
      const text = readFileSync(join(copy, file), "utf8");
      if (!text.includes(from)) throw new Error(`variant ${name}: patch does not apply to ${file}`);
      writeFileSync(join(copy, file), text.replace(from, to));
    }
    srcDir = copy;
  }
  return ccAddon({ srcDir, out, defines: definesOf(name) });
}

function run(script, params, addon) {
  return new Promise((res) => {
    const outFile = join(expDir, `result-${process.pid}.txt`);
    rmSync(outFile, { force: true });
    const env = { ...process.env, BENCH_OUT: outFile };
    if (addon) env.WASI_THREAD_POOL_ADDON = addon;
    const child = spawn(process.execPath, [join(benchDir, "scenarios", script), JSON.stringify(params)], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      const text = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
      const m = /^BENCH_RESULT (.*)$/m.exec(text);
      // A variant built with spin counters prints one SPINSTATS line at exit.
      const stats = /^SPINSTATS (.*)$/m.exec(err)?.[1] ?? null;
      res(
        m ? { ...JSON.parse(m[1]), spinStats: stats } : { error: `exit ${code}: ${err.trim().split("\n").slice(-2).join(" ")}` },
      );
    });
  });
}

function pick(result, [key, stat]) {
  const m = result.metrics?.[key];
  if (!m) return NaN;
  return stat === "value" ? m.value : summarize(m.samples)[stat];
}

const addons = Object.fromEntries(variants.map((v) => [v, build(v)]));
if (argv.includes("--build-only")) {
  for (const [v, path] of Object.entries(addons)) console.log(`${v} ${path}`);
  process.exit(0);
}
const machine = machineInfo(repoDir);
const results = {};
for (const sid of scenarios) {
  const sc = SCENARIOS[sid];
  results[sid] = {};
  const order = [...variants.map((v) => ["native", v]), ["js", "js"]];
  for (let rep = 0; rep < reps; rep++) {
    for (const [impl, v] of order) {
      const implParams = impl === "js" ? sc.jsParams : sc.nativeParams;
      const r = await run(sc.script, { impl, ...sc.params, ...implParams }, impl === "native" ? addons[v] : null);
      (results[sid][v] ??= []).push(
        r.error
          ? { error: r.error }
          : { main: pick(r, sc.metric), extra: sc.extra ? pick(r, sc.extra) : null, info: r.info, spinStats: r.spinStats },
      );
      const last = results[sid][v].at(-1);
      process.stderr.write(
        `${sid} ${v} ${rep + 1}/${reps}: ${last.error ?? `${sc.metric[0]} ${last.main.toFixed(2)}${sc.extra ? ` ${sc.extra[0]} ${last.extra.toFixed(2)}` : ""}`}` +
          `${last.spinStats ? ` [${last.spinStats}]` : ""}\n`,
      );
    }
  }
}

const table = [];
for (const [sid, byVariant] of Object.entries(results)) {
  const sc = SCENARIOS[sid];
  for (const [v, runs] of Object.entries(byVariant)) {
    const ok = runs.filter((r) => !r.error);
    const main = summarize(ok.map((r) => r.main));
    const extra = sc.extra ? summarize(ok.map((r) => r.extra)) : null;
    table.push({
      scenario: sid,
      variant: v,
      flags: VARIANTS[v] ? (Array.isArray(VARIANTS[v]) ? VARIANTS[v].join(" ") : "patched copy of src/") : "(JS pool)",
      metric: `${sc.metric[0]} ${sc.metric[1]}`,
      median: main.p50,
      min: main.min,
      max: main.max,
      extraMetric: sc.extra?.[0] ?? null,
      extraMedian: extra?.p50 ?? null,
      failed: runs.length - ok.length,
    });
  }
}
for (const row of table) {
  if (!Number.isFinite(row.median)) {
    console.log(
      `${row.scenario.padEnd(13)} ${row.variant.padEnd(13)} every run failed: ${results[row.scenario][row.variant][0]?.error}`,
    );
    continue;
  }
  console.log(
    `${row.scenario.padEnd(13)} ${row.variant.padEnd(13)} ${row.metric.padEnd(20)} ${row.median.toFixed(2).padStart(10)} [${row.min.toFixed(2)}-${row.max.toFixed(2)}]` +
      (row.extraMetric ? `  ${row.extraMetric} ${row.extraMedian.toFixed(2)}` : "") +
      (row.failed ? `  (${row.failed} failed)` : ""),
  );
}
mkdirSync(join(benchDir, "results"), { recursive: true });
// One file per set of scenarios, so that runs of different questions do not
// overwrite each other.
const outName = `experiments-${scenarios.join("+")}.json`;
writeFileSync(
  join(benchDir, "results", outName),
  JSON.stringify(
    {
      machine: { ...machine, loadAverageAfter: os.loadavg() },
      reps,
      variants: Object.fromEntries(variants.map((v) => [v, VARIANTS[v]])),
      table,
      results,
    },
    null,
    1,
  ) + "\n",
);
console.error(`wrote bench/results/${outName}`);
