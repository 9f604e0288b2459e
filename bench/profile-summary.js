#!/usr/bin/env node
// Sums the self time of V8 CPU profiles (node --cpu-prof writes one per
// thread, workers included) by function, and prints the top entries with
// their share of the sampled time: where a run's CPU went, in one table.
//
//   node --cpu-prof --cpu-prof-dir=DIR bin/wasi-thread-pool.js run app.wasm ...
//   node bench/profile-summary.js DIR [--top=N] [--by=function|url]

import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

const argv = process.argv.slice(2);
const dir = argv.find((a) => !a.startsWith("--"));
if (!dir) {
  console.error("usage: node bench/profile-summary.js DIR [--top=N] [--by=function|url]");
  process.exit(2);
}
const top = Number(argv.find((a) => a.startsWith("--top="))?.slice(6) ?? 25);
const by = argv.find((a) => a.startsWith("--by="))?.slice(5) ?? "function";

const totals = new Map();
let all = 0;
const perFile = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  // Each sample is one interval of timeDeltas (us) spent in that node.
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let fileTotal = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const key =
      by === "url"
        ? basename(url || "(native)")
        : `${functionName || "(anonymous)"} ${url ? `${basename(url)}:${lineNumber + 1}` : ""}`.trim();
    totals.set(key, (totals.get(key) ?? 0) + us);
    all += us;
    if (functionName !== "(idle)") fileTotal += us;
  }
  perFile.push([file, fileTotal]);
}
console.log(`${perFile.length} profiles, ${(all / 1000).toFixed(0)} ms sampled`);
for (const [file, us] of perFile) console.log(`  ${file}: ${(us / 1000).toFixed(0)} ms not idle`);
const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
for (const [key, us] of rows)
  console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / all).toFixed(1).padStart(5)}%  ${key}`);
