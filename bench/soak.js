// The full soak (the quick version runs in test/soak.test.js): on each pool
// implementation,
//   - spawn soak: 3 spawner threads through 4 serving workers, 1,000,000
//     spawns in total over the pool API; every tid must run exactly once with
//     its own start argument, with no decline (spawnWaitMs 60 s);
//   - lifecycle soak: 1,000 cycles of createWasiThreadSpawn -> a small real
//     guest run -> terminateAll in a child process, with RSS and the OS
//     thread count after a 5-cycle warm-up and at the end.
// Prints the figures (and one "JSON <...>" line); exits 1 if any check fails.
//
//   node bench/soak.js [--spawns N] [--cycles N] [--impl native|js]

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { machineInfo } from "./lib/machine.js";
import { getWasiThreadPoolImplementation } from "../lib/pool.js";
import { runSpawnSoak } from "../test/support/soak-spawn.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const LIFECYCLE_SCRIPT = fileURLToPath(new URL("../test/support/soak-lifecycle.js", import.meta.url));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const spawns = Number(option("spawns", 1000000));
const cycles = Number(option("cycles", 1000));
const warmup = 5;
const native = getWasiThreadPoolImplementation().native;
const implementations = option("impl", null) ? [option("impl")] : native.available ? ["native", "js"] : ["js"];

// Same bounds as the quick test (test/soak.test.js).
const THREAD_TOLERANCE = 0;
const RSS_TOLERANCE = 48 * 1024 * 1024;

function runLifecycle(implementation) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", LIFECYCLE_SCRIPT, implementation, String(cycles), String(warmup)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      if (code !== 0 || !line) reject(new Error(`lifecycle soak (${implementation}) exited ${code} (${signal})`));
      else resolve(JSON.parse(line.slice(7)));
    });
  });
}

const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
}

const machine = machineInfo(root);
console.log(
  `# soak: ${machine.cpuModel}, ${machine.cores} cores, ${machine.platform}, Node ${machine.node}, load ${machine.loadAverage.join(" ")}, commit ${machine.commit}`,
);
console.log(`# node bench/soak.js --spawns ${spawns} --cycles ${cycles}`);

const results = { machine, spawns: [], lifecycles: [] };
for (const implementation of implementations) {
  console.log(`\n## ${implementation}`);
  const s = await runSpawnSoak({
    implementation,
    total: spawns,
    spawners: 3,
    servers: 4,
    spawnWaitMs: 60000,
    watchdogMs: 1800000,
  });
  results.spawns.push(s);
  console.log(
    `spawn soak: ${s.spawned} spawns (3 spawners x 4 servers) in ${(s.ms / 1000).toFixed(2)} s = ${Math.round(s.spawnsPerSecond)} spawns/s; ` +
      `declines ${s.declines}, lost ${s.lost}, duplicated ${s.duplicated}, wrong argument ${s.wrongArg}; ` +
      `waited ${s.report.waited}; workers ${s.report.workers}`,
  );
  check(
    s.spawned === spawns && s.declines === 0 && s.lost === 0 && s.duplicated === 0 && s.wrongArg === 0,
    `${implementation} spawn soak`,
  );

  const l = await runLifecycle(implementation);
  results.lifecycles.push(l);
  const slopeKiB = (l.end.rss - l.start.rss) / 1024 / l.cycles;
  console.log(
    `lifecycle soak: ${l.cycles} cycles (after ${l.warmup} warm-up) in ${(l.ms / 1000).toFixed(1)} s = ${l.msPerCycle.toFixed(0)} ms/cycle; ` +
      `${l.spawns} guest threads on ${l.workers} workers; ` +
      `OS threads ${l.start.threads} -> ${l.end.threads} (peak ${l.peakThreads} with a guest running; ${l.threadsAtLaunch} at launch); ` +
      `RSS ${mib(l.start.rss)} -> ${mib(l.end.rss)} MiB (peak ${mib(l.peakRss)}; ${mib(l.rssAtLaunch)} at launch; ${slopeKiB.toFixed(1)} KiB/cycle)`,
  );
  check(l.end.threads <= l.start.threads + THREAD_TOLERANCE, `${implementation} lifecycle threads`);
  check(l.end.rss - l.start.rss <= RSS_TOLERANCE, `${implementation} lifecycle RSS`);
}

console.log(`\nJSON ${JSON.stringify(results)}`);
if (failures.length > 0) {
  console.log(`FAILED: ${failures.join(", ")}`);
  process.exit(1);
}
