// npm test step: builds test/cargo-crate for wasm32-wasip1-threads (its
// tests and its binary) with Debian's Rust toolchain, clang-19 and
// ../shared/wasi-threads-sysroot, so that test/cargo-runner.test.js only runs
// them. The first build compiles std with -Zbuild-std (30-65 s on this
// 2-CPU machine), later ones only the crate. Without the tools it says what
// is missing and succeeds (the test skips), except in CI (CI=true), where it
// fails.

import { cargo, missingCargoTools } from "../test/support/cargo-crate.js";

const missing = missingCargoTools();
if (missing.length > 0) {
  console.log(`build-cargo-crate: skipped, missing ${missing.join(", ")} (scripts/setup-debian.sh; the sysroot is ../shared)`);
  process.exit(process.env.CI === "true" ? 1 : 0);
}
for (const [command, args] of [
  ["test", ["--no-run"]],
  ["build", []],
]) {
  const started = Date.now();
  const r = await cargo(command, args);
  process.stderr.write(r.stderr);
  console.log(
    `build-cargo-crate: cargo ${command} ${args.join(" ")}: exit ${r.code} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (r.code !== 0) process.exit(1);
}
