// bench/experiment.js builds patched variants of the addon from a scratch
// copy of src/ (bench/lib/cc-addon.js): the copy must keep src/'s
// sub-folders and the patch must still apply to today's src/, or the
// experiments that compare spin rules (bench/analysis.md) cannot run. (The
// variants of older rules are built from git, "gitRef", which a shallow
// clone may lack; the patch path is tested on a patch of today's src/.)

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const hasCc = spawnSync(process.env.CC || "cc", ["--version"]).status === 0;

test("a patched variant (the load-first scan) builds from a copy of src/", { skip: hasCc ? false : "no cc" }, () => {
  const r = spawnSync(process.execPath, ["bench/experiment.js", "--build-only", "--variants=tatas-scan"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 240000,
  });
  assert.equal(r.status, 0, r.stderr);
  const m = /^tatas-scan (\S+\.node)$/m.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.ok(existsSync(m[1]), m[1]);
});
