// A/B of group 13's programs (issue 29): whole CLI processes of one program,
// alternating two environments, with each run's output checked to be the
// same. Medians of the wall times, in ms.
//
//   node bench/ab-costs.js --program zstd-T2 --runs 7 --mib 64 \
//     --a WASI_THREAD_POOL_SPARE=0 --b WASI_THREAD_POOL_SPARE=1
//   node bench/ab-costs.js --program zstd-d --cli-a /tmp/old/bin/wasi-thread-pool.js
//
// --program: a name of bench/lib/program-costs.js's PROGRAMS (or several,
// comma-separated); --a/--b: NAME=VALUE pairs (comma-separated) added to the
// environment of that side's runs; --cli-a/--cli-b: the CLI that side runs
// (another checkout's bin/wasi-thread-pool.js; this one's by default).

import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { commandOf, inputFile, PROGRAMS } from "./lib/program-costs.js";

const { values } = parseArgs({
  options: {
    program: { type: "string", default: "zstd-d" },
    runs: { type: "string", default: "5" },
    mib: { type: "string", default: "64" },
    a: { type: "string", default: "" },
    b: { type: "string", default: "" },
    "cli-a": { type: "string" },
    "cli-b": { type: "string" },
  },
});

const envOf = (pairs) =>
  Object.fromEntries(
    pairs
      .split(",")
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );

function run(file, args, input, env) {
  const work = mkdtempSync(join(tmpdir(), "wtp-ab-"));
  const inFd = openSync(input, "r");
  const outFd = openSync(join(work, "out"), "w");
  const start = process.hrtime.bigint();
  const child = spawnSync(file, args, { stdio: [inFd, outFd, "pipe"], env: { ...process.env, ...env } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  closeSync(inFd);
  closeSync(outFd);
  const digest = createHash("md5")
    .update(readFileSync(join(work, "out")))
    .digest("hex");
  rmSync(work, { recursive: true, force: true });
  if (child.status !== 0) throw new Error(`${args.join(" ")}: status ${child.status}: ${String(child.stderr).slice(0, 300)}`);
  return { ms, digest };
}

const median = (list) => [...list].sort((x, y) => x - y)[list.length >> 1];
const sides = { a: envOf(values.a), b: envOf(values.b) };
const clis = { a: values["cli-a"], b: values["cli-b"] };

for (const name of values.program.split(",")) {
  if (!PROGRAMS[name]) throw new RangeError(`--program: unknown program ${JSON.stringify(name)}`);
  const input = inputFile(PROGRAMS[name].input, Number(values.mib));
  const [file, args] = await commandOf(name, "runner");
  const times = { a: [], b: [] };
  const digests = new Set();
  for (let i = 0; i < Number(values.runs); i++) {
    for (const side of i % 2 ? ["b", "a"] : ["a", "b"]) {
      const sideArgs = clis[side] ? [clis[side], ...args.slice(1)] : args;
      const { ms, digest } = run(file, sideArgs, input, sides[side]);
      times[side].push(ms);
      digests.add(digest);
    }
  }
  const fmt = (list) => `${median(list).toFixed(1)} ms (${list.map((t) => t.toFixed(0)).join(" ")})`;
  console.log(`${name}: a ${fmt(times.a)} | b ${fmt(times.b)} | outputs ${digests.size === 1 ? "identical" : "DIFFER"}`);
}
