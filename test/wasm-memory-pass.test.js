// The memory pass (lib/wasm/memory-pass.js) on generated modules: random
// valid modules (calls, call_indirect through a table, ref.func, blocks with
// results, loops, br_if, select, SIMD, exceptions, tail calls, the start
// function, names; memory.size and memory.grow among them) are assembled by
// wabt, rewritten, and must validate; a module without memory.size/grow
// comes back as the same bytes; one with them computes exactly what the
// original computes (every export called in turn, growth results included:
// old size, -1 past the maximum) when run over the reserved memory and the
// counter. Bounded: FUZZ_MODULES modules (default 120, about two seconds);
// FUZZ_SEED repeats a run.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rewriteMemoryGrowth } from "../lib/wasm/memory-pass.js";
import { transformModule } from "../lib/wasm/module.js";
import { MEMORY_IMPORT_MODULE, createMemoryCounter, memoryGrowthImports } from "../lib/wasm/memory-counter.js";
import { ALL_FEATURES, watToBytesWith } from "./support/wasm-features.js";

const FEATURES = ALL_FEATURES;
const MODULES = Number(process.env.FUZZ_MODULES ?? 120);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const INITIAL = 1;
const MAXIMUM = 6;

function prng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

// One module's text: `imports` host functions, `count` defined functions
// (param i32) (result i32); function k calls only functions below it (no
// recursion), so every call ends.
function generate(rand, { growth }) {
  const imports = rand(3);
  const count = 1 + rand(5);
  const total = imports + count;
  const leaves = [() => `(i32.const ${rand(2000) - 1000})`, () => "(local.get 0)", () => "(global.get $g)"];
  if (growth) leaves.push(() => "(memory.size)");
  function expr(depth, self) {
    if (depth === 0) return leaves[rand(leaves.length)]();
    const e = () => expr(depth - 1, self);
    const lower = self; // function indices below this one
    const forms = [
      () => `(i32.add ${e()} ${e()})`,
      () => `(i32.xor ${e()} ${e()})`,
      () => `(i32.mul ${e()} (i32.const 3))`,
      () => `(i32.load (i32.and ${e()} (i32.const 0xfffc)))`,
      () => `(block (result i32) ${e()})`,
      () => `(block (result i32) (br_if 0 ${e()} (i32.and ${e()} (i32.const 1))) (drop) ${e()})`,
      () => `(if (result i32) (i32.and ${e()} (i32.const 1)) (then ${e()}) (else ${e()}))`,
      () => `(select ${e()} ${e()} ${e()})`,
      () => `(loop (result i32) ${e()})`,
      () => `(i32x4.extract_lane 1 (i32x4.splat ${e()}))`,
      () => `(try (result i32) (do (throw $t ${e()})) (catch $t))`,
      () => `(block (result i32) (i32.store (i32.const ${4 * rand(64)}) ${e()}) (i32.const ${rand(9)}))`,
      () => `(block (result i32) (global.set $g ${e()}) (global.get $g))`,
    ];
    if (lower > 0) {
      forms.push(() => `(call ${rand(lower)} ${e()})`);
      forms.push(() => `(call_indirect (type $t1) ${e()} (i32.const ${rand(Math.min(lower, 4))}))`);
    }
    if (growth) forms.push(() => `(memory.grow (i32.and ${e()} (i32.const 3)))`);
    return forms[rand(forms.length)]();
  }
  const lines = ['(import "env" "memory" (memory 1 6 shared))'];
  for (let i = 0; i < imports; i++) lines.push(`(import "env" "h${i}" (func (type $t1)))`);
  lines.unshift("(type $t1 (func (param i32) (result i32)))");
  lines.push("(tag $t (param i32))");
  lines.push("(global $g (mut i32) (i32.const 5))");
  lines.push("(global $fr (mut funcref) (ref.func $f0))");
  for (let k = 0; k < count; k++) {
    const self = imports + k;
    const body = rand(4) === 0 && self > 0 ? `(return_call ${rand(self)} ${expr(2, self)})` : expr(1 + rand(3), self);
    lines.push(`(func $f${k} (export "f${k}") (type $t1) ${body})`);
  }
  const tableSize = Math.min(total, 4);
  lines.push(`(table ${tableSize} funcref)`);
  lines.push(`(elem (i32.const 0) ${Array.from({ length: tableSize }, (_, i) => i).join(" ")})`);
  lines.push(`(elem declare func ${imports})`);
  if (rand(2) === 0) lines.push(`(func $init (global.set $g (i32.const 11))) (start $init)`);
  return { text: `(module\n  ${lines.join("\n  ")})`, imports, count };
}

function hostImports(imports) {
  const env = {};
  for (let i = 0; i < imports; i++) env[`h${i}`] = (x) => (Math.imul(x | 0, 31 + i) + i) | 0;
  return env;
}

// Every export called in turn with a few arguments: results (or the trap's
// message) in order, then the size the program sees.
function runAll(bytes, { imports, count }, rewritten) {
  const memory = new WebAssembly.Memory({ initial: rewritten ? MAXIMUM : INITIAL, maximum: MAXIMUM, shared: true });
  const all = { env: { memory, ...hostImports(imports) } };
  let size = () => memory.buffer.byteLength / 65536;
  if (rewritten) {
    const counter = createMemoryCounter(INITIAL, MAXIMUM);
    all[MEMORY_IMPORT_MODULE] = memoryGrowthImports(counter);
    size = () => Atomics.load(counter, 0);
  }
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), all);
  const out = [];
  for (let k = 0; k < count; k++) {
    for (const arg of [0, 1, 7, -3]) {
      try {
        out.push(instance.exports[`f${k}`](arg));
      } catch (error) {
        out.push(`trap: ${error.message}`);
      }
    }
  }
  out.push(`size ${size()}`);
  return out;
}

describe("memory pass fuzz", () => {
  test(`${MODULES} generated modules (seed ${SEED}): validate; unchanged without growth; same results with it`, async () => {
    const rand = prng(SEED);
    let rewrittenCount = 0;
    for (let i = 0; i < MODULES; i++) {
      const growth = rand(3) !== 0;
      const module = generate(rand, { growth });
      const bytes = await watToBytesWith(module.text, FEATURES, { names: rand(2) === 0 });
      const where = `seed ${SEED}, module ${i}:\n${module.text}`;
      const result = rewriteMemoryGrowth(bytes);
      assert.ok(WebAssembly.validate(result.bytes), `${where}\nthe rewritten module does not validate`);
      if (!result.rewritten) {
        assert.equal(result.bytes, bytes, where);
        assert.deepEqual(Buffer.from(transformModule(bytes, {})), Buffer.from(bytes), where);
        continue;
      }
      rewrittenCount++;
      assert.ok(growth, `${where}\nrewritten without memory.size/grow`);
      assert.deepEqual(runAll(result.bytes, module, true), runAll(bytes, module, false), where);
    }
    assert.ok(rewrittenCount > MODULES / 3, `only ${rewrittenCount} of ${MODULES} modules had growth to rewrite`);
  });

  test(`hostile bytes (seed ${SEED}): a mutated module is rewritten or refused with a TypeError, nothing else`, async () => {
    const rand = prng(SEED + 1);
    for (let i = 0; i < 20; i++) {
      const module = generate(rand, { growth: true });
      const bytes = await watToBytesWith(module.text, FEATURES);
      for (let m = 0; m < 25; m++) {
        const mutant = bytes.slice();
        for (let k = 0; k <= rand(4); k++) mutant[8 + rand(mutant.length - 8)] = rand(256);
        try {
          rewriteMemoryGrowth(mutant);
        } catch (error) {
          assert.ok(error instanceof TypeError, `seed ${SEED}, module ${i}, mutant ${m}: ${error}`);
        }
      }
    }
  });

  test("memory_grow: the old size, or -1 past the maximum, atomically; memory_size follows", () => {
    const counter = createMemoryCounter(2, 5);
    const { memory_grow: grow, memory_size: size } = memoryGrowthImports(counter);
    assert.equal(grow(0), 2);
    assert.equal(grow(2), 2);
    assert.equal(size(), 4);
    assert.equal(grow(2), -1, "past the maximum");
    assert.equal(size(), 4, "a failed grow changes nothing");
    assert.equal(grow(-1), -1, "a negative i32 is a huge unsigned delta");
    assert.equal(grow(1), 4);
    assert.equal(grow(1), -1);
    assert.equal(size(), 5);
  });
});
