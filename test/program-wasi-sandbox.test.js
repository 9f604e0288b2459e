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
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
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

// The sandbox S and the outside O, side by side in a fresh directory.
function makeTree() {
  const base = tempDir("wtp-wasi-sandbox-");
  const sandbox = join(base.dir, "sandbox");
  const outside = join(base.dir, "outside");
  mkdirSync(join(sandbox, "sub"), { recursive: true });
  mkdirSync(join(outside, "keep"), { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "SECRET outside the sandbox\n");
  writeFileSync(join(sandbox, "inside.txt"), "inside\n");
  const links = {
    "in-link": "sub/../inside.txt",
    "out-dir": "../outside",
    "abs-dir": outside,
    "out-file": "../outside/secret.txt",
    "abs-file": join(outside, "secret.txt"),
    dangling: "../outside/created.txt",
    chain: "sub/up",
    "sub/up": "../../outside",
    loop1: "loop2",
    loop2: "loop1",
  };
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(sandbox, name));
  return { ...base, sandbox, outside };
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

function assertSandboxHeld(r, tree, before) {
  assert.equal(r.code, 0, describeRun(r));
  const escaped = r.stdout.split("\n").filter((l) => l.startsWith("ESCAPED ") || l.startsWith("FAIL "));
  assert.deepEqual(escaped, [], describeRun(r));
  assert.match(r.stdout, /^escapes 0$/m, describeRun(r));
  assert.deepEqual(snapshot(tree.outside), before, "the outside directory changed");
  assert.equal(r.result === null ? 0 : r.result.exitCode, 0, describeRun(r));
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
