// The fixed costs of a run of a real program (issues 29 and 38): whole
// processes of `wasi-thread-pool run PROGRAM` against the same program native
// (Debian's build, where the machine has it) and `node -e 0`, the floor; and,
// for the runner, more runs that say where its time goes:
//
//   wallMs     median of `runs` processes, stdin from a file, stdout to one
//   slowestMs  the slowest of them
//   slowestRatio  slowestMs / wallMs (the spread rows: 20 runs in a row)
//
// Variants: "node" (node -e 0), "runner" (the CLI with its module cache warm:
// what every run after a module's first costs; the cache is in
// .tmp/bench/module-cache, filled by an untimed run first), "runner-cold"
// (the CLI with -C cache=n: a module's first run), "native".
//   breakdown one process with --cpu-prof (every thread) and the main
//             thread's marks (bench/lib/program-marks.js):
//     bootMs       process start -> the runner's first line (Node's boot)
//     loadMs       -> the guest's compile starts (the runner's modules, the
//                  module's checks, the Liftoff pass)
//     compileMs    the guest's compile (V8: its own threads)
//     instanceMs   the main thread's guest instance
//     runMs        -> the program's end (_start's work, the threads' too)
//     exitMs       the end -> the process is gone (seen by the parent)
//     workerStartMs  median over the pool workers: a worker's first sample
//                  -> its first guest instruction (Node's worker boot, the
//                  runner's worker modules, its instance), from its profile
//     guestMs      sampled time in guest code, every thread summed (the
//                  profiler's samples are wall intervals of a running
//                  thread: a guest blocked in memory.atomic.wait counts)
//     wasiMs       sampled time in the guest's imports (WASI calls, spawn)
//     gcMs         sampled time in V8's garbage collector
//     otherMs      the rest of the sampled time (Node, the runner's JS),
//                  idle excluded
//   and the tiers (bench/lib/program-tiers.js: one more run under perf):
//     liftoffMs, liftoffHotMs, turbofanMs, firstTurbofanMs, bgCompileMs, bgMs
// The profiled runs are slower than the wall runs (the profilers' cost):
// their parts say where the time goes, the wall figure says what it costs.

import { execFileSync, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFailedSkip, buildPthreadProgram } from "./real-guests.js";
import { SETTLED_MS } from "../../lib/program/module-cache.js";
import { perfCommand, tierFigures } from "./program-tiers.js";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(repoDir, "bin", "wasi-thread-pool.js");
const MARKS = join(repoDir, "bench", "lib", "program-marks.js");
// The built CLI (its module cache keys entries on it: lib/program/module-cache.js).
const BUILT_CLI = join(repoDir, "dist", "cli-main.cjs");
const REAL = resolve(repoDir, "..", "shared", "real-programs");
const dataDir = join(repoDir, ".tmp", "bench");
// Every run's environment: the runner's module cache in the bench's folder.
const RUN_ENV = { ...process.env, WASI_THREAD_POOL_CACHE_DIR: join(dataDir, "module-cache") };

// The hello world: a wasi-threads command that writes one line.
const HELLO_WAT = `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (data (i32.const 64) "hello, world\\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64)) (i32.store (i32.const 4) (i32.const 13))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "wasi_thread_start") (param i32 i32)))`;

// name -> {wasm, args, input ("tar" | "zst" | "gz" | null), native: [tool, args]}
export const PROGRAMS = {
  "zstd-V": { wasm: "zstd.wasm", args: ["-V"], input: null, native: ["zstd", ["-V"]] },
  "zstd-d": { wasm: "zstd.wasm", args: ["-d", "-c"], input: "zst", native: ["zstd", ["-d", "-c"]] },
  "zstd-T2": { wasm: "zstd.wasm", args: ["-T2", "-3", "-c"], input: "tar", native: ["zstd", ["-T2", "-3", "-c"]] },
  "pigz-d": { wasm: "pigz.wasm", args: ["-p", "2", "-d", "-c"], input: "gz", native: ["pigz", ["-p", "2", "-d", "-c"]] },
  "pigz-c": { wasm: "pigz.wasm", args: ["-p", "2", "-c"], input: "tar", native: ["pigz", ["-p", "2", "-c"]] },
  "pthread-pool": { wasm: "built", args: ["8", "20000", "9000"], input: null, native: ["built", ["8", "20000", "9000"]] },
  hello: { wasm: null, args: [], input: null, native: null },
};

// The pthreads pool (bench/guest/pthread-pool.c), built on demand for
// wasm32-wasi-threads (the flags of bench/lib/real-guests.js) and natively
// (gcc -pthread): {wasm, native} or {skip: why}.
function buildPool() {
  const src = join(repoDir, "bench", "guest", "pthread-pool.c");
  const native = join(dataDir, "pthread-pool");
  const built = buildPthreadProgram(src, join(dataDir, "pthread-pool.wasm"));
  if (built.skip) return built;
  try {
    if (!existsSync(native) || statSync(native).mtimeMs < statSync(src).mtimeMs) {
      execFileSync("gcc", ["-O2", "-pthread", src, "-o", native], { stdio: "pipe" });
    }
  } catch (error) {
    return buildFailedSkip(error);
  }
  return { wasm: built.path, native };
}

function which(tool) {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir && existsSync(join(dir, tool))) return join(dir, tool);
  return null;
}

// Why the native variant cannot run here (a tool the machine lacks), or
// null; cheap: nothing is built (the plan asks it).
export function nativeToolMissing(name) {
  const tool = PROGRAMS[name].native?.[0];
  if (!tool) return "no native counterpart";
  if (tool !== "built" && !which(tool)) return `${tool} is not installed on this machine`;
  return null;
}

// Why a variant cannot run here, or null.
export function programCostsMissing(name, variant) {
  const program = PROGRAMS[name];
  if (!program) throw new RangeError(`program-costs: unknown program ${JSON.stringify(name)}`);
  if (program.wasm === "built") {
    const built = buildPool();
    if (built.skip) return built.skip;
  } else if (program.wasm && !existsSync(join(REAL, program.wasm))) return `${join(REAL, program.wasm)} not present`;
  if (variant === "native") {
    if (!program.native) return "no native counterpart";
    if (program.native[0] !== "built" && !which(program.native[0]))
      return `${program.native[0]} is not installed on this machine`;
  }
  if (program.input === "zst" && !which("zstd")) return "zstd (to make the input) is not installed";
  if (program.input === "gz" && !which("gzip")) return "gzip (to make the input) is not installed";
  return null;
}

// The input: the first MiB of a tar of /usr/lib (real files, compressible
// as real data is), made once per size; compressed by the system's tools.
export function inputFile(kind, mib) {
  if (kind === null) return "/dev/null";
  mkdirSync(dataDir, { recursive: true });
  const tar = join(dataDir, `costs-${mib}m.tar`);
  if (!existsSync(tar)) {
    const bytes = execFileSync("sh", ["-c", `tar cf - -C /usr/lib . 2>/dev/null | head -c ${mib * 2 ** 20}`], {
      maxBuffer: 2 ** 31,
    });
    if (bytes.length < mib * 2 ** 20) throw new Error(`a tar of /usr/lib has fewer than ${mib} MiB`);
    writeFileSync(tar, bytes);
  }
  if (kind === "tar") return tar;
  const out = `${tar}.${kind}`;
  if (!existsSync(out)) writeFileSync(out, execFileSync(kind === "zst" ? "zstd" : "gzip", ["-c", tar], { maxBuffer: 2 ** 31 }));
  return out;
}

async function helloFile() {
  const path = join(dataDir, "costs-hello.wasm");
  if (!existsSync(path)) {
    const { watToBytes } = await import("../../test/fixtures/build.js");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, await watToBytes(HELLO_WAT, "hello.wat"));
  }
  return path;
}

// One process: its wall time in ms. stdout goes to a file (a program that
// compresses refuses a terminal; /dev/null is one to WASI).
function timeProcess(file, args, input, env = RUN_ENV) {
  const work = mkdtempSync(join(tmpdir(), "wtp-costs-"));
  const inFd = openSync(input, "r");
  const outFd = openSync(join(work, "out"), "w");
  const start = process.hrtime.bigint();
  const child = spawnSync(file, args, { stdio: [inFd, outFd, "pipe"], env });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  closeSync(inFd);
  closeSync(outFd);
  rmSync(work, { recursive: true, force: true });
  if (child.status !== 0) throw new Error(`${args.join(" ")}: status ${child.status}: ${String(child.stderr).slice(0, 300)}`);
  return wallMs;
}

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];

export async function commandOf(name, variant) {
  const program = PROGRAMS[name];
  if (variant === "node") return [process.execPath, ["-e", "0"]];
  if (variant === "runner-cold") {
    const [file, args] = await commandOf(name, "runner");
    return [file, [CLI, "run", "-C", "cache=n", ...args.slice(2)]];
  }
  const built = program.wasm === "built" ? buildPool() : null;
  if (variant === "native") return [built ? built.native : which(program.native[0]), program.native[1]];
  const wasm = built ? built.wasm : program.wasm ? join(REAL, program.wasm) : await helloFile();
  return [process.execPath, [CLI, "run", wasm, ...program.args]];
}

// The figures of one variant of one program: {wallMs, slowestMs,
// slowestRatio} (and the runner's breakdown, unless `breakdown` is false).
export async function programCosts(name, variant, { runs = 3, mib = 64, breakdown: parts = true } = {}) {
  const input = inputFile(PROGRAMS[name].input, mib);
  const [file, args] = await commandOf(name, variant);
  if (variant === "runner") await warmModuleCache(file, args, input);
  const walls = [];
  for (let i = 0; i < runs; i++) walls.push(timeProcess(file, args, input));
  const wallMs = median(walls);
  const slowestMs = Math.max(...walls);
  const figures = { wallMs, slowestMs, slowestRatio: slowestMs / wallMs };
  if (variant === "runner" && parts) Object.assign(figures, breakdown(file, args, input));
  return figures;
}

// The module cache keeps an entry only for files last changed SETTLED_MS
// before they are read (the module and the built CLI, which the bench may
// have just built): wait for that, then one untimed run.
async function warmModuleCache(file, args, input) {
  const module = args[2];
  const changed = [module, BUILT_CLI].filter(existsSync).map((path) => {
    const s = statSync(path);
    return Math.max(s.mtimeMs, s.ctimeMs);
  });
  const wait = Math.max(0, ...changed.map((at) => at + SETTLED_MS + 100 - Date.now()));
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  timeProcess(file, args, input);
}

// The runner three times more: marked (the main thread's phases and the
// exit), profiled (where the CPU goes; the profiles' writing at exit and the
// profiler's cost make that run slower: its wall time is not a figure), and
// under perf (the tiers).
function breakdown(file, args, input) {
  const work = mkdtempSync(join(tmpdir(), "wtp-costs-prof-"));
  const marksFile = join(work, "marks.json");
  try {
    const markedMs = timeProcess(file, [`--import=${MARKS}`, ...args], input, { ...RUN_ENV, WTP_MARKS_FILE: marksFile });
    const marks = existsSync(marksFile) ? JSON.parse(readFileSync(marksFile, "utf8")) : null;
    timeProcess(file, ["--cpu-prof", `--cpu-prof-dir=${join(work, "prof")}`, ...args], input);
    const profiles = readdirSync(join(work, "prof")).map((f) => JSON.parse(readFileSync(join(work, "prof", f), "utf8")));
    return { ...markFigures(marks, markedMs), ...profileFigures(profiles), ...tiers(file, args, input, work) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// The tiers' figures, or none where perf cannot run here.
function tiers(file, args, input, work) {
  try {
    timeProcess(...perfCommand(file, args, work), input);
  } catch {
    return {}; // no perf, or not allowed: the figures are left out
  }
  return tierFigures(work);
}

function markFigures(marks, wallMs) {
  if (!marks || marks.compile.length === 0) return {};
  // The guest's compile: the longest (the Liftoff probe's module is compiled too).
  const compile = marks.compile.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a));
  const instance = marks.instance.find(([start]) => start >= compile[1]) ?? [compile[1], compile[1]];
  const end = marks.exit ?? NaN;
  return {
    bootMs: marks.boot,
    loadMs: compile[0] - marks.boot,
    compileMs: compile[1] - compile[0],
    instanceMs: instance[1] - instance[0],
    runMs: end - instance[1],
    exitMs: wallMs - end,
  };
}

const isWasm = (node) => node.callFrame.url.startsWith("wasm://");

// Per profile (one per thread): samples classified by their stack.
function profileFigures(profiles) {
  const sampled = { guest: 0, wasi: 0, gc: 0, other: 0 };
  const workerStarts = [];
  let main = null;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const inWasm = (id) => {
      for (let at = parent.get(id); at !== undefined; at = parent.get(at)) if (isWasm(nodes.get(at))) return true;
      return false;
    };
    let elapsed = 0;
    let firstGuest = null;
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id);
      const us = profile.timeDeltas[i] ?? 0;
      elapsed += us;
      const name = node.callFrame.functionName;
      if (name === "(idle)" || name === "(program)") return;
      if (isWasm(node)) {
        sampled.guest += us;
        firstGuest ??= elapsed;
      } else if (name === "(garbage collector)") sampled.gc += us;
      else if (inWasm(id)) sampled.wasi += us;
      else sampled.other += us;
    });
    // The main thread's profile starts first; the workers' later.
    if (main === null || profile.startTime < main.startTime) {
      if (main !== null && main.firstGuest !== null) workerStarts.push(main.firstGuest);
      main = { startTime: profile.startTime, firstGuest };
    } else if (firstGuest !== null) workerStarts.push(firstGuest);
  }
  const ms = (us) => us / 1000;
  return {
    workers: profiles.length - 1,
    workerStartMs: workerStarts.length ? ms(median(workerStarts)) : NaN,
    guestMs: ms(sampled.guest),
    wasiMs: ms(sampled.wasi),
    gcMs: ms(sampled.gc),
    otherMs: ms(sampled.other),
  };
}
