// Where a run's guest code ran, by V8 tier, and what V8's background threads
// spent: one more untimed run of the runner (bench/lib/program-costs.js) under
// Linux perf, `perf record -e task-clock` (a sample per 0.25 ms of a thread's
// CPU time, every thread of the process), with the runner's Node started
// with --perf-basic-prof: V8 then writes /tmp/perf-PID.map, which names each
// wasm function's code with its tier ("NAME-liftoff", "NAME-turbofan"), and
// `perf script` reads the samples back against it. Both the official Node 24
// binary and the machine's Node 20 name the tiers so. V8's background
// threads are the threads named "V8Worker" (Node 22 and later name them);
// Node 20 names no thread, so there they are told by what they run: the
// threads, but the main one, with no sample in JS, builtins or guest code
// (the code the map names and the binary's Builtins_*).
//
//   liftoffMs        guest CPU time in Liftoff code, every thread
//   liftoffHotMs     the part of liftoffMs spent in functions that got
//                    TurboFan code during the run: what the hot code cost
//                    before it reached the optimized tier
//   turbofanMs       guest CPU time in TurboFan code, every thread
//   firstTurbofanMs  wall time from the guest's first sample (any thread) to
//                    its first sample in TurboFan code
//   bgCompileMs      CPU time of V8's background threads in its compilers
//                    (wasm::, compiler::, maglev::: the guest's compile and
//                    tier-up jobs, and JS's optimizing compiles)
//   bgMs             all CPU time of V8's background threads (compile jobs,
//                    concurrent GC, their allocation and page faults)
//
// perf's own cost and the map's writing make this run slower: its figures
// say where the time goes, not what a run costs. Where perf is missing or
// not allowed (kernel.perf_event_paranoid) the figures are left out.

import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";

const PERIOD_NS = 250000;
// Code that only an isolate's thread runs: a name from V8's map ("JS:f-liftoff",
// "Builtin:X") or an embedded builtin of the binary.
const ISOLATE_CODE = /^([A-Za-z]+:[^:]|Builtins_)/;
const COMPILER = /^v8::internal::(wasm|compiler|maglev)::/;
const SAMPLE = /^\s*(.*?)\s+(\d+)\/(\d+)\s+([\d.]+):\s+[0-9a-f]+\s+(.*)$/;

// [file, args] that run `file args` under perf, writing its samples to
// `dir`/perf.data.
export function perfCommand(file, args, dir) {
  return [
    "perf",
    [
      "record",
      "-q",
      "-e",
      "task-clock",
      "-c",
      String(PERIOD_NS),
      "-o",
      join(dir, "perf.data"),
      "--",
      file,
      "--perf-basic-prof",
      ...args,
    ],
  ];
}

// The figures of the samples perfCommand wrote to `dir` (the process's map
// file is removed once read).
export function tierFigures(dir) {
  const data = join(dir, "perf.data");
  if (!existsSync(data)) return {};
  const out = spawnSync("perf", ["script", "-i", data, "-F", "comm,pid,tid,time,ip,sym"], {
    encoding: "utf8",
    maxBuffer: 2 ** 30,
  });
  const samples = [];
  for (const line of (out.stdout ?? "").split("\n")) {
    const m = SAMPLE.exec(line);
    if (m) samples.push({ comm: m[1], pid: Number(m[2]), tid: Number(m[3]), time: Number(m[4]), sym: m[5] });
  }
  // perf samples the one process it started (and its threads).
  if (samples.length === 0) return {};
  rmSync(`/tmp/perf-${samples[0].pid}.map`, { force: true });
  return classify(samples);
}

const tierOf = (sym) => (sym.endsWith("-liftoff") ? "liftoff" : sym.endsWith("-turbofan") ? "turbofan" : null);

// The threads of V8's platform: named so, or (where no thread is named) the
// threads but the main one that never ran an isolate's code.
function backgroundThreads(samples) {
  const named = samples.some((s) => s.comm === "V8Worker");
  if (named) return new Set(samples.filter((s) => s.comm === "V8Worker").map((s) => s.tid));
  const isolate = new Set(samples.filter((s) => s.tid === s.pid || ISOLATE_CODE.test(s.sym)).map((s) => s.tid));
  return new Set(samples.filter((s) => !isolate.has(s.tid)).map((s) => s.tid));
}

// The figures of one process's samples ({comm, pid, tid, time in s, sym}).
export function classify(samples) {
  const ms = (n) => (n * PERIOD_NS) / 1e6;
  const background = backgroundThreads(samples);
  const optimized = new Set(samples.filter((s) => tierOf(s.sym) === "turbofan").map((s) => s.sym.slice(0, -"-turbofan".length)));
  const n = { liftoff: 0, liftoffHot: 0, turbofan: 0, bg: 0, bgCompile: 0 };
  let firstGuest = Infinity;
  let firstTurbofan = Infinity;
  for (const s of samples) {
    const tier = tierOf(s.sym);
    if (tier) firstGuest = Math.min(firstGuest, s.time);
    if (tier === "turbofan") {
      n.turbofan++;
      firstTurbofan = Math.min(firstTurbofan, s.time);
    } else if (tier === "liftoff") {
      n.liftoff++;
      if (optimized.has(s.sym.slice(0, -"-liftoff".length))) n.liftoffHot++;
    } else if (background.has(s.tid)) {
      n.bg++;
      if (COMPILER.test(s.sym)) n.bgCompile++;
    }
  }
  return {
    liftoffMs: ms(n.liftoff),
    liftoffHotMs: ms(n.liftoffHot),
    turbofanMs: ms(n.turbofan),
    firstTurbofanMs: Number.isFinite(firstTurbofan) ? (firstTurbofan - firstGuest) * 1000 : NaN,
    bgCompileMs: ms(n.bgCompile),
    bgMs: ms(n.bg),
  };
}
