// wasi-thread-pool as cargo's runner for wasm32-wasip1-threads (docs/cli.md,
// "cargo run and cargo test"): `cargo test` and `cargo run` of
// test/cargo-crate, whose tests use std threads, a file of the --dir . preopen
// and the environment; libtest's own arguments (--test-threads, a filter,
// --nocapture, --help) reach the test binary, and the variables a Rust test
// run reads (RUST_TEST_THREADS, RUST_BACKTRACE) pass with --env NAME.
// Skipped with a message when the Rust toolchain, clang-19 or
// ../shared/wasi-threads-sysroot is missing (CI fails instead). The first
// build compiles std (about 30-60 s here); scripts/build-cargo-crate.js does
// it as a step of npm test, and this file reuses it.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { cargo, missingCargoTools } from "./support/cargo-crate.js";

const missing = missingCargoTools();
const skip =
  missing.length > 0 && process.env.CI !== "true"
    ? `needs ${missing.join(", ")} (scripts/setup-debian.sh installs rustc-web, cargo-web, rust-web-src and clang-19; the sysroot is ../shared)`
    : false;

const GREETING = { WTP_GREETING: "hello" };
const ok = (r) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

describe("cargo test and cargo run with wasi-thread-pool as the runner", { skip }, () => {
  before(async () => {
    assert.deepEqual(missing, [], "CI must have the Rust toolchain, clang-19 and ../shared/wasi-threads-sysroot");
    const build = await cargo("test", ["--no-run"]);
    assert.equal(build.code, 0, ok(build));
    const bin = await cargo("build");
    assert.equal(bin.code, 0, ok(bin));
  });

  test("cargo test: every test passes (threads, a preopened file, the environment)", async () => {
    const r = await cargo("test", ["--lib"], { env: GREETING });
    assert.equal(r.code, 0, ok(r));
    assert.match(r.stdout, /test result: ok\. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out/);
  });

  test("libtest's --test-threads and a filter reach the test binary", async () => {
    const r = await cargo("test", ["--lib", "--", "--test-threads", "2", "threads"], { env: GREETING });
    assert.equal(r.code, 0, ok(r));
    assert.match(r.stdout, /running 2 tests/);
    assert.match(r.stdout, /test result: ok\. 2 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out/);
  });

  test("--nocapture shows a test's output; without it, libtest captures it", async () => {
    const shown = await cargo("test", ["--lib", "--", "--nocapture", "prints_when"]);
    assert.equal(shown.code, 0, ok(shown));
    assert.match(shown.stdout, /printed by prints_when_not_captured/);
    const captured = await cargo("test", ["--lib", "--", "prints_when"]);
    assert.equal(captured.code, 0, ok(captured));
    assert.doesNotMatch(captured.stdout, /printed by/);
  });

  test("--help is libtest's, not the runner's", async () => {
    const r = await cargo("test", ["--lib", "--", "--help"]);
    assert.equal(r.code, 0, ok(r));
    assert.match(r.stdout, /--test-threads n_threads/);
    assert.doesNotMatch(r.stdout + r.stderr, /wasi-thread-pool/);
  });

  test("RUST_TEST_THREADS passes with --env NAME", async () => {
    const r = await cargo("test", ["--lib"], { env: { ...GREETING, RUST_TEST_THREADS: "0" } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /RUST_TEST_THREADS is `0`, should be a positive integer/);
  });

  test("a failing test fails the run (panic=abort: a trap, 134); RUST_BACKTRACE passes with --env NAME", async () => {
    const args = ["--lib", "--", "--nocapture", "sees_the_environment"];
    const plain = await cargo("test", args);
    assert.equal(plain.code, 134, ok(plain));
    assert.match(plain.stderr, /panicked at src\/lib\.rs/);
    assert.match(plain.stderr, /note: run with `RUST_BACKTRACE=1`/);
    const traced = await cargo("test", args, { env: { RUST_BACKTRACE: "1" } });
    assert.equal(traced.code, 134, ok(traced));
    assert.match(traced.stderr, /panicked at src\/lib\.rs/);
    assert.doesNotMatch(traced.stderr, /note: run with `RUST_BACKTRACE=1`/);
  });

  test("cargo run: std threads, the program's arguments and environment, its exit code", async () => {
    const r = await cargo("run", ["--", "3", "--help"], { env: GREETING });
    assert.equal(r.code, 3, ok(r));
    assert.equal(r.stdout, 'sum 79800\nargs ["3", "--help"]\nWTP_GREETING Some("hello")\n');
  });
});
