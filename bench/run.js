#!/usr/bin/env node
// `npm run bench`: the native pool against the JS baseline.
//
//   node bench/run.js            full run (a few minutes); writes
//                                .tmp/bench/benchmarks.{md,json,svg}
//   node bench/run.js --quick    CI smoke run (a minute or two); writes
//                                .tmp/bench/quick.{md,json,svg}
//   node bench/run.js --publish  full run that rewrites the committed
//                                docs/benchmarks.{md,json,svg} (whoever
//                                publishes figures)
//
// Before its first row it builds what it needs from this repository
// (bench/lib/prepare.js: the one-file pool workers into dist/, the
// thread-wave guest into guest/out/; the rows build the rest on demand), all
// into ignored folders: a run leaves `git status` as it found it unless
// --publish. A row skips, with the reason, only for what the machine lacks
// (clang-19, ../shared/wasi-threads-sysroot, Zig, taskset ...); the run exits
// 1 when a row failed in every repetition, else 0.
//
// The machine's state beside the figures (bench/lib/load.js): for every row
// the CPUs that other work kept busy while it ran and the load average; per
// group in the table and the report, and a row taken with fewer free CPUs
// than it needs is marked LOADED (! in the terminal table).
//
// Options:
//   --quick             small sizes, one repetition
//   --publish           write docs/ (a full run of every scenario only)
//   --only=a,b          only the scenarios whose id starts with one of these
//   --impl=js|native    only one implementation (default: every one available)
//   --reps=N            repetitions per implementation (default: per scenario)
//   --out=DIR           where the report goes (default: .tmp/bench/, or docs/
//                       with --publish)
//   --no-report         print the table only
//   --addon=PATH        measure this build of the addon (WASI_THREAD_POOL_ADDON)
//   --fresh-addon       build src/ into .tmp/bench/ first (cc, binding.gyp's
//                       flags) and measure that: for a build/ that is not
//                       a build of src/ (the bench compares the addon it
//                       measures with a fresh node-gyp build of src/)
//   --render=FILE.json  measure nothing: rewrite the Markdown and SVG next to
//                       FILE.json from its results
//
// Every repetition of every scenario runs in a fresh child process, and the
// implementations alternate (A B A B ...) so that drift of a shared machine
// falls on both. Progress goes to stderr; the table to stdout.

import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { buildPlan } from "./lib/plan.js";
import { summarize, downsampleSorted } from "./lib/stats.js";
import { machineInfo } from "./lib/machine.js";
import { compareAddonWithSources } from "./lib/addon-source.js";
import { ccAddon } from "./lib/cc-addon.js";
import { evaluateTargets, formatLoadLines, formatTable, writeReport } from "./lib/report.js";
import { needsWaveGuest, prepareBench } from "./lib/prepare.js";
import { cpusNeeded, loadBetween, loadSample } from "./lib/load.js";
import { withOtherNode } from "./lib/other-node.js";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(benchDir, "..");

// ---------------------------------------------------------------------------
// Options.

const argv = process.argv.slice(2);
const opt = (name) => {
  const hit = argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (hit === undefined) return undefined;
  return hit.includes("=") ? hit.slice(hit.indexOf("=") + 1) : true;
};
for (const a of argv) {
  if (!/^--(quick|publish|only|impl|reps|out|no-report|help|addon|fresh-addon|render)(=|$)/.test(a)) {
    console.error(`bench: unknown option ${a} (see the head of bench/run.js)`);
    process.exit(2);
  }
}
if (opt("help")) {
  console.log(
    "usage: node bench/run.js [--quick] [--publish] [--only=id,...] [--impl=js|native] [--reps=N] [--out=DIR] [--no-report]",
  );
  process.exit(0);
}
if (typeof opt("render") === "string") {
  const file = resolve(opt("render"));
  const data = JSON.parse(readFileSync(file, "utf8"));
  const rplan = withOtherNode(buildPlan({ quick: data.run.mode === "quick" }), { repoDir });
  const rplans = Object.fromEntries(rplan.map((s) => [s.id, s]));
  const files = writeReport({
    outDir: dirname(file),
    base: file.replace(/^.*\//, "").replace(/\.json$/, ""),
    results: data.results,
    plans: rplans,
    machine: data.machine,
    runInfo: data.run,
    targets: evaluateTargets(data.results),
    impls: data.run.implementations,
    rewriteJson: false,
  });
  for (const f of files) console.error(`bench: wrote ${relative(repoDir, f) || f}`);
  process.exit(0);
}
const quick = !!opt("quick");
const only = typeof opt("only") === "string" ? opt("only").split(",").filter(Boolean) : null;
const repsOverride = opt("reps") !== undefined ? Math.max(1, Number(opt("reps")) | 0) : null;
// The committed figures change only when asked (--publish), and only from a
// full run of every scenario on every implementation.
const publish = !!opt("publish");
if (publish && (quick || only || repsOverride !== null || ["impl", "out", "no-report"].some((o) => opt(o) !== undefined))) {
  console.error("bench: --publish needs a full run of every scenario (no --quick, --only, --impl, --reps, --out or --no-report)");
  process.exit(2);
}

// Which addon build the children load (lib/native/binding.js honours
// WASI_THREAD_POOL_ADDON in every thread).
if (opt("fresh-addon")) {
  const exe = join(repoDir, ".tmp", "bench", "fresh-addon.node");
  mkdirSync(dirname(exe), { recursive: true });
  try {
    ccAddon({ out: exe });
  } catch (error) {
    console.error(`bench: --fresh-addon: cc failed: ${String(error.stderr ?? error.message).trim()}`);
    process.exit(2);
  }
  process.env.WASI_THREAD_POOL_ADDON = exe;
} else if (typeof opt("addon") === "string") {
  process.env.WASI_THREAD_POOL_ADDON = resolve(opt("addon"));
}
// Imported only now, so that the addon choice above is what loads.
const { implementations } = await import("./lib/api.js");
const { native: loadedAddon } = await import("../lib/native/binding.js").catch(() => ({ native: null }));
const addonInfo = addonProvenance(loadedAddon?.path ?? null);

// Which build was measured, and whether it is a build of src/: by content
// (bench/lib/addon-source.js), not by file times, which a clone resets.
function addonProvenance(path) {
  if (!path) return null;
  const info = { path: relative(repoDir, path) || path, built: null, matchesSrc: null, srcCheck: null };
  try {
    info.built = new Date(statSync(path).mtimeMs).toISOString();
  } catch {}
  if (opt("fresh-addon")) {
    info.matchesSrc = true;
    info.srcCheck = "built from src/ by --fresh-addon";
  } else if (typeof opt("addon") === "string") {
    info.srcCheck = "chosen with --addon; not compared with src/";
  } else {
    const { matchesSrc, note } = compareAddonWithSources(path, repoDir);
    info.matchesSrc = matchesSrc;
    info.srcCheck = note;
  }
  return info;
}

const available = implementations();
let impls = available.list;
if (typeof opt("impl") === "string") {
  impls = impls.filter((i) => i === opt("impl"));
  if (impls.length === 0) {
    console.error(`bench: implementation ${opt("impl")} is not available here (${available.nativeReason ?? "?"})`);
    process.exit(2);
  }
}

let plan = withOtherNode(buildPlan({ quick }), { repoDir });
if (only) plan = plan.filter((s) => only.some((o) => s.id.startsWith(o)));
const complete = !only && impls.length === available.list.length && repsOverride === null;
const outDir =
  typeof opt("out") === "string" ? resolve(opt("out")) : publish ? join(repoDir, "docs") : join(repoDir, ".tmp", "bench");

// ---------------------------------------------------------------------------
// Children.

function log(line) {
  process.stderr.write(`${line}\n`);
}

const started = process.hrtime.bigint();
const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;

// Runs a command; resolves {code, signal, stdout, stderr, exitAt (hrtime ns),
// timedOut}.
function runChild(command, args, { timeoutMs, env }) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: repoDir, env: env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("exit", (code, signal) => {
      const exitAt = process.hrtime.bigint();
      clearTimeout(timer);
      // Let the pipes drain before resolving.
      let pending = 2;
      const done = () => {
        if (--pending === 0) resolvePromise({ code, signal, stdout, stderr, exitAt, timedOut });
      };
      if (child.stdout.readableEnded) done();
      else child.stdout.on("end", done);
      if (child.stderr.readableEnded) done();
      else child.stderr.on("end", done);
    });
  });
}

function tail(text, lines = 6) {
  return text.trim().split("\n").slice(-lines).join("\n");
}

// One repetition of a scenario on one implementation: {metrics, info} or
// {error} or {skip}.
async function measure(scenario, impl) {
  if (scenario.kind === "c") return measureC(scenario);
  if (needsWaveGuest(scenario)) {
    if (prepared.waveGuest.skip) return { skip: prepared.waveGuest.skip };
    if (prepared.waveGuest.error) return { error: prepared.waveGuest.error };
  }
  const script = join(benchDir, "scenarios", scenario.script);
  if (!existsSync(script)) return { skip: `bench/scenarios/${scenario.script} not present` };
  if (scenario.nodeMissing) return { skip: scenario.nodeMissing };
  const node = scenario.nodeBinary ?? process.execPath;
  // A variant scenario: `impl` names the variant, which brings its own
  // implementation and parameters.
  const variant = scenario.variants?.find((v) => v.id === impl);
  const params = JSON.stringify(
    variant ? { quick, ...scenario.params, ...variant.params, impl: variant.impl } : { impl, quick, ...scenario.params },
  );
  const outFile = join(tmpDir, `result-${process.pid}-${++childCount}.txt`);
  rmSync(outFile, { force: true });
  // Pinned to some CPUs (the "bigger machine on paper" runs).
  let command = node;
  let args = [script, params];
  if (scenario.cpus) {
    if (!tasksetAvailable()) return { skip: "taskset not available" };
    command = "taskset";
    args = ["-c", scenario.cpus, node, ...args];
  }
  const r = await runChild(command, args, {
    timeoutMs: scenario.timeoutMs,
    env: { ...process.env, BENCH_OUT: outFile },
  });
  if (existsSync(outFile)) {
    r.stdout += readFileSync(outFile, "utf8");
    rmSync(outFile, { force: true });
  }
  if (r.timedOut) return { error: `timed out after ${scenario.timeoutMs} ms` };
  const skip = /^BENCH_SKIP (.*)$/m.exec(r.stdout);
  if (skip) return { skip: skip[1] };
  if (scenario.kind === "exit") {
    const m = /^BENCH_END (\d+)$/m.exec(r.stdout);
    if (!m || r.code !== 0) return { error: `exit ${r.code ?? r.signal}: ${tail(r.stderr)}` };
    const exitMs = Number(r.exitAt - BigInt(m[1])) / 1e6;
    return { metrics: { exitMs: { value: exitMs } }, info: {} };
  }
  const m = /^BENCH_RESULT (.*)$/m.exec(r.stdout);
  if (!m) return { error: `exit ${r.code ?? r.signal}, no result: ${tail(r.stderr)}` };
  const result = JSON.parse(m[1]);
  if (r.code !== 0) result.info = { ...result.info, exitCode: r.code ?? r.signal };
  return result;
}

let tasksetState = null;
function tasksetAvailable() {
  if (tasksetState === null) {
    try {
      execFileSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
      tasksetState = true;
    } catch {
      tasksetState = false;
    }
  }
  return tasksetState;
}

const tmpDir = join(repoDir, ".tmp", "bench");
mkdirSync(tmpDir, { recursive: true });
let childCount = 0;

const built = {}; // C programs: name -> {exe} or {error}
function buildC(name) {
  if (built[name]) return built[name];
  const exe = join(tmpDir, name);
  const src = join(benchDir, "c", `${name}.c`);
  try {
    execFileSync(process.env.CC || "cc", ["-O2", "-pthread", "-o", exe, src], { stdio: "pipe" });
    built[name] = { exe };
  } catch (error) {
    built[name] = { error: `cc failed: ${String(error.stderr ?? error.message).trim()}` };
  }
  return built[name];
}

async function measureC(scenario) {
  const program = scenario.program ?? "pingpong";
  const b = buildC(program);
  if (b.error) return { skip: b.error };
  const r = await runChild(b.exe, scenario.args, { timeoutMs: scenario.timeoutMs });
  if (r.timedOut) return { error: `timed out after ${scenario.timeoutMs} ms` };
  if (r.code !== 0) return { error: `exit ${r.code ?? r.signal}: ${tail(r.stderr)}` };
  const out = JSON.parse(r.stdout.trim().split("\n").pop());
  if (program === "scan") {
    return {
      metrics: { casFirstUs: { value: out.casFirstNs / 1000 }, loadFirstUs: { value: out.loadFirstNs / 1000 } },
      info: out,
    };
  }
  const metrics = {
    oneWayUs: { value: out.oneWayNs.p50 / 1000 },
    roundTripUs: { value: out.roundTripNs.p50 / 1000 },
    oneWayP99Us: { value: out.oneWayNs.p99 / 1000 },
  };
  if (out.wakeCallNs) metrics.wakeCallUs = { value: out.wakeCallNs.p50 / 1000 };
  return { metrics, info: out };
}

// ---------------------------------------------------------------------------
// The run.

const machine = machineInfo(repoDir);
machine.addon = addonInfo;
const prepared = await prepareBench({ repoDir, plan, log });
if (addonInfo?.matchesSrc === false) {
  log(`bench: WARNING: the addon ${addonInfo.path} ${addonInfo.srcCheck}`);
}
log(
  `bench: ${quick ? "quick" : "full"} run, implementations ${impls.join(" + ")}` +
    (available.nativeReason ? ` (native: ${available.nativeReason})` : "") +
    `; ${machine.cores} CPUs, load ${machine.loadAverage.join(" ")}`,
);

const totalSteps = plan.reduce(
  (n, s) =>
    n +
    (repsOverride ?? s.reps) *
      (s.kind === "c" || s.single
        ? 1
        : s.variants
          ? s.variants.filter((v) => v.impl === undefined || impls.includes(v.impl)).length
          : impls.length),
  0,
);
let step = 0;
const results = []; // per scenario

for (const scenario of plan) {
  const reps = repsOverride ?? scenario.reps;
  // "single": a reference that does not use the pool (one run per repetition).
  // "variants": configurations of their own (implementation + parameters),
  // alternated like the implementations; a native variant runs only where
  // native is measured.
  const order =
    scenario.kind === "c"
      ? ["c"]
      : scenario.single
        ? ["ref"]
        : scenario.variants
          ? scenario.variants.filter((v) => v.impl === undefined || impls.includes(v.impl)).map((v) => v.id)
          : impls;
  const runs = Object.fromEntries(order.map((i) => [i, []]));
  const t0 = elapsed();
  const loadBefore = loadSample();
  let skipped = null;
  for (let rep = 0; rep < reps && !skipped; rep++) {
    for (const impl of order) {
      step++;
      const s0 = elapsed();
      const r = await measure(scenario, impl);
      const took = (elapsed() - s0).toFixed(1);
      const head = `[${String(step).padStart(3)}/${totalSteps} ${elapsed().toFixed(0).padStart(4)}s] ${scenario.id} ${impl} ${rep + 1}/${reps}`;
      if (r.skip) {
        log(`${head}: skipped (${r.skip})`);
        skipped = r.skip;
        break;
      }
      if (r.error) {
        log(`${head}: FAILED ${r.error}`);
        runs[impl].push({ error: r.error });
        continue;
      }
      runs[impl].push(r);
      const first = scenario.metrics[0];
      const m = r.metrics[first.key];
      const shown = m?.value ?? (m?.samples ? summarize(m.samples)[first.stat] : NaN);
      log(`${head}: ${first.label} ${fmt(shown, first)} ${first.unit} (${took}s)`);
    }
  }
  const row = aggregate(scenario, runs, skipped, elapsed() - t0);
  if (!skipped) {
    row.load = loadBetween(loadBefore, loadSample(), {
      cores: machine.availableParallelism,
      needs: cpusNeeded(scenario, machine.availableParallelism),
    });
    log(`        ${scenario.id}: ${rowLoadText(row.load)}`);
  }
  results.push(row);
}

function rowLoadText(load) {
  const avg = `load average ${load.loadAverage[0]} -> ${load.loadAverage[1]}`;
  if (load.othersCpus === null) return avg;
  return `other work used ${load.othersCpus} of ${machine.availableParallelism} CPUs, ${avg}; needs ${load.needs}${load.loaded ? ": LOADED" : ""}`;
}

function fmt(v, metric) {
  if (!Number.isFinite(v)) return "-";
  const digits = metric?.digits ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  return v.toFixed(digits);
}

// Per implementation and metric: the figure, its spread and the raw
// per-repetition summaries.
function aggregate(scenario, runs, skipped, seconds) {
  const out = {
    id: scenario.id,
    group: scenario.group,
    title: scenario.title,
    kind: scenario.kind,
    params: scenario.params ?? { args: scenario.args },
    seconds: Math.round(seconds * 10) / 10,
    skipped,
    variants: scenario.variants ? Object.keys(runs) : undefined,
    baseline: scenario.variants ? (scenario.baseline ?? Object.keys(runs)[0]) : undefined,
    impls: {},
  };
  for (const [impl, reps] of Object.entries(runs)) {
    const ok = reps.filter((r) => !r.error);
    const entry = {
      reps: reps.length,
      failed: reps.length - ok.length,
      errors: reps.filter((r) => r.error).map((r) => r.error),
      metrics: {},
      info: ok.map((r) => r.info),
    };
    for (const metric of scenario.metrics) {
      const name = `${metric.key}:${metric.stat}`;
      if (metric.stat === "value") {
        const values = ok.map((r) => r.metrics[metric.key]?.value).filter(Number.isFinite);
        if (values.length === 0) continue;
        const s = summarize(values);
        entry.metrics[name] = { value: s.p50, lo: s.p10, hi: s.p90, spread: "p10-p90 of repetitions", perRep: values };
      } else {
        const perRep = ok.map((r) => r.metrics[metric.key]?.samples).filter((v) => Array.isArray(v) && v.length);
        if (perRep.length === 0) continue;
        const pooled = perRep.flat();
        const s = summarize(pooled);
        const repStats = perRep.map((v) => summarize(v));
        if (metric.stat === "p99") {
          const p99s = repStats.map((r) => r.p99);
          const q = summarize(p99s);
          entry.metrics[name] = { value: s.p99, lo: q.min, hi: q.max, spread: "min-max of the repetitions' p99", perRep: p99s };
        } else {
          entry.metrics[name] = {
            value: s.p50,
            lo: s.p10,
            hi: s.p90,
            spread: "p10-p90 of all samples",
            n: s.n,
            perRep: repStats.map((r) => r.p50),
            summary: s,
            quantiles: downsampleSorted(pooled, 101),
          };
        }
      }
    }
    out.impls[impl] = entry;
  }
  // Paired ratios: repetition i of native against repetition i of JS, which
  // ran next to each other in time; robust to a machine whose load drifts.
  const pairOf = (n, j) => {
    if (!n || !j || n.failed !== 0 || j.failed !== 0) return null;
    const paired = {};
    for (const name of Object.keys(n.metrics)) {
      const a = n.metrics[name]?.perRep;
      const b = j.metrics[name]?.perRep;
      if (!a || !b || a.length !== b.length || a.length === 0) continue;
      const ratios = a.map((v, i) => v / b[i]).filter(Number.isFinite);
      if (ratios.length === 0) continue;
      const q = summarize(ratios);
      paired[name] = { median: q.p50, min: q.min, max: q.max, ratios };
    }
    return paired;
  };
  if (out.variants) {
    // Every variant against the baseline variant, repetition by repetition.
    out.pairedVs = {};
    for (const id of out.variants) {
      if (id === out.baseline) continue;
      const p = pairOf(out.impls[id], out.impls[out.baseline]);
      if (p) out.pairedVs[id] = p;
    }
  } else {
    const p = pairOf(out.impls.native, out.impls.js);
    if (p) out.paired = p;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Output.

// Report in group order (1. ... 8.), whatever order they ran in.
const groupNumber = (r) => Number.parseInt(r.group, 10) || 99;
results.sort((a, b) => groupNumber(a) - groupNumber(b));

const totalSeconds = Math.round(elapsed() * 10) / 10;
machine.loadAverageAfter = (await import("node:os")).default.loadavg().map((v) => Math.round(v * 100) / 100);
const runInfo = {
  mode: quick ? "quick" : "full",
  complete,
  implementations: impls,
  nativeUnavailable: available.nativeReason,
  seconds: totalSeconds,
  command: `node bench/run.js${argv.length ? " " + argv.join(" ") : ""}`,
};
const plans = Object.fromEntries(plan.map((s) => [s.id, s]));
const targets = evaluateTargets(results);

process.stdout.write(formatTable(results, plans, impls, { cores: machine.availableParallelism }) + "\n");
process.stdout.write("\nThe machine per group (bench/lib/load.js):\n");
for (const line of formatLoadLines(results, machine.availableParallelism)) process.stdout.write(`  ${line}\n`);
process.stdout.write("\nTargets (native):\n");
for (const t of targets) {
  process.stdout.write(`  ${t.status.padEnd(7)} ${t.name}: ${t.figure}\n`);
}
process.stdout.write(`\n${runInfo.mode} run took ${totalSeconds} s\n`);

if (!opt("no-report")) {
  mkdirSync(outDir, { recursive: true });
  const base = quick ? "quick" : "benchmarks";
  const files = writeReport({ outDir, base, results, plans, machine, runInfo, targets, impls });
  for (const f of files) log(`bench: wrote ${relative(repoDir, f) || f}`);
  if (!publish) {
    log(
      `bench: the report is ${relative(repoDir, files[0])} (an ignored folder); \`npm run bench -- --publish\` rewrites docs/benchmarks.*`,
    );
  }
}

const broken =
  prepared.workers.error !== undefined ||
  results.some((r) => Object.values(r.impls).some((e) => e.reps > 0 && e.failed === e.reps));
// A scenario that failed in every repetition, or a build of ours that failed
// (bench/lib/prepare.js), fails the run (the smoke test's point); slow
// figures never do.
process.exit(broken ? 1 : 0);
