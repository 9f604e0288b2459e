// The runner's measurements (docs/runner.md, "Threads and
// workers"), for the bench rows (bench/scenarios/runner.js,
// group 11 of bench/lib/runner-plan.js). Each
// runs whole processes: the CLI on guest/out/spawn.wasm (guest/spawn/spawn.c),
// the same program built with gcc -pthread (guest/out/spawn-native), or plain
// Node scripts, and times them from here (wall) and with /usr/bin/time (peak
// RSS; NaN where it is missing).
//
//   startup(variant)          "runner": `wasi-thread-pool run` of a module whose
//                             _start returns at once; "node": `node -e 0`
//   burst(variant, {threads}) `spawn burst N`: "default" settings, "fixed": the
//                             best of --pool 1, 2, 4 and 8 (time and RSS apart),
//                             "native"
//   alive(variant, {n})       `spawn alive n` minus `spawn alive 1`, per thread:
//                             "runner", "bare" (n empty workers kept alive),
//                             "native"
//   starts(variant, {n})      spawn -> first instruction of a thread that needs
//                             a worker of its own (`spawn starts n`), ms: "runner",
//                             "bare" (new Worker -> its first message, one
//                             after another, each kept alive), "native"
//   together(variant, {n})    spawn -> first instruction of n threads created
//                             back to back, each staying alive (`spawn together
//                             n`), ms: "runner", "bare" (n new Workers at once,
//                             each to its first message), "native"
// Each takes {runs}: that many runs per figure, medians.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { watToBytes } from "../../test/fixtures/build.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(root, "bin/wasi-thread-pool.js");
const WASM = join(root, "guest/out/spawn.wasm");
const NATIVE = join(root, "guest/out/spawn-native");
const TIME = "/usr/bin/time";
const node = process.execPath;

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

// Builds the guests if needed; a reason to skip, or null.
export function runnerRowsMissing({ native = false } = {}) {
  if (!existsSync(WASM) || (native && !existsSync(NATIVE))) {
    try {
      execFileSync("sh", ["scripts/build-c-guests.sh"], { cwd: root, stdio: "ignore" });
    } catch {
      // said below
    }
  }
  if (!existsSync(WASM)) return "guest/out/spawn.wasm not built (clang-19 and ../shared/wasi-threads-sysroot)";
  if (native && !existsSync(NATIVE)) return "guest/out/spawn-native not built (no gcc)";
  return null;
}

let scratch = null;
function files() {
  if (scratch) return scratch;
  const dir = mkdtempSync(join(tmpdir(), "wtp-runner-rows-"));
  const bare = join(dir, "bare-workers.mjs");
  // n empty workers started at once and kept alive until all have started
  // ("alive"; "together" times each from its new Worker to its first
  // message), or one after another, each timed to its first message
  // ("starts"), printed in ms as spawn's modes print.
  writeFileSync(
    bare,
    `import { Worker } from "node:worker_threads";
const [mode, count] = [process.argv[2], Number(process.argv[3])];
const hold = new Int32Array(new SharedArrayBuffer(4));
const source = 'const { parentPort, workerData } = await import("node:worker_threads"); parentPort.postMessage(0); Atomics.wait(workerData.hold, 0, 0);';
const start = () => new Worker(source, { eval: true, workerData: { hold } });
const first = (w) => new Promise((resolve) => w.once("message", resolve));
const workers = [];
if (mode === "alive" || mode === "together") {
  const asked = [];
  for (let i = 0; i < count; i++) {
    asked.push(performance.now());
    workers.push(start());
  }
  const took = await Promise.all(workers.map((w, i) => first(w).then(() => performance.now() - asked[i])));
  if (mode === "together") took.forEach((ms, i) => console.log("together: thread " + (i + 1) + " started " + ms.toFixed(1) + " ms after new Worker"));
} else {
  for (let i = 0; i < count; i++) {
    const asked = performance.now();
    workers.push(start());
    await first(workers[i]);
    console.log("starts: thread " + (i + 1) + " started " + (performance.now() - asked).toFixed(1) + " ms after new Worker");
  }
}
Atomics.store(hold, 0, 1);
Atomics.notify(hold, 0);
`,
  );
  scratch = { dir, bare, empty: join(dir, "empty.wasm") };
  return scratch;
}

async function emptyProgram() {
  const { empty } = files();
  if (!existsSync(empty)) {
    const wat = `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func (param i32) (result i32)))
  (func (export "_start"))
  (func (export "wasi_thread_start") (param i32 i32)))`;
    writeFileSync(empty, await watToBytes(wat));
  }
  return empty;
}

// One process: {wallMs, rssMiB, stdout}.
function run(command, args) {
  const timed = existsSync(TIME);
  const started = process.hrtime.bigint();
  const r = timed
    ? spawnSync(TIME, ["-f", "WTP_TIME %M", command, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    : spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(" ")}: exit ${r.status ?? r.signal}: ${r.stderr.trim().slice(-400)}`);
  const line = r.stderr.split("\n").find((l) => l.startsWith("WTP_TIME "));
  return { wallMs, rssMiB: line ? Number(line.split(" ")[1]) / 1024 : NaN, stdout: r.stdout };
}

// Medians of `runs` runs of the command.
function medianRun(command, args, runs) {
  const seen = Array.from({ length: runs }, () => run(command, args));
  return { wallMs: median(seen.map((m) => m.wallMs)), rssMiB: median(seen.map((m) => m.rssMiB)), runs: seen };
}

export async function startup(variant, { runs = 5 } = {}) {
  const args = variant === "node" ? ["-e", "0"] : [CLI, "run", await emptyProgram()];
  const m = medianRun(node, args, runs);
  return { wallMs: m.wallMs, rssMiB: m.rssMiB };
}

const spawnCommand = (variant, args) =>
  variant === "native"
    ? [NATIVE, args]
    : [node, [CLI, "run", ...(variant.pool ? ["--pool", String(variant.pool)] : []), WASM, ...args]];

export function burst(variant, { threads = 10000, runs = 3 } = {}) {
  const args = ["burst", String(threads)];
  if (variant !== "fixed") {
    const m = medianRun(...spawnCommand(variant === "native" ? "native" : {}, args), runs);
    return { wallMs: m.wallMs, rssMiB: m.rssMiB };
  }
  // The best fixed pool, in time and in RSS apart (each a median).
  const pools = [1, 2, 4, 8].map((pool) => ({ pool, ...medianRun(...spawnCommand({ pool }, args), runs) }));
  const fastest = pools.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  const leanest = pools.reduce((a, b) => (b.rssMiB < a.rssMiB ? b : a));
  return { wallMs: fastest.wallMs, rssMiB: leanest.rssMiB, fastestPool: fastest.pool, leanestPool: leanest.pool };
}

function aliveCommand(variant, n) {
  if (variant === "bare") return [node, [files().bare, "alive", String(n)]];
  return spawnCommand(variant === "native" ? "native" : {}, ["alive", String(n)]);
}

// Per thread alive: (n threads - 1 thread) / (n - 1), runs interleaved.
export function alive(variant, { n = 16, runs = 5 } = {}) {
  const many = [];
  const one = [];
  for (let i = 0; i < runs; i++) {
    many.push(run(...aliveCommand(variant, n)));
    one.push(run(...aliveCommand(variant, 1)));
  }
  const per = (key) => (median(many.map((m) => m[key])) - median(one.map((m) => m[key]))) / (n - 1);
  return { perThreadMs: per("wallMs"), perThreadRssMiB: per("rssMiB") };
}

// spawn's `mode n` (starts, together) or the bare workers' same mode, `runs`
// times: each run's n stamps (ms from a thread's spawn to its start).
function stampsOf(mode, variant, n, runs) {
  const command =
    variant === "bare"
      ? [node, [files().bare, mode, String(n)]]
      : spawnCommand(variant === "native" ? "native" : {}, [mode, String(n)]);
  return Array.from({ length: runs }, () => {
    const ms = [...run(...command).stdout.matchAll(/started ([\d.]+) ms/g)].map((m) => Number(m[1]));
    if (ms.length !== n) throw new Error(`${mode}: ${ms.length} stamps of ${n}`);
    return ms;
  });
}

// Spawn -> first instruction of threads that each need a new worker: the
// median and the largest over every thread of every run.
export function starts(variant, { n = 8, runs = 3 } = {}) {
  const ms = stampsOf("starts", variant, n, runs).flat();
  return { startMs: median(ms), startMaxMs: Math.max(...ms) };
}

// Spawn -> first instruction of n threads created back to back, each staying
// alive (crossbeam-channel's tick tests' shape, at n threads): every thread's
// (median), and the slowest thread's of each run (median of the runs: how
// long the burst stalls its program).
export function together(variant, { n = 64, runs = 3 } = {}) {
  const seen = stampsOf("together", variant, n, runs);
  return { startMs: median(seen.flat()), slowestMs: median(seen.map((ms) => Math.max(...ms))) };
}
