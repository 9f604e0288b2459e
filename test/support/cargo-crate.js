// Runs cargo on test/cargo-crate for wasm32-wasip1-threads with
// wasi-thread-pool as its runner (README, "cargo run and cargo test"), built
// offline with Debian's rustc-web, cargo-web and rust-web-src (std is built
// from rust-web-src with -Zbuild-std, its crates from the vendor folder that
// package ships) and linked by clang-19 against ../shared/wasi-threads-sysroot.
// Used by scripts/build-cargo-crate.js (the build, an npm test step) and
// test/cargo-runner.test.js (cargo test / cargo run through the runner).

import { runChild } from "./cli-child.js";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CRATE = fileURLToPath(new URL("../cargo-crate/", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = fileURLToPath(new URL("../../bin/wasi-thread-pool.js", import.meta.url));
const SYSROOT = fileURLToPath(new URL("../../../shared/wasi-threads-sysroot", import.meta.url));
// Under .tmp/ (ignored by git, eslint and prettier), kept between runs: std
// is built once (about a minute here), then only the crate.
const TARGET_DIR = `${ROOT}.tmp/cargo-crate-target`;
const CARGO = "/usr/bin/cargo"; // Debian's cargo-web: a rustup cargo earlier on PATH has no wasm std source
const RUSTC = "/usr/bin/rustc";
const RUST_SRC_VENDOR = "/usr/lib/rustlib/src/rust/library/vendor";
const CLANG = "/usr/lib/llvm-19/bin/clang";

// What is missing to build the crate (empty when it can be built).
export function missingCargoTools() {
  return [CARGO, RUSTC, RUST_SRC_VENDOR, CLANG, SYSROOT].filter((path) => !existsSync(path));
}

// The runner command cargo is given: options before the module, as with
// wasmtime; cargo appends the .wasm and libtest's (or the program's) arguments.
export const RUNNER_OPTIONS = ["--dir", ".", "--env", "WTP_GREETING", "--env", "RUST_BACKTRACE", "--env", "RUST_TEST_THREADS"];

function cargoEnv(extra) {
  // The sysroot's lib/wasm32-wasip1-threads is not a symlink in every copy of
  // it; clang finds the same libc under the wasm32-wasi-threads name.
  const rustflags = [
    "-Zunstable-options",
    "-Clinker-flavor=wasm-lld-cc",
    "-Clink-self-contained=no",
    `-Clink-arg=--sysroot=${SYSROOT}`,
    "-Clink-arg=--target=wasm32-wasi-threads",
  ].join(" ");
  const env = {
    ...process.env,
    PATH: `/usr/bin:${process.env.PATH}`,
    RUSTC,
    RUSTC_BOOTSTRAP: "1",
    CARGO_TARGET_DIR: TARGET_DIR,
    CARGO_TARGET_WASM32_WASIP1_THREADS_LINKER: CLANG,
    CARGO_TARGET_WASM32_WASIP1_THREADS_RUSTFLAGS: rustflags,
    CARGO_TARGET_WASM32_WASIP1_THREADS_RUNNER: [process.execPath, CLI, "run", ...RUNNER_OPTIONS].join(" "),
    CARGO_TERM_COLOR: "never",
  };
  for (const name of ["WTP_GREETING", "RUST_BACKTRACE", "RUST_TEST_THREADS", "RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS"])
    delete env[name];
  return { ...env, ...extra };
}

const CARGO_FLAGS = [
  "--offline",
  "--config",
  'source.crates-io.replace-with="rust-src-vendor"',
  "--config",
  `source.rust-src-vendor.directory="${RUST_SRC_VENDOR}"`,
  "-Zbuild-std=std,panic_abort",
  "--target",
  "wasm32-wasip1-threads",
];

// cargo <command> [args] in the crate: {code, stdout, stderr}. `env` adds
// variables (undefined: unset).
export function cargo(command, args = [], { env = {}, timeoutMs = 600_000 } = {}) {
  const childEnv = cargoEnv(env);
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  return runChild(CARGO, [command, ...CARGO_FLAGS, ...args], { cwd: CRATE, env: childEnv, timeoutMs });
}
