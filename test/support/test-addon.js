// A test build of the addon: the shipped sources compiled with
// -DWTP_ADDON_TEST_HOOKS, which adds the hooks the shipped addon leaves out
// (binding.internal.setSpinLimit: src/node/binding.c, "Internal exports"). Built
// with the system C compiler (bench/lib/cc-addon.js) into build/test-hooks/,
// again only when a source is newer than the build.
//
// A suite that needs it names it in WASI_THREAD_POOL_ADDON before it first
// imports the package (lib/native/binding.js reads the variable then), so that its
// process and every worker it starts load this one build.

import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { ccAddon } from "../../bench/lib/cc-addon.js";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OUT = join(repoDir, "build", "test-hooks", "wasi_thread_pool.node");

function newestSource() {
  const srcDir = join(repoDir, "src");
  return Math.max(...readdirSync(srcDir, { recursive: true }).map((name) => statSync(join(srcDir, name)).mtimeMs));
}

// { path } of the test build, or { path: null, reason } when it cannot be
// built here (no C compiler, or no Node headers next to this node binary).
export function testAddon() {
  if (process.platform !== "linux") return { path: null, reason: "the test build is made on Linux only" };
  try {
    if (!existsSync(OUT) || statSync(OUT).mtimeMs < newestSource()) {
      mkdirSync(dirname(OUT), { recursive: true });
      // Built aside, then renamed: suites building at once never load a
      // half-written file.
      const scratch = `${OUT}.${process.pid}.tmp`;
      ccAddon({ out: scratch, defines: ["-DWTP_ADDON_TEST_HOOKS"] });
      renameSync(scratch, OUT);
    }
    return { path: OUT, reason: null };
  } catch (error) {
    return { path: null, reason: `cannot build the test addon: ${String(error.message).split("\n")[0]}` };
  }
}
