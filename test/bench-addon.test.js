// The benchmark's check that the addon it measures is a build of src/
// (bench/lib/addon-source.js). It used to compare file times, which a git
// clone resets, so a fresh clone's prebuild was reported "older than src/: a
// stale build". It compares content now: a build of the same sources matches
// whatever its file times, and a build of other sources does not.
//
// Works on a scratch copy of binding.gyp + src/ so that the committed
// prebuild (which may lag src/ between a C change and its regeneration) plays
// no part. Skipped where node-gyp cannot build (no compiler): the check then
// reports "not compared", which the last test covers.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { compareAddonWithSources } from "../bench/lib/addon-source.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function scratchRepo(t) {
  const dir = mkdtempSync(join(tmpdir(), "wtp-bench-addon-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const entry of ["binding.gyp", "src", "package.json"]) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  return dir;
}

// node-gyp rebuild in `dir`, as scripts/install.js runs it; null if it cannot.
function build(dir) {
  const script = join(
    dirname(process.execPath),
    "..",
    "lib",
    "node_modules",
    "npm",
    "node_modules",
    "node-gyp",
    "bin",
    "node-gyp.js",
  );
  const [command, ...pre] = existsSync(script) ? [process.execPath, script] : ["node-gyp"];
  const prefix = join(dirname(process.execPath), "..");
  const args = [...pre, "rebuild"];
  if (existsSync(join(prefix, "include", "node", "common.gypi"))) args.push(`--nodedir=${prefix}`);
  const r = spawnSync(command, args, { cwd: dir, encoding: "utf8" });
  const addon = join(dir, "build", "Release", "wasi_thread_pool.node");
  return r.status === 0 && existsSync(addon) ? addon : null;
}

test("a build of the same sources matches, however old its file looks; a build of other sources does not", (t) => {
  const repo = scratchRepo(t);
  const built = build(repo);
  if (built === null) return t.skip("node-gyp cannot build the addon here");
  const addon = join(mkdtempSync(join(tmpdir(), "wtp-bench-addon-")), "measured.node");
  t.after(() => rmSync(dirname(addon), { recursive: true, force: true }));
  cpSync(built, addon);
  rmSync(join(repo, "build"), { recursive: true, force: true });
  // Older than every source file: what a clone can look like.
  utimesSync(addon, new Date(0), new Date(0));
  const same = compareAddonWithSources(addon, repo);
  assert.equal(same.matchesSrc, true, same.note);
  assert.match(same.note, /identical/);

  // The sources move on (a new function in the core): the old build is stale.
  appendFileSync(join(repo, "src", "core", "wtp_pool.c"), "\nint wtp__bench_check_marker(void) { return 42; }\n");
  const stale = compareAddonWithSources(addon, repo);
  assert.equal(stale.matchesSrc, false, stale.note);
  assert.match(stale.note, /differs from a fresh build of src\//);
});

test("when the sources cannot be built, nothing is claimed either way", (t) => {
  const repo = scratchRepo(t);
  appendFileSync(join(repo, "src", "core", "wtp_pool.c"), "\n#error not a buildable source\n");
  const r = compareAddonWithSources(join(ROOT, "package.json"), repo);
  assert.equal(r.matchesSrc, null);
  assert.match(r.note, /node-gyp rebuild of src\/ failed/);
});
