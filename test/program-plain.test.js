// Any WASI preview1 command program, not only wasi-threads ones: a module
// with its own (non-shared) memory, or an imported non-shared one, and no
// thread-spawn runs on one thread with the same process rules as a threaded
// program (docs/runner.md): exit codes, stdout and stderr, stdin, args, env,
// preopened directories. WAT programs always; a C program built with clang-19
// and ../shared/wasi-threads-sysroot without -pthread when they are here
// (skipped with a message otherwise; CI fails instead).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runWasiThreadsProgram } from "../lib/index.js";
import { watToBytes } from "./fixtures/build.js";
import { exitProgram, showProgram } from "./support/wasi-programs.js";
import { runCli } from "./support/cli-child.js";

const PLAIN_C = fileURLToPath(new URL("./c/wasi-programs/plain.c", import.meta.url));
const SYSROOT = fileURLToPath(new URL("../../shared/wasi-threads-sysroot", import.meta.url));
const CLANG = "/usr/lib/llvm-19/bin/clang";
const BOUND_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), "wtp-plain-"));
const data = join(dir, "data");
mkdirSync(data);
writeFileSync(join(data, "hello.txt"), "hello from the host\n");
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args, { input = "", env = {} } = {}) {
  return runCli(args, { input, env, timeoutMs: BOUND_MS });
}

let files = 0;
function wasmFile(bytes) {
  const file = join(dir, `p${files++}.wasm`);
  writeFileSync(file, bytes);
  return file;
}

describe("a plain WASI program in WAT (its own memory, no thread-spawn)", () => {
  test("args, env, a preopened file, stdout and its exit code through the CLI", async () => {
    const r = await cli([
      "--dir",
      `${data}::/data`,
      "--env",
      "A=1",
      wasmFile(await showProgram({ plain: true, exitCode: 9 })),
      "x",
    ]);
    assert.equal(r.code, 9, r.stderr);
    assert.equal(r.stdout, "p0.wasm\nx\n#env\nA=1\n#file\nhello from the host\n");
  });

  test("through the API: the same, with no pool (a poolSize or implementation changes nothing)", async () => {
    const out = [];
    const result = await runWasiThreadsProgram(await showProgram({ plain: true, exitCode: 4 }), {
      args: ["show", "a b"],
      env: { B: "2" },
      stdin: null,
      stdout: { write: (chunk) => out.push(Buffer.from(chunk)) },
      poolSize: 1,
      implementation: "js",
    });
    assert.deepEqual(result, { exitCode: 4 });
    assert.equal(Buffer.concat(out).toString(), "show\na b\n#env\nB=2\n");
  });

  test("proc_exit outside [0..126) is an error here too; 125 is a status", async () => {
    const bad = await cli([wasmFile(await exitProgram(200, { plain: true }))]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /proc_exit\(200\): exit with invalid exit status outside of \[0\.\.126\)/);
    const good = await cli([wasmFile(await exitProgram(125, { plain: true }))]);
    assert.equal(good.code, 125, good.stderr);
  });

  test("an imported non-shared memory is made with the module's limits", async () => {
    const source = `(module
      (import "a" "mem" (memory 2 5))
      (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
      (func (export "_start")
        (if (i32.ne (memory.size) (i32.const 2)) (then (call $exit (i32.const 50))))
        (if (i32.ne (memory.grow (i32.const 3)) (i32.const 2)) (then (call $exit (i32.const 51))))
        (if (i32.ne (memory.grow (i32.const 1)) (i32.const -1)) (then (call $exit (i32.const 52))))
        (call $exit (i32.const 8))))`;
    assert.deepEqual(await runWasiThreadsProgram(await watToBytes(source), { stdin: null }), { exitCode: 8 });
  });

  test("a trap exits 134 and names the main thread; _start returning exits 0", async () => {
    const trap = '(module (memory (export "memory") 1) (func (export "_start") (unreachable)))';
    const r = await cli([wasmFile(await watToBytes(trap))]);
    assert.equal(r.code, 134);
    assert.match(r.stderr, /the main thread trapped: RuntimeError: unreachable/);
    const empty = await cli([wasmFile(await watToBytes('(module (memory (export "memory") 1) (func (export "_start")))'))]);
    assert.equal(empty.code, 0, empty.stderr);
  });
});

// A plain program runs on the program's C WASI as a threaded one does, with
// either kind of memory (its own, attached once instantiated; an imported
// non-shared one, attached at once): a symbolic link out of the preopen is
// not followed there (node:wasi follows it and opens the file: exit 0).
const cWasiServes = (process.platform === "linux" || process.platform === "darwin") && !process.env.WASI_THREAD_POOL_NODE_WASI;
describe(
  "a plain WASI program on the program's C WASI",
  { skip: cWasiServes ? false : "the C WASI does not serve this run" },
  () => {
    const escapeSource = (ownMemory) => `(module
    ${ownMemory ? "" : '(import "a" "mem" (memory 1 2))'}
    (import "wasi_snapshot_preview1" "path_open"
      (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    ${ownMemory ? '(memory (export "memory") 1 2)' : ""}
    (data (i32.const 16) "out/secret.txt")
    (func (export "_start")
      ;; memory.grow first: a non-shared memory's buffer moves
      (drop (memory.grow (i32.const 1)))
      (call $exit (call $path_open (i32.const 3) (i32.const 1) (i32.const 16) (i32.const 14) (i32.const 0)
        (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 96)))))`;
    for (const ownMemory of [true, false]) {
      test(`a symbolic link out of the preopen is refused (EPERM, 63): ${ownMemory ? "its own memory" : "an imported one"}`, async () => {
        const outside = mkdtempSync(join(tmpdir(), "wtp-plain-outside-"));
        const sandbox = mkdtempSync(join(tmpdir(), "wtp-plain-sandbox-"));
        try {
          writeFileSync(join(outside, "secret.txt"), "outside\n");
          symlinkSync(outside, join(sandbox, "out"));
          const r = await cli(["--dir", `${sandbox}::/data`, wasmFile(await watToBytes(escapeSource(ownMemory)))]);
          assert.equal(r.code, 63, r.stderr);
        } finally {
          rmSync(outside, { recursive: true, force: true });
          rmSync(sandbox, { recursive: true, force: true });
        }
      });
    }
  },
);

const toolsMissing = [CLANG, SYSROOT].filter((path) => !existsSync(path));
const skip =
  toolsMissing.length > 0 && process.env.CI !== "true"
    ? `needs ${toolsMissing.join(" and ")} (clang-19: scripts/setup-debian.sh; the sysroot: ../shared)`
    : false;

describe("a plain WASI program in C (clang-19, the sysroot, no -pthread)", { skip }, () => {
  let wasm;
  before(() => {
    assert.deepEqual(toolsMissing, [], "CI must have clang-19 and ../shared/wasi-threads-sysroot");
    wasm = join(dir, "plain.wasm");
    execFileSync(CLANG, ["--target=wasm32-wasi-threads", `--sysroot=${SYSROOT}`, "-O2", PLAIN_C, "-o", wasm]);
  });

  test("it defines a non-shared memory and imports no thread-spawn", () => {
    const module = new WebAssembly.Module(readFileSync(wasm));
    assert.ok(!WebAssembly.Module.imports(module).some((i) => i.kind === "memory" || i.module === "wasi"));
    assert.ok(WebAssembly.Module.exports(module).some((e) => e.name === "memory" && e.kind === "memory"));
  });

  test("args, env, memory growth, a preopened file, stdin, stderr and the exit code", async () => {
    const r = await cli(["--dir", `${data}::/data`, "--env", "GREETING", wasm, "5", "two words"], {
      input: "0123456789",
      env: { GREETING: "hi" },
    });
    assert.equal(r.code, 5, r.stderr);
    assert.equal(
      r.stdout,
      [
        "arg plain.wasm",
        "arg 5",
        "arg two words",
        "GREETING hi",
        `grew ${64 << 20}`,
        "file hello from the host",
        "stdin 10",
        "",
      ].join("\n"),
    );
    assert.equal(r.stderr, "to stderr\n");
  });
});
