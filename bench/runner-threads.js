// Threads of programs run by the runner against their targets (issue 19;
// docs/runner.md, "Threads and workers" and "What a thread costs"):
//
//   node bench/runner-threads.js [--runs N] [--alive N]
//
// Rows (medians of --runs runs, interleaved; wall time and peak RSS of the
// whole process from /usr/bin/time):
//   start-up      `wasi-thread-pool run empty.wasm` (_start returns at once)
//                 against `node -e 0`; target <= 1.5x
//   burst         guest/out/spawn.wasm `burst 10000` (10,000 short threads)
//                 on the default settings against the best of --pool 1, 2,
//                 4, 8; target <= 2x in time and in peak RSS
//   per thread    `alive N` minus `alive 1`, per thread, against N bare
//                 workers minus 1 (a script that starts empty workers and
//                 keeps them alive); target <= 1.25x in time and RSS
//   native        the same C program built with gcc -pthread
//                 (guest/out/spawn-native), where it was built
// Needs guest/out/spawn.wasm (scripts/build-c-guests.sh) and /usr/bin/time.
// The machine's load is not controlled: say so when quoting.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { watToBytes } from "../test/fixtures/build.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const runs = option("--runs", 5);
const alive = option("--alive", 16);
const CLI = join(root, "bin/wasi-thread-pool.js");
const WASM = join(root, "guest/out/spawn.wasm");
const NATIVE = join(root, "guest/out/spawn-native");
const TIME = "/usr/bin/time";

if (!existsSync(WASM)) execFileSync("sh", ["scripts/build-c-guests.sh"], { cwd: root, stdio: "inherit" });
if (!existsSync(WASM) || !existsSync(TIME)) {
  console.log("runner-threads: needs guest/out/spawn.wasm (clang-19 and the sysroot) and /usr/bin/time; skipped");
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "wtp-runner-threads-"));
const EMPTY = join(dir, "empty.wasm");
writeFileSync(
  EMPTY,
  await watToBytes(`(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func (param i32) (result i32)))
  (func (export "_start"))
  (func (export "wasi_thread_start") (param i32 i32)))`),
);
const BARE = join(dir, "bare-workers.mjs");
writeFileSync(
  BARE,
  `import { Worker } from "node:worker_threads";
const n = Number(process.argv[2]);
const hold = new Int32Array(new SharedArrayBuffer(4));
const source = 'const { parentPort, workerData } = await import("node:worker_threads"); parentPort.postMessage(0); Atomics.wait(workerData.hold, 0, 0);';
const workers = [];
for (let i = 0; i < n; i++) workers.push(new Worker(source, { eval: true, workerData: { hold } }));
await Promise.all(workers.map((w) => new Promise((resolve) => w.once("message", resolve))));
Atomics.store(hold, 0, 1);
Atomics.notify(hold, 0);
`,
);

// {wall s, rss MiB} of one run.
function measure(command, args) {
  const r = spawnSync(TIME, ["-f", "TIME %e %M", command, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  const line = r.stderr.split("\n").find((l) => l.startsWith("TIME "));
  if (r.status !== 0 || !line) throw new Error(`${command} ${args.join(" ")} failed: ${r.stderr}`);
  const [, wall, kb] = line.split(" ");
  return { wall: Number(wall), rss: Number(kb) / 1024 };
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

// Medians of every case, the cases interleaved run by run.
function medians(cases) {
  const seen = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [name, [cmd, args]] of Object.entries(cases)) seen[name].push(measure(cmd, args));
  return Object.fromEntries(
    Object.entries(seen).map(([name, list]) => [
      name,
      { wall: median(list.map((m) => m.wall)), rss: median(list.map((m) => m.rss)) },
    ]),
  );
}

const node = process.execPath;
const hasNative = existsSync(NATIVE);
const rows = [];
const ratio = (a, b) => (a / b).toFixed(2);

const start = medians({ runner: [node, [CLI, "run", EMPTY]], node: [node, ["-e", "0"]] });
rows.push(["start-up (s)", start.runner.wall, start.node.wall, ratio(start.runner.wall, start.node.wall), "<= 1.5"]);

const burstCases = { default: [node, [CLI, "run", WASM, "burst", "10000"]] };
for (const pool of [1, 2, 4, 8])
  burstCases[`pool ${pool}`] = [node, [CLI, "run", "--pool", String(pool), WASM, "burst", "10000"]];
if (hasNative) burstCases.native = [NATIVE, ["burst", "10000"]];
const burst = medians(burstCases);
const fixed = [1, 2, 4, 8].map((p) => burst[`pool ${p}`]);
const bestWall = Math.min(...fixed.map((m) => m.wall));
const bestRss = Math.min(...fixed.map((m) => m.rss));
rows.push(["burst 10,000: wall (s)", burst.default.wall, bestWall, ratio(burst.default.wall, bestWall), "<= 2"]);
rows.push(["burst 10,000: peak RSS (MiB)", burst.default.rss, bestRss, ratio(burst.default.rss, bestRss), "<= 2"]);

const aliveCases = {
  runnerN: [node, [CLI, "run", WASM, "alive", String(alive)]],
  runner1: [node, [CLI, "run", WASM, "alive", "1"]],
  bareN: [node, [BARE, String(alive)]],
  bare1: [node, [BARE, "1"]],
};
if (hasNative) Object.assign(aliveCases, { nativeN: [NATIVE, ["alive", String(alive)]], native1: [NATIVE, ["alive", "1"]] });
const a = medians(aliveCases);
const per = (n, one, key) => (a[n][key] - a[one][key]) / (alive - 1);
const perWall = per("runnerN", "runner1", "wall") * 1000;
const perBareWall = per("bareN", "bare1", "wall") * 1000;
const perRss = per("runnerN", "runner1", "rss");
const perBareRss = per("bareN", "bare1", "rss");
rows.push([`per thread alive (${alive}): wall (ms)`, perWall, perBareWall, ratio(perWall, perBareWall), "<= 1.25"]);
rows.push([`per thread alive (${alive}): RSS (MiB)`, perRss, perBareRss, ratio(perRss, perBareRss), "<= 1.25"]);

const fmt = (v) => (typeof v === "number" ? v.toFixed(3) : v);
console.log(
  `runs ${runs}, load average ${(await import("node:os"))
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(" ")}`,
);
console.log("| row | runner | against | ratio | target |\n| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(`| ${row.map(fmt).join(" | ")} |`);
console.log(
  `| against: node -e 0; the best fixed --pool; N bare workers | | | | |\n` +
    (hasNative
      ? `| native (gcc -pthread): burst ${burst.native.wall.toFixed(3)} s, ${burst.native.rss.toFixed(1)} MiB; per thread alive ${(per("nativeN", "native1", "wall") * 1000).toFixed(3)} ms, ${per("nativeN", "native1", "rss").toFixed(3)} MiB | | | | |`
      : "| native: not built (no gcc) | | | | |"),
);
rmSync(dir, { recursive: true, force: true });
