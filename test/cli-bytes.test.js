// Arguments and environment values that are not UTF-8 (issue 27): the
// program gets the exact bytes where the host lets the runner read them
// (Linux: /proc/self/cmdline and /proc/self/environ, lib/program/host-bytes.js);
// where it cannot, the CLI refuses them with exit 1 and a message, as
// wasmtime does. Never altered silently (Node decodes them with U+FFFD).
// The API takes such values as Uint8Arrays and refuses a string with a lone
// surrogate, which has no UTF-8.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { runWasiThreadsProgram } from "../lib/index.js";
import { NotUtf8Error, parseCommandLine } from "../lib/program/cli.js";
import { programWasiUnavailable } from "../lib/program/wasi.js";
import { watToBytes } from "./fixtures/build.js";
import { CLI, runChild } from "./support/cli-child.js";

const BOUND_MS = 60_000;
const dir = mkdtempSync(join(tmpdir(), "wtp-cli-bytes-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const cWasi = programWasiUnavailable() === null;
const procSkip = process.platform === "linux" ? false : "reads the exact bytes from /proc (Linux)";

// Writes its arguments, then "#env", then its environment: one entry a line,
// each byte as two hex digits (so the bytes survive any decoding).
// Memory: 0x100 hex digits, 16 iovec, 32 sizes, 0x400 pointers, 0x1000
// strings, 0x8000 output.
const hexShow = (plain) => `(module
  ${plain ? "" : '(import "env" "memory" (memory 1 1 shared)) (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))'}
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  ${plain ? '(memory (export "memory") 1)' : ""}
  (data (i32.const 0x100) "0123456789abcdef")
  (data (i32.const 0x120) "#env\\n")
  (func $write (param $ptr i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $ptr))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func $hex (param $len i32)
    (local $i i32) (local $o i32) (local $b i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
      (local.set $b (i32.load8_u (i32.add (i32.const 0x1000) (local.get $i))))
      (if (i32.eqz (local.get $b))
        (then
          (i32.store8 (i32.add (i32.const 0x8000) (local.get $o)) (i32.const 10))
          (local.set $o (i32.add (local.get $o) (i32.const 1))))
        (else
          (i32.store8 (i32.add (i32.const 0x8000) (local.get $o))
            (i32.load8_u (i32.add (i32.const 0x100) (i32.shr_u (local.get $b) (i32.const 4)))))
          (i32.store8 (i32.add (i32.const 0x8001) (local.get $o))
            (i32.load8_u (i32.add (i32.const 0x100) (i32.and (local.get $b) (i32.const 15)))))
          (local.set $o (i32.add (local.get $o) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $write (i32.const 0x8000) (local.get $o)))
  (func (export "_start")
    (drop (call $args_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $args_get (i32.const 0x400) (i32.const 0x1000)))
    (call $hex (i32.load (i32.const 36)))
    (call $write (i32.const 0x120) (i32.const 5))
    (drop (call $environ_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $environ_get (i32.const 0x400) (i32.const 0x1000)))
    (call $hex (i32.load (i32.const 36))))
  ${plain ? "" : '(func (export "wasi_thread_start") (param i32 i32))'})`;

const hexOf = (text) => Buffer.from(text, "latin1").toString("hex");
let files = 0;
async function wasmFile(plain) {
  const file = join(dir, `show${files++}.wasm`);
  writeFileSync(file, await watToBytes(hexShow(plain), "hex-show.wat"));
  return file;
}

// The CLI through bash, so that the arguments and the environment can hold
// any bytes ($'\xff'); `script` follows "node CLI run".
const bash = (script, env = {}) =>
  runChild("bash", ["-c", `exec "$NODE" "$CLI" run ${script}`], {
    env: { ...process.env, NODE: process.execPath, CLI, ...env },
    timeoutMs: BOUND_MS,
  });

describe(
  "the CLI passes the exact bytes of arguments and environment values that are not UTF-8",
  { skip: procSkip || (!cWasi && "needs the program's C WASI") },
  () => {
    for (const plain of [false, true]) {
      const kind = plain ? "a plain program" : "a threaded program";
      test(`${kind}: arguments, --argv0, --env NAME=VAL, --env=NAME=VAL and an inherited --env NAME`, async () => {
        const file = await wasmFile(plain);
        const r = await bash(
          `--argv0 $'p\\xff' --env X=$'b\\xfe' --env=Y=$'\\xc3(' --env Z --env OK=fine "${file}" $'a\\xff' plain $'\\xe2\\x82' $'\\xc3\\xbc'`,
          {
            Z: "unused",
          },
        );
        assert.equal(r.code, 0, r.stderr);
        const [args, env] = r.stdout.split("#env\n");
        assert.deepEqual(args.trimEnd().split("\n"), ["p\xff", "a\xff", "plain", "\xe2\x82", "\xc3\xbc"].map(hexOf));
        assert.deepEqual(env.trimEnd().split("\n"), ["X=b\xfe", "Y=\xc3(", "Z=unused", "OK=fine"].map(hexOf));
      });

      test(`${kind}: a host variable that is not UTF-8, passed with --env NAME`, async () => {
        const file = await wasmFile(plain);
        const r = await runChild("bash", ["-c", `W=$'w\\x80\\xff' exec "$NODE" "$CLI" run --env W "${file}"`], {
          env: { ...process.env, NODE: process.execPath, CLI },
          timeoutMs: BOUND_MS,
        });
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(r.stdout.split("#env\n")[1].trimEnd().split("\n"), [hexOf("W=w\x80\xff")]);
      });
    }

    test("an argument that holds U+FFFD itself (valid UTF-8) passes as it is", async () => {
      const r = await bash(`"${await wasmFile(false)}" $'\\xef\\xbf\\xbd'`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.split("\n")[1], "efbfbd");
    });
  },
);

describe("where the bytes cannot be read, the CLI refuses what Node may have altered (exit 1)", () => {
  test("parseCommandLine without the host's bytes: NotUtf8Error naming the value", () => {
    assert.throws(() => parseCommandLine(["run", "m.wasm", "a\uFFFD"], {}), NotUtf8Error);
    assert.throws(() => parseCommandLine(["run", "--env", "X=\uFFFD", "m.wasm"], {}), /--env X's value is not valid UTF-8/);
    assert.throws(() => parseCommandLine(["run", "--env", "X", "m.wasm"], { X: "\uFFFD" }), /the host's X is not valid UTF-8/);
    assert.throws(() => parseCommandLine(["run", "--argv0", "\uFFFD", "m.wasm"], {}), /--argv0 is not valid UTF-8/);
    // Bytes that do not decode to what Node gave are not used.
    const argvBytes = ["run", "m.wasm", "b\xff"].map((t) => Buffer.from(t, "latin1"));
    assert.throws(() => parseCommandLine(["run", "m.wasm", "a\uFFFD"], {}, { argvBytes }), NotUtf8Error);
    // With the right bytes: the bytes.
    const right = ["run", "m.wasm", "a\xff"].map((t) => Buffer.from(t, "latin1"));
    const { args } = parseCommandLine(["run", "m.wasm", "a\uFFFD"], {}, { argvBytes: right });
    assert.deepEqual(args, [Uint8Array.from([0x61, 0xff])]);
  });

  test("the CLI, with node:wasi (which passes text only): exit 1 and the reason", { skip: procSkip }, async () => {
    const r = await bash(`"${await wasmFile(false)}" $'a\\xff'`, { WASI_THREAD_POOL_NODE_WASI: "1" });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /not UTF-8, and node:wasi .* passes text only/);
    assert.equal(r.stdout, "");
  });
});

describe("runWasiThreadsProgram: bytes as Uint8Arrays, no lone surrogates", () => {
  async function run(options) {
    const chunks = [];
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const { exitCode } = await runWasiThreadsProgram(await watToBytes(hexShow(false), "hex-show.wat"), { stdout, ...options });
    return { exitCode, stdout: Buffer.concat(chunks).toString("latin1") };
  }

  test(
    "Uint8Array arguments and environment values reach the program as they are",
    { skip: !cWasi && "needs the program's C WASI" },
    async () => {
      const r = await run({ args: ["p", Uint8Array.from([0x61, 0xff])], env: { E: Uint8Array.from([0xc3, 0x28]), F: "f" } });
      assert.equal(r.exitCode, 0);
      assert.equal(r.stdout, `${hexOf("p")}\n${hexOf("a\xff")}\n#env\n${hexOf("E=\xc3(")}\n${hexOf("F=f")}\n`);
    },
  );

  test("a string with a lone surrogate, a Uint8Array with a NUL: TypeError naming it", async () => {
    await assert.rejects(run({ args: ["p", "a\uD800"] }), {
      name: "TypeError",
      message: /options\.args\[1\] holds a lone surrogate/,
    });
    await assert.rejects(run({ env: { E: "\uDC00x" } }), {
      name: "TypeError",
      message: /options\.env\.E holds a lone surrogate/,
    });
    await assert.rejects(run({ args: [Uint8Array.from([0x61, 0])] }), {
      name: "TypeError",
      message: /options\.args\[0\] contains a NUL/,
    });
  });
});
