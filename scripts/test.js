// npm test: every suite of the package, in order, stopping at nothing so
// that one run shows every failure; exits non-zero if any step failed.
//
//   0. the addon, built from source; the C files' formatting (clang-format)
//   1. make check in test/c, test/model, test/fuzz and test/wasi-c (C core, protocol
//      model, bounded fuzzing), where the folder has a Makefile
//   2. the linter and the formatter (eslint ., prettier --check .: see
//      eslint.config.js, .prettierrc.json, .prettierignore); tsc over a
//      consumer of the type declarations; the addon's protocol suites with the addon built under ASan+UBSan
//      (Linux); the browser worker bundle (dist/), which the Chromium test
//      serves; the one-file Node pool workers (dist/, scripts/bundle-workers.js); the guest builds (C, C with pthreads, Zig, the WASI programs of
//      test/wasi-programs), if their scripts exist; and the cargo crate of
//      the cargo runner test (scripts/build-cargo-crate.js)
//   3. the runner's suites once more on its node:wasi fallback
//      (WASI_THREAD_POOL_NODE_WASI=1), where the addon's C WASI serves the
//      main run (Linux, macOS)
//   4. the JS suites on the newer Node versions pinned in scripts/node-versions.sh
//      (their official binaries, fetched by its --setup; skipped, saying so, where
//      they are missing, except in CI, where that fails)
//   5. node --test over test/*.test.js (last, so its summary closes the run)

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const failed = [];
const skipped = [];
const IN_CI = process.env.CI === "true";
// The runner's module cache (lib/program/module-cache.js) in the clone's
// ignored .tmp/, not the user's cache directory, for every step below.
process.env.WASI_THREAD_POOL_CACHE_DIR ??= join(root, ".tmp", "test-module-cache");

// skipStatus: the exit status by which the command says that what it needs
// is missing: a skip, except in CI, where it is a failure.
function step(name, command, args, env = {}, { skipStatus = null } = {}) {
  console.log(`\n=== ${name}: ${command} ${args.join(" ")}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const skip = skipStatus !== null && result.status === skipStatus && !IN_CI;
  const ok = result.status === 0;
  console.log(`=== ${name}: ${ok ? "ok" : skip ? "SKIPPED (see above)" : "FAILED"} in ${seconds} s`);
  if (skip) skipped.push(name);
  else if (!ok) failed.push(name);
}

// The suites below load build/Release first (node-gyp-build's order), so
// build the addon from the sources as they are: a committed prebuild may be
// older (test/package.test.js checks that it is not, in CI).
step("addon build", process.execPath, ["scripts/install.js", "--force"]);
step("C formatting", process.execPath, ["scripts/format-c.js", "--check"]);

for (const dir of ["test/c", "test/model", "test/fuzz", "test/wasi-c"]) {
  if (existsSync(join(root, dir, "Makefile"))) step(dir, "make", ["-C", dir, "check"]);
}
step("lint", process.execPath, ["node_modules/eslint/bin/eslint.js", "."]);
step("format", process.execPath, ["node_modules/prettier/bin/prettier.cjs", "--check", "."]);
step("type declarations", process.execPath, ["node_modules/typescript/bin/tsc", "-p", "types/test"]);
if (process.platform === "linux") step("addon under ASan+UBSan", "bash", ["scripts/asan-addon.sh"]);
step("browser worker bundle", "npm", ["run", "--silent", "build:browser-worker"]);
// The one-file Node pool workers (dist/), which the suites below start.
step("pool worker bundles", process.execPath, ["scripts/bundle-workers.js"]);
if (existsSync(join(root, "scripts/build-guest.sh"))) step("guest build", "sh", ["scripts/build-guest.sh"]);
if (existsSync(join(root, "scripts/build-zig-guest.sh"))) step("Zig guest build", "sh", ["scripts/build-zig-guest.sh"]);
// C pthreads guests (clang-19 and ../shared/wasi-threads-sysroot; skipped
// with a message when either is missing).
if (existsSync(join(root, "scripts/build-c-guests.sh"))) step("C guest build", "sh", ["scripts/build-c-guests.sh"]);
if (existsSync(join(root, "scripts/build-wasi-programs.sh"))) {
  step("WASI programs build", "sh", ["scripts/build-wasi-programs.sh"]);
}
// The cargo crate of test/cargo-runner.test.js (std from source: about a minute the first time).
step("cargo crate build", process.execPath, ["scripts/build-cargo-crate.js"]);

if (process.platform === "linux" || process.platform === "darwin") {
  const runnerSuites = [
    "program",
    "program-ring",
    "program-zig",
    "program-reactor",
    "program-plain",
    "program-exit",
    "program-spawn",
  ].map((name) => `test/${name}.test.js`);
  step("runner on node:wasi", process.execPath, ["--test", "--test-concurrency=1", ...runnerSuites], {
    WASI_THREAD_POOL_NODE_WASI: "1",
  });
}

// The newer Nodes, one step each (exit 3: the binary is missing).
if (existsSync(join(root, "scripts/node-versions.sh")) && process.platform !== "win32") {
  const plan = spawnSync("bash", ["scripts/node-versions.sh", "--versions"], { cwd: root, encoding: "utf8" });
  for (const version of plan.status === 0 ? plan.stdout.split(/\s+/).filter(Boolean) : []) {
    step(`node tests on Node ${version}`, "bash", ["scripts/node-versions.sh", version], {}, { skipStatus: 3 });
  }
  if (plan.status !== 0) failed.push("node versions plan");
}

const files = readdirSync(join(root, "test"))
  .filter((f) => f.endsWith(".test.js"))
  .sort()
  .map((f) => join("test", f));
step("node tests", process.execPath, ["--test", "--test-concurrency=1", ...files]);

if (skipped.length > 0) console.log(`\nskipped steps: ${skipped.join(", ")}`);
if (failed.length > 0) {
  console.log(`\nfailed steps: ${failed.join(", ")}`);
  process.exit(1);
}
