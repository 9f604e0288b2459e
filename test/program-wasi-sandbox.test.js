// Capability-safe paths (issue 18): nothing a program does reaches outside
// its preopened directories. test/wasi-programs/sandbox.c tries every escape
// the issue lists with raw WASI calls (`..`, absolute paths, final and
// intermediate symlinks, relative and absolute, a chain, a dangling symlink
// with O_CREAT, loops, hard links and renames to and from outside, mkdir,
// unlink, set-times, a symlink the program plants), on the main thread and on
// another thread, with a preopen and an outside directory next to it. The
// test then checks on the host that nothing outside was read, made or
// changed, and that the controls that stay inside worked.

import assert from "node:assert/strict";
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { makeSandboxTree } from "./support/sandbox-tree.js";
import {
  CLI,
  buildWasiPrograms,
  cWasiSkip,
  describeRun,
  programPath,
  runChild,
  runProgram,
  tempDir,
} from "./support/wasi-programs.js";

const skip = cWasiSkip() || buildWasiPrograms();

// The sandbox S and the outside O, side by side in a fresh directory
// (test/support/sandbox-tree.js). Where symbolic links cannot be made (Wine
// 8: fs.symlinkSync makes nothing), one of the trees made on the Linux side
// (WTP_WINE_SANDBOX_TREES, scripts/wine-win64.sh), each used once.
let preparedTrees = 0;
function makeTree() {
  const base = tempDir("wtp-wasi-sandbox-");
  const tree = makeSandboxTree(base.dir);
  if (tree.linked) return { ...base, ...tree };
  base.remove();
  const trees = process.env.WTP_WINE_SANDBOX_TREES;
  const dir = trees && join(trees, String(preparedTrees++));
  if (!dir || !existsSync(dir)) {
    throw new Error(
      `fs.symlinkSync made no link here (Wine 8) and WTP_WINE_SANDBOX_TREES names no unused tree made on the Linux side (${dir}): see scripts/wine-win64.sh`,
    );
  }
  return { dir, remove: () => {}, sandbox: join(dir, "sandbox"), outside: join(dir, "outside") };
}

// Every entry under dir: type, size, modification and change times, links,
// link target, content (not the access time, which reading it here changes).
function snapshot(dir) {
  const out = {};
  for (const name of readdirSync(dir, { recursive: true }).sort()) {
    const path = join(dir, name);
    const st = lstatSync(path, { bigint: true });
    out[name] = {
      mode: st.mode,
      size: st.size,
      mtime: st.mtimeNs,
      ctime: st.ctimeNs,
      nlink: st.nlink,
      link: st.isSymbolicLink() ? readlinkSync(path) : null,
      content: st.isFile() ? readFileSync(path, "utf8") : null,
    };
  }
  return out;
}

// The controls Wine cannot express: a Unix symbolic link is no reparse point
// under Wine 8 (FSCTL_GET_REPARSE_POINT fails on it), so path_readlink
// cannot read the tree's links there (the escapes are all still checked).
const WINE_CANNOT = process.env.WTP_UNDER_WINE === "1" ? ["readlink-of-outward-link"] : [];

// The program exits 1 if it printed a FAIL line (the CLI: its exit code;
// runProgram's child: its result's).
function assertSandboxHeld(r, tree, before) {
  const lines = r.stdout.split("\n");
  const allowed = lines.filter((l) => WINE_CANNOT.some((name) => l.startsWith(`FAIL ${name}:`)));
  const escaped = lines.filter((l) => (l.startsWith("ESCAPED ") || l.startsWith("FAIL ")) && !allowed.includes(l));
  assert.deepEqual(escaped, [], describeRun(r));
  assert.match(r.stdout, /^escapes 0$/m, describeRun(r));
  assert.deepEqual(snapshot(tree.outside), before, "the outside directory changed");
  const exit = allowed.length ? 1 : 0;
  if (r.result === null) assert.equal(r.code, exit, describeRun(r));
  else {
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.result.exitCode, exit, describeRun(r));
  }
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`the sandbox, ${implementation} pool`, { skip }, () => {
    test("every escape from a preopen is refused; nothing outside is read, made or changed", async () => {
      const tree = makeTree();
      try {
        const before = snapshot(tree.outside);
        const r = await runProgram("sandbox", implementation, { args: [tree.outside], preopens: { "/sandbox": tree.sandbox } });
        assertSandboxHeld(r, tree, before);
        // The controls' effects, inside.
        assert.equal(readFileSync(join(tree.sandbox, "sub", "renamed.txt"), "utf8"), "inside\n");
        assert.equal(readFileSync(join(tree.sandbox, "inside-copy.txt"), "utf8"), "inside\n");
      } finally {
        tree.remove();
      }
    });
  });
}

describe("the sandbox through the CLI", { skip }, () => {
  test("--dir: the same escapes are refused", async () => {
    const tree = makeTree();
    try {
      const before = snapshot(tree.outside);
      const r = await runChild(process.execPath, [
        CLI,
        "run",
        "--dir",
        `${tree.sandbox}::/sandbox`,
        programPath("sandbox"),
        tree.outside,
      ]);
      assertSandboxHeld(r, tree, before);
    } finally {
      tree.remove();
    }
  });
});
