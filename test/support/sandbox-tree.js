// The tree of test/program-wasi-sandbox.test.js: the sandbox S and the
// outside O side by side in `base`, with S's symbolic links (see
// test/wasi-programs/sandbox.c for what each is for).
//
// Wine 8 cannot make a symbolic link (node.exe's fs.symlinkSync returns and
// makes nothing), so under Wine the trees come from the Linux side:
//
//   node test/support/sandbox-tree.js DIR COUNT
//
// makes DIR/0 ... DIR/COUNT-1 (scripts/wine-win64.sh does, and names DIR in
// WTP_WINE_SANDBOX_TREES); the test then takes one per run.

import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// Makes the tree in base (an empty or absent folder); returns its paths and
// whether the links were made (false where symlinkSync makes nothing).
export function makeSandboxTree(base) {
  const sandbox = join(base, "sandbox");
  const outside = join(base, "outside");
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
  return { sandbox, outside, linked: isLink(join(sandbox, "in-link")) };
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink() || existsSync(path);
  } catch {
    return false;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, count] = process.argv.slice(2);
  for (let i = 0; i < Number(count); i++) makeSandboxTree(join(dir, String(i)));
}
