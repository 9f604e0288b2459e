// A child process for test/embedder.test.js: one Node process that calls
// runWasiThreadsProgram again and again, as a server would, and reports what
// it saw as `RESULT <json>` on a line of its own to stdout. WTP_EMBEDDER
// picks the case, WTP_IMPL the pool implementation, WTP_RUNS the runs:
//   memory      the touch program (48 MiB of its memory written): the
//               resident set before and after each run, in bytes
//   ports       the start-returns program (a thread still runs on a worker
//               the main thread's worker spawned when _start returns):
//               MessagePorts alive (v8.queryObjects, after its collection),
//               active resources, OS threads and open descriptors, after a
//               first run and after WTP_RUNS more
//   concurrent  the writers-cat program, 8 runs at a time for WTP_RUNS
//               rounds, each with its own stdin: every run's stdout

import { readdirSync } from "node:fs";
import v8 from "node:v8";
import { MessagePort } from "node:worker_threads";
import { runWasiThreadsProgram } from "../../lib/index.js";
import { collector } from "./collector.js";
import { buildProgram } from "./program-guests.js";

const implementation = process.env.WTP_IMPL || undefined;
const runs = Number(process.env.WTP_RUNS);

async function run(bytes, options = {}) {
  const stdout = collector();
  const stderr = collector();
  const { exitCode } = await runWasiThreadsProgram(bytes, {
    implementation,
    stdin: null,
    ...options,
    stdout,
    stderr,
  });
  if (exitCode !== 0) throw new Error(`exit ${exitCode}: ${stderr.text()}`);
  return stdout.text();
}

// Entries of a /proc/self folder (Linux), -1 elsewhere.
function entries(folder) {
  try {
    return readdirSync(`/proc/self/${folder}`).length;
  } catch {
    return -1;
  }
}

function handles() {
  return {
    ports: v8.queryObjects(MessagePort, { format: "count" }),
    resources: process.getActiveResourcesInfo().length,
    threads: entries("task"),
    fds: entries("fd"),
  };
}

async function memoryCase() {
  const bytes = await buildProgram("touch");
  await run(bytes);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const before = process.memoryUsage.rss();
    await run(bytes);
    samples.push({ before, after: process.memoryUsage.rss() });
  }
  return { samples };
}

async function portsCase() {
  const bytes = await buildProgram("start-returns");
  await run(bytes);
  const first = handles();
  for (let i = 0; i < runs; i++) await run(bytes);
  return { first, last: handles() };
}

// Each run's stdin: lines that name the run (no "t<digit>": the writers'
// records are told apart by it).
const payload = (round, lane) => Array.from({ length: 40 }, (_, k) => `R${round}.L${lane}:${k}|${"x".repeat(k % 23)}\n`).join("");

async function concurrentCase() {
  const bytes = await buildProgram("writers-cat");
  const outputs = [];
  for (let round = 0; round < runs; round++) {
    const lanes = Array.from({ length: 8 }, (_, lane) => run(bytes, { stdin: payload(round, lane) }));
    outputs.push(await Promise.all(lanes));
  }
  return { outputs };
}

const cases = { memory: memoryCase, ports: portsCase, concurrent: concurrentCase };
const result = await cases[process.env.WTP_EMBEDDER]();
process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`);
