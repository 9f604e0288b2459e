// The spread of a program's runs: `runs` processes of `wasi-thread-pool run
// PROGRAM` one after another, each `pauseMs` after the previous one ended,
// and the figures of their wall and system times:
//
//   medianMs, maxMs       the runs' wall times
//   maxOverMedian         the slowest run against the median (the issue's
//                         target: under 2)
//   sysMedianMs, sysMaxMs the system (kernel) time of each run, from the
//                         children's times in /proc/self/stat (10 ms ticks)
//
// The pause is the point: a machine whose kernel hands free memory back to
// its hypervisor (free page reporting, 2 s after it is freed) makes a run
// that comes a few seconds after the last one touch memory the host must
// back again, which a run right after the last one does not
// (src/os/wtp_memory.h). Programs:
//
//   long-line  bench/guest/long-line.c over one 400 MB line (its memory
//              grows to 1 GiB by realloc: ripgrep's case), 2 threads
//   zstd-T2    zstd -T2 -3 over 64 MiB of tar (../shared/real-programs)
//
// Variants: "auto" (the runner as it ships), "huge"
// (WASI_THREAD_POOL_HUGE_PAGES=1: huge pages advised where the host takes
// free ones back too).

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPthreadProgram } from "./real-guests.js";
import { inputFile } from "./program-costs.js";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(repoDir, "bin", "wasi-thread-pool.js");
const REAL = resolve(repoDir, "..", "shared", "real-programs");
const dataDir = join(repoDir, ".tmp", "bench");
const TICK_MS = 10; // USER_HZ is 100 on every Linux

export const VARIANT_ENV = {
  auto: {},
  huge: { WASI_THREAD_POOL_HUGE_PAGES: "1" },
};

// long-line.wasm, built on demand with a 2 GiB maximum memory (a doubling
// buffer of 512 MiB and its copy): {wasm} or {skip: why}.
function buildLongLine() {
  const src = join(repoDir, "bench", "guest", "long-line.c");
  const built = buildPthreadProgram(src, join(dataDir, "long-line.wasm"), { maxMemory: 2147483648 });
  return built.skip ? built : { wasm: built.path };
}

// One line of `mib` MiB (a needle every 1,006 bytes), made once per size.
function lineFile(mib) {
  const path = join(dataDir, `long-line-${mib}m.txt`);
  if (existsSync(path)) return path;
  mkdirSync(dataDir, { recursive: true });
  const unit = Buffer.from(`${"a".repeat(1000)}needle`);
  const bytes = Buffer.alloc(mib << 20);
  for (let at = 0; at < bytes.length; at += unit.length) unit.copy(bytes, at);
  writeFileSync(path, bytes);
  return path;
}

// {args, input} of a program (the CLI's arguments after `run`), or {skip}.
export function programOf(program, mib) {
  if (program === "long-line") {
    const built = buildLongLine();
    return built.skip ? built : { args: [built.wasm, "needle", "2"], input: lineFile(mib) };
  }
  if (program === "zstd-T2") {
    const wasm = join(REAL, "zstd.wasm");
    if (!existsSync(wasm)) return { skip: `${wasm} not present` };
    return { args: [wasm, "-T2", "-3", "-c"], input: inputFile("tar", mib) };
  }
  throw new RangeError(`run-spread: unknown program ${JSON.stringify(program)}`);
}

// This process's children's user and system times so far, in ms.
function childTimes() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { userMs: Number(fields[13]) * TICK_MS, sysMs: Number(fields[14]) * TICK_MS };
}

const sorted = (list) => [...list].sort((a, b) => a - b);
const median = (list) => sorted(list)[list.length >> 1];

// One process: {wallMs, sysMs}. stdout goes to /dev/null (a program that
// compresses refuses a terminal, not a null device).
function timeRun(args, input, env) {
  const inFd = openSync(input, "r");
  const outFd = openSync("/dev/null", "w");
  const before = childTimes();
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, [CLI, "run", ...args], { stdio: [inFd, outFd, "pipe"], env });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  closeSync(inFd);
  closeSync(outFd);
  if (child.status !== 0) throw new Error(`${args.join(" ")}: status ${child.status}: ${String(child.stderr).slice(0, 300)}`);
  return { wallMs, sysMs: childTimes().sysMs - before.sysMs };
}

// The figures of `runs` runs of a program under a variant.
export async function runSpread(program, variant, { runs = 20, pauseMs = 3000, mib = 400 } = {}) {
  const { args, input } = programOf(program, mib);
  const env = { ...process.env, ...VARIANT_ENV[variant] };
  const walls = [];
  const sys = [];
  for (let i = 0; i < runs; i++) {
    await new Promise((done) => setTimeout(done, pauseMs));
    const { wallMs, sysMs } = timeRun(args, input, env);
    walls.push(wallMs);
    sys.push(sysMs);
  }
  const medianMs = median(walls);
  const maxMs = Math.max(...walls);
  return { medianMs, maxMs, maxOverMedian: maxMs / medianMs, sysMedianMs: median(sys), sysMaxMs: Math.max(...sys) };
}
