// The memory pass's code section rewrite in wasm (lib/wasm/code-rewriter.js,
// src/wasm/rewrite_code.c) against the JS walker it stands in for
// (transformModule with plan.jsOnly): the same bytes on a module that uses
// every instruction family it reads, on the real programs, and on mutated
// (hostile) bodies, where the two either give the same bytes or the same
// TypeError; it gives up (the JS walker runs) on what it does not read.
// And the committed build matches its source (needs clang-19: skipped
// without it, except in CI).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { rewriteCodeInWasm } from "../lib/wasm/code-rewriter.js";
import { rewriteGuestMemory } from "../lib/worker/guest-memory.js";
import { OP } from "../lib/wasm/instructions.js";
import { rewriteMemoryGrowth } from "../lib/wasm/memory-pass.js";
import { SECTION, readSections, transformModule } from "../lib/wasm/module.js";
import { Reader, concatBytes, encodeU } from "../lib/wasm/reader.js";
import { ALL_FEATURES, watToBytesWith } from "./support/wasm-features.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const REAL = join(root, "..", "shared", "real-programs");

// Every family the wasm rewrite reads: calls of imports and of defined
// functions, return_call, call_indirect, ref.func/ref.null, br_table,
// typed select, legacy exceptions (try, catch, delegate, rethrow), atomics
// (waits, notify, rmw, fence), bulk memory and table ops, memory.size and
// memory.grow, every const, block types (none, a value type, a type index),
// several local groups.
const WAT = `(module
  (type $pair (func (param i32) (result i32 i32)))
  (import "env" "memory" (memory 1 8 shared))
  (import "env" "f" (func $f (param i32) (result i32)))
  (import "env" "g" (func $g))
  (tag $t (param i32))
  (table $tab 4 funcref)
  (elem (table $tab) (i32.const 0) func $a $b)
  (elem declare func $c)
  (data $d "xyz")
  (global $gl (mut i32) (i32.const 7))
  (func $a (param i32) (result i32) (local i64 f32) (local f64)
    (call $f (local.get 0))
    (drop (call $b (i32.const 1)))
    (drop (memory.grow (i32.const 1)))
    (i32.add (memory.size))
    (block (result i32) (br_table 0 0 0 (i32.const 5) (local.get 0)))
    (i32.add)
    (select (result i32) (i32.const 1) (i32.const 2) (local.get 0))
    (i32.add)
    (drop (i64.const -123456789012))
    (drop (f32.const 1.5))
    (drop (f64.const -2.25))
    (drop (ref.func $c))
    (drop (ref.null func))
    (call_indirect (type $pair) (i32.const 9) (i32.const 0))
    (drop)
    (i32.add))
  (func $b (param i32) (result i32)
    (local.set 0 (i32.atomic.rmw.add (i32.const 0) (local.get 0)))
    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 1) (i64.const 0)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
    (atomic.fence)
    (memory.fill (i32.const 16) (i32.const 0) (i32.const 4))
    (memory.copy (i32.const 32) (i32.const 16) (i32.const 4))
    (memory.init $d (i32.const 48) (i32.const 0) (i32.const 3))
    (data.drop $d)
    (drop (table.size $tab))
    (try (do (call $g) (throw $t (i32.const 1)))
      (catch $t (drop))
      (catch_all (rethrow 0)))
    (try (do (try (do (call $g)) (delegate 0))) (catch_all))
    (loop $l (br_if $l (i32.eqz (i32.const 1))))
    (if (local.get 0) (then (call $g)) (else (call $g)))
    (local.get 0))
  (func $c (param i32) (result i32 i32)
    (local.get 0)
    (block (type $pair) (local.get 0)))
  (func $d (param i32) (result i32)
    (return_call $a (local.get 0)))
  (export "a" (func $a))
  (export "d" (func $d)))`;

const FEATURES = { ...ALL_FEATURES, simd: false };

// The memory pass's plan (lib/wasm/memory-pass.js), with or without the
// wasm rewrite.
function memoryPlan(bytes, jsOnly) {
  let calls = null;
  return {
    onlyIfReplaced: true,
    jsOnly,
    wasmFromBytes: 0, // these modules are small
    ops: [OP.memorySize, OP.memoryGrow],
    callsFor: [
      [OP.memorySize, 0],
      [OP.memoryGrow, 1],
    ],
    imports: [
      { module: "wasi-thread-pool", name: "memory_size", params: [], results: [0x7f] },
      { module: "wasi-thread-pool", name: "memory_grow", params: [0x7f], results: [0x7f] },
    ],
    replace(ins, indices) {
      if (ins.op !== OP.memorySize && ins.op !== OP.memoryGrow) return undefined;
      if (new Reader(bytes, ins.start + 1, ins.end).u() !== 0) throw new TypeError("the memory pass handles memory 0 only.");
      calls ??= indices.imports.map((index) => concatBytes([Uint8Array.of(OP.call), encodeU(index)]));
      return ins.op === OP.memorySize ? calls[0] : calls[1];
    },
  };
}

// Either the bytes or the error's message, of one way.
function outcome(bytes, jsOnly) {
  try {
    return { bytes: Buffer.from(transformModule(bytes, memoryPlan(bytes, jsOnly))).toString("hex") };
  } catch (error) {
    assert.ok(error instanceof TypeError, `not a TypeError: ${error}`);
    return { error: error.message };
  }
}

const codeOf = (bytes) => readSections(bytes).find((s) => s.id === SECTION.code);

function wasmRewrites(bytes) {
  return rewriteCodeInWasm(bytes, codeOf(bytes), {
    firstDefined: 2,
    shift: 2,
    calls: [
      [OP.memorySize, 2],
      [OP.memoryGrow, 3],
    ],
  });
}

describe("the code section rewrite in wasm", () => {
  test("a module of every instruction family it reads: rewritten in wasm, the JS walker's bytes, valid", async () => {
    const bytes = await watToBytesWith(WAT, FEATURES, { names: true });
    const fast = wasmRewrites(bytes);
    assert.notEqual(fast, null, "the wasm rewrite gave up");
    assert.equal(fast.replaced, 2);
    const wasm = outcome(bytes, false);
    assert.deepEqual(wasm, outcome(bytes, true));
    const out = Buffer.from(wasm.bytes, "hex");
    assert.ok(WebAssembly.validate(out), "the rewritten module does not validate");
    assert.ok(WebAssembly.Module.imports(new WebAssembly.Module(out)).some((i) => i.name === "memory_grow"));
  });

  test("what it does not read (SIMD) is left to the JS walker: the same bytes", async () => {
    const simd = WAT.replace("(local.get 0))\n  (func $c", "(i32x4.extract_lane 0 (i32x4.splat (local.get 0))))\n  (func $c");
    const bytes = await watToBytesWith(simd, { ...ALL_FEATURES }, { names: true });
    assert.equal(wasmRewrites(bytes), null);
    assert.deepEqual(outcome(bytes, false), outcome(bytes, true));
  });

  test("memory.size of memory 1: it gives up, and the pass's TypeError is the JS walker's", async () => {
    const bytes = await watToBytesWith(WAT, FEATURES);
    const at = bytes.findIndex((b, i) => b === OP.memorySize && bytes[i + 1] === 0 && bytes[i + 2] === 0x6a); // memory.size; i32.add
    assert.ok(at > 0);
    const other = bytes.slice();
    other[at + 1] = 1;
    assert.equal(wasmRewrites(other), null);
    assert.throws(() => rewriteMemoryGrowth(other), /memory index 0/);
  });

  test("mutated bodies (hostile bytes): the same bytes or the same TypeError both ways", async () => {
    const bytes = await watToBytesWith(WAT, FEATURES, { names: true });
    const code = codeOf(bytes);
    let seed = 12345;
    const rand = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let differed = 0;
    let inWasm = 0;
    for (let i = 0; i < 600; i++) {
      const mutated = bytes.slice();
      for (let k = 1 + rand(3); k > 0; k--) mutated[code.contentStart + rand(code.end - code.contentStart)] = rand(256);
      if (wasmRewrites(mutated) !== null) inWasm++;
      const wasm = outcome(mutated, false);
      assert.deepEqual(wasm, outcome(mutated, true), `mutation ${i}`);
      if (wasm.bytes !== outcome(bytes, true).bytes) differed++;
    }
    assert.ok(differed > 500, `only ${differed} mutations changed the outcome`);
    assert.ok(inWasm > 100, `only ${inWasm} mutated modules were rewritten in wasm`);
  });

  test("the pass's cache (lib/worker/guest-memory.js): kept from a module's second rewrite, never stale", async () => {
    const bytes = await watToBytesWith(WAT.replace("(i32.const 9)", "(i32.const 11)"), FEATURES);
    const rewrite = (b) => rewriteGuestMemory(b, { reserveMemory: true });
    const [first, second, third] = [rewrite(bytes), rewrite(bytes), rewrite(bytes)];
    assert.ok(first.rewritten && second.rewritten && third.rewritten);
    assert.notEqual(first.bytes, second.bytes, "cached at the first rewrite (a copy of the module's bytes)");
    assert.equal(third.bytes, second.bytes, "not cached at the second rewrite");
    assert.deepEqual(first.bytes, third.bytes);
    // The caller changes its buffer: the cached copy does not change with it.
    const at = bytes.findIndex((b, i) => b === 0x41 && bytes[i + 1] === 11); // i32.const 11
    assert.ok(at > 0);
    bytes[at + 1] = 12;
    assert.deepEqual(rewrite(bytes).bytes, rewriteMemoryGrowth(bytes).bytes);
    assert.notDeepEqual(rewrite(bytes).bytes, third.bytes);
  });

  for (const name of ["zstd.wasm", "pigz.wasm"]) {
    const path = join(REAL, name);
    const missing = existsSync(path) ? false : `${path} is not present (../shared/real-programs)`;
    test(`${name}: rewritten in wasm, byte for byte the JS walker's`, { skip: !process.env.CI && missing }, () => {
      const bytes = new Uint8Array(readFileSync(path));
      assert.notEqual(wasmRewrites(bytes), null, "the wasm rewrite gave up");
      const wasm = outcome(bytes, false);
      assert.equal(wasm.bytes, outcome(bytes, true).bytes);
      assert.equal(Buffer.from(wasm.bytes, "hex").compare(Buffer.from(rewriteMemoryGrowth(bytes).bytes)), 0);
    });
  }

  let clang = true;
  try {
    execFileSync("clang-19", ["--version"], { stdio: "pipe" });
  } catch {
    clang = false;
  }
  test(
    "lib/wasm/code-rewriter-wasm.js is the build of src/wasm/rewrite_code.c",
    { skip: !process.env.CI && !clang && "clang-19 is not installed" },
    () => {
      execFileSync(process.execPath, [join(root, "scripts", "build-code-rewriter.js"), "--check"], { stdio: "pipe" });
    },
  );
});
