// The README's first command on a fresh clone (issue 28): `npm run bench`
// builds what it needs from the repository, skips only what the machine
// lacks, exits 0, and leaves `git status` clean; and a checkout whose pool
// workers are not built yet (dist/ absent) runs the host and the runner on
// the workers' source modules.
//
// The clone is a local `git clone` of this checkout at its HEAD commit (no
// network; uncommitted changes are not in it). Its node_modules is a symbolic
// link to this checkout's: `npm install` in the clone would take minutes and
// test npm, not the bench; the bench's own builds (dist/, guest/out/) and
// outputs (.tmp/bench/) are the point. The addon measured is this checkout's
// (--addon), which spares the bench its comparison with a fresh build of src/.
// The bench runs in quick mode on the rows that failed for a missing build of
// ours (slot-wait-guest: guest/out/thread-wave.wasm), plus the C scan.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { native } from "../lib/native/binding.js";
import { WORKER_ENTRIES } from "../lib/worker/entries.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const git = (args, cwd) => spawnSync("git", args, { cwd, encoding: "utf8" });
const head = git(["rev-parse", "HEAD"], ROOT);
const skip =
  head.status !== 0
    ? "not a git checkout (or no git): nothing to clone"
    : !existsSync(join(ROOT, "node_modules", "esbuild"))
      ? "node_modules/esbuild is not installed (npm ci)"
      : false;
if (skip && process.env.CI === "true") throw new Error(`bench-fresh-clone: ${skip}`);

let work;
let clone;
before(() => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), "wtp-fresh-clone-"));
  clone = join(work, "clone");
  const c = git(["clone", "-q", "--no-checkout", ROOT, clone], work);
  assert.equal(c.status, 0, c.stderr);
  const co = git(["checkout", "-q", "--detach", head.stdout.trim()], clone);
  assert.equal(co.status, 0, co.stderr);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const porcelain = () => git(["status", "--porcelain", "--untracked-files=all"], clone).stdout;

test("a fresh clone runs the host and the runner on the workers' source modules (dist/ not built)", { skip }, () => {
  assert.equal(existsSync(join(clone, "dist")), false, "a fresh clone has no dist/");
  const r = spawnSync(process.execPath, [join(clone, "test", "support", "worker-entry-child.js")], {
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `worker-entry-child exit ${r.status} (${r.signal})\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").pop());
  assert.equal(out.host, WORKER_ENTRIES.host.source);
  assert.equal(out.program, WORKER_ENTRIES.program.source);
  assert.deepEqual([out.hostJoined, out.hostThreads, out.hostSum], [2, 8, 6], JSON.stringify(out));
  assert.equal(out.cliCode, 0, out.cliStderr);
  assert.equal(out.cliEnds, 3, out.cliStderr);
  assert.equal(porcelain(), "");
});

test("npm run bench -- --quick in a fresh clone builds what it needs, exits 0 and leaves git status clean", { skip }, () => {
  const args = ["bench/run.js", "--quick", "--only=slot-wait-guest,c-scan"];
  if (native.path) args.push(`--addon=${native.path}`);
  const r = spawnSync(process.execPath, args, { cwd: clone, encoding: "utf8", timeout: 300_000 });
  const said = `exit ${r.status} (${r.signal})\nstderr:\n${r.stderr}`;
  assert.equal(r.status, 0, said);
  assert.doesNotMatch(r.stderr, /FAILED|ENOENT/, said);
  // It built our parts into ignored folders.
  for (const file of [WORKER_ENTRIES.host.built, WORKER_ENTRIES.program.built]) {
    assert.ok(existsSync(join(clone, file)), `${file} not built\n${said}`);
  }
  const report = JSON.parse(readFileSync(join(clone, ".tmp", "bench", "quick.json"), "utf8"));
  const guestRow = report.results.find((row) => row.id === "slot-wait-guest-1x7");
  assert.ok(guestRow, "no slot-wait-guest-1x7 row");
  // Skipped only for a tool the machine lacks (clang, wasm-ld, gcc); else run.
  if (guestRow.skipped) {
    assert.match(guestRow.skipped, /not found/, said);
    assert.notEqual(process.env.CI, "true", `CI lacks the guest's toolchain: ${guestRow.skipped}`);
  } else {
    assert.ok(existsSync(join(clone, "guest", "out", "thread-wave.wasm")));
  }
  for (const row of report.results) {
    for (const [impl, entry] of Object.entries(row.impls)) assert.equal(entry.failed, 0, `${row.id} ${impl}: ${entry.errors}`);
    // The machine beside the figures: every row that ran says what other work used.
    if (!row.skipped) assert.ok(row.load && Array.isArray(row.load.loadAverage), `${row.id}: no load`);
  }
  assert.match(r.stdout, /The machine per group/);
  assert.match(r.stderr, /\.tmp\/bench\/quick\.md/, "the run says where its report is");
  assert.equal(porcelain(), "", "the bench left the clone modified");
});

test("--publish is refused for anything but a full run of every scenario", { skip }, () => {
  const r = spawnSync(process.execPath, ["bench/run.js", "--quick", "--publish"], { cwd: clone, encoding: "utf8" });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--publish needs a full run/);
  assert.equal(porcelain(), "");
});
