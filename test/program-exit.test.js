// Exit codes as wasmtime gives them, and link errors as refusals
// (docs/runner.md): proc_exit(n) for n in [0, 126) exits n; outside that range
// it is an error (a message, exit 1), on the main thread or any other; a
// module whose imports the runner cannot link is refused before it runs
// (WebAssembly.LinkError; the CLI: exit 1, the import named).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runWasiThreadsProgram } from "../lib/index.js";
import { PREVIEW1_SIGNATURES } from "../lib/program/link.js";
import { watToBytes } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { exitProgram } from "./support/wasi-programs.js";
import { runCli } from "./support/cli-child.js";

const BOUND_MS = 60_000;
const dir = mkdtempSync(join(tmpdir(), "wtp-exit-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args) {
  return runCli(args, { timeoutMs: BOUND_MS });
}

let files = 0;
function wasmFile(bytes) {
  const file = join(dir, `m${files++}.wasm`);
  writeFileSync(file, bytes);
  return file;
}

const INVALID = /wasi-thread-pool: proc_exit\((\d+)\): exit with invalid exit status outside of \[0\.\.126\)/;

for (const implementation of IMPLEMENTATIONS) {
  describe(`exit codes through the CLI (${implementation} pool)`, () => {
    for (const [code, expected] of [
      [0, 0],
      [1, 1],
      [125, 125],
    ]) {
      test(`proc_exit(${code}) exits ${expected}`, async () => {
        const r = await cli(["--implementation", implementation, wasmFile(await exitProgram(code))]);
        assert.equal(r.code, expected, r.stderr);
        assert.equal(r.stderr, "");
      });
    }

    for (const code of [126, 256, -1]) {
      for (const onThread of [false, true]) {
        test(`proc_exit(${code}) on ${onThread ? "a thread" : "the main thread"}: an error, exit 1`, async () => {
          const r = await cli(["--implementation", implementation, wasmFile(await exitProgram(code, { onThread }))]);
          assert.equal(r.code, 1, r.stderr);
          assert.match(r.stderr, INVALID);
          assert.equal(Number(r.stderr.match(INVALID)[1]), code >>> 0);
        });
      }
    }
  });
}

describe("exit codes through the API", () => {
  test("runWasiThreadsProgram resolves 125 for proc_exit(125) and 1 for proc_exit(126)", async () => {
    const stderr = [];
    const sink = { write: (text) => stderr.push(String(text)) };
    assert.deepEqual(await runWasiThreadsProgram(await exitProgram(125), { stdin: null, stderr: sink }), { exitCode: 125 });
    assert.deepEqual(await runWasiThreadsProgram(await exitProgram(126), { stdin: null, stderr: sink }), { exitCode: 1 });
    assert.match(stderr.join(""), INVALID);
  });
});

// Modules the runner cannot link: [name, WAT imports, the message].
const UNLINKABLE = [
  [
    "an unknown module's function",
    '(import "env" "now" (func (result i64)))',
    /import "env" "now": unknown import \(function\): the runner provides no such import/,
  ],
  [
    "a preview1 function that does not exist",
    '(import "wasi_snapshot_preview1" "fd_frobnicate" (func (param i32) (result i32)))',
    /import "wasi_snapshot_preview1" "fd_frobnicate": unknown import \(function\): WASI preview1 has no such function/,
  ],
  [
    "fd_write with a wrong signature",
    '(import "wasi_snapshot_preview1" "fd_write" (func (param i32) (result i32)))',
    /import "wasi_snapshot_preview1" "fd_write": function types incompatible: expected \(i32, i32, i32, i32\) -> \(i32\), found \(i32\) -> \(i32\)/,
  ],
  [
    "clock_time_get with an i32 where preview1 has an i64",
    '(import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i32 i32) (result i32)))',
    /"clock_time_get": function types incompatible: expected \(i32, i64, i32\) -> \(i32\), found \(i32, i32, i32\) -> \(i32\)/,
  ],
  [
    "proc_exit with a result",
    '(import "wasi_snapshot_preview1" "proc_exit" (func (param i32) (result i32)))',
    /"proc_exit": function types incompatible: expected \(i32\) -> \(\), found \(i32\) -> \(i32\)/,
  ],
  [
    "a WASI name imported as a global",
    '(import "wasi_snapshot_preview1" "sched_yield" (global i32))',
    /"sched_yield": expected a function \(\) -> \(i32\), found a global/,
  ],
  [
    "thread-spawn with a wrong signature",
    '(import "wasi" "thread-spawn" (func (param i32 i32) (result i32)))',
    /import "wasi" "thread-spawn": function types incompatible: expected \(i32\) -> \(i32\)/,
  ],
];

function unlinkable(imports, plain) {
  const memory = plain ? "" : '(import "env" "memory" (memory 1 1 shared))';
  const own = plain ? '(memory (export "memory") 1)' : "";
  return watToBytes(`(module ${memory} ${imports} ${own} (func (export "_start") (unreachable)))`, "unlinkable.wat");
}

describe("link errors: refused before the program runs", () => {
  for (const [name, imports, message] of UNLINKABLE) {
    const plain = !imports.includes("thread-spawn");
    test(`${name}: a WebAssembly.LinkError naming the import`, async () => {
      await assert.rejects(runWasiThreadsProgram(await unlinkable(imports, plain), { stdin: null }), (error) => {
        assert.ok(error instanceof WebAssembly.LinkError, String(error));
        assert.match(error.message, message);
        return true;
      });
    });
  }

  for (const implementation of IMPLEMENTATIONS) {
    test(`the CLI exits 1 and names the import, not a trap (${implementation})`, async () => {
      for (const plain of [false, true]) {
        const r = await cli(["--implementation", implementation, wasmFile(await unlinkable(UNLINKABLE[2][1], plain))]);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /^wasi-thread-pool: .*cannot link the module: import "wasi_snapshot_preview1" "fd_write"/);
        assert.doesNotMatch(r.stderr, /trapped/);
      }
    });
  }

  test("every preview1 function, imported with its signature, links and runs", async () => {
    const imports = Object.entries(PREVIEW1_SIGNATURES).map(([name, { params, results }]) => {
      const p = params.length ? ` (param ${params.join(" ")})` : "";
      const r = results.length ? ` (result ${results.join(" ")})` : "";
      return `(import "wasi_snapshot_preview1" "${name}" (func${p}${r}))`;
    });
    assert.equal(imports.length, 46);
    const bytes = await watToBytes(
      `(module (import "env" "memory" (memory 1 1 shared)) ${imports.join(" ")} (func (export "_start")))`,
      "all.wat",
    );
    assert.deepEqual(await runWasiThreadsProgram(bytes, { stdin: null }), { exitCode: 0 });
  });
});
