// The wasm decoder and pass engine (lib/wasm/): every instruction of real
// modules is read; a transform with nothing to do gives the same bytes back;
// a transform that adds an import (every defined function's index moves)
// and appends a function gives a module that validates and computes what
// the original computes.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { readInstructions, readSections, transformModule } from "../lib/wasm/module.js";
import { OP } from "../lib/wasm/instructions.js";
import { encodeS, encodeU, Reader } from "../lib/wasm/reader.js";
import { ALL_FEATURES, watToBytesWith } from "./support/wasm-features.js";
import { SHARED, buildWasiPrograms, PROGRAMS_DIR } from "./support/wasi-programs.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

// Every .wasm the tree can offer: the real programs (../shared), the WASI
// behaviour programs (built here), the guests (when built).
function realModules() {
  const files = [];
  const add = (dir) => {
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir)) if (f.endsWith(".wasm")) files.push(join(dir, f));
  };
  add(join(SHARED, "real-programs"));
  if (buildWasiPrograms() === false) add(PROGRAMS_DIR);
  add(join(ROOT, "guest", "out"));
  return files;
}

// Uses call, return_call, call_indirect through an element segment, ref.func
// in a global and in a declarative segment, the start function, exports,
// names, exception handling, SIMD, bulk memory, atomics, multi-value blocks.
const FEATURE_WAT = `(module
  (import "env" "memory" (memory 1 2 shared))
  (import "env" "base" (func $base (result i32)))
  (type $pair (func (result i32 i32)))
  (tag $oops (param i32))
  (table 4 funcref)
  (global $fn (mut funcref) (ref.func $seven))
  (global $started (mut i32) (i32.const 0))
  (elem (i32.const 0) $seven $nine)
  (elem declare func $twice)
  (func $seven (result i32) (i32.const 7))
  (func $nine (result i32) (i32.const 9))
  (func $twice (param i32) (result i32) (i32.add (local.get 0) (local.get 0)))
  (func $tail (result i32) (return_call $seven))
  (func $init (global.set $started (i32.const 100)))
  (func $pairs (type $pair) (i32.const 3) (i32.const 4))
  (func $caught (result i32)
    (try (result i32)
      (do (throw $oops (i32.const 42)))
      (catch $oops)))
  (func $vec (result i32)
    (i32x4.extract_lane 2 (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 10 20 30 40))))
  (func $bulk (result i32)
    (memory.fill (i32.const 64) (i32.const 5) (i32.const 8))
    (memory.copy (i32.const 128) (i32.const 64) (i32.const 8))
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 2)))
    (i32.add (i32.load8_u (i32.const 135)) (i32.atomic.load (i32.const 0))))
  (func (export "run") (result i32)
    (local $a i32) (local $b i32)
    (block $done (type $pair) (call $pairs))
    (local.set $b) (local.set $a)
    (i32.add (i32.add (i32.add (call $base) (call $tail))
      (i32.add (call_indirect (result i32) (i32.const 1)) (call_ref $pair? 0)))
      (i32.add (i32.add (local.get $a) (local.get $b)) (i32.add (global.get $started)
        (i32.add (call $caught) (i32.add (call $vec) (call $bulk)))))))
  (start $init))`.replace("(call_ref $pair? 0)", "(call $twice (i32.const 5))");

const FEATURES = ALL_FEATURES;

async function featureModule() {
  return watToBytesWith(FEATURE_WAT, FEATURES, { names: true });
}

function run(bytes, extra = {}) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory, base: () => 1000 }, ...extra });
  return instance.exports.run();
}

describe("wasm decoder", () => {
  test("reads every instruction of every real module, and a transform with nothing to do gives the same bytes", (t) => {
    const files = realModules();
    if (files.length === 0) return t.skip("no .wasm found (../shared absent, clang-19 missing)");
    for (const file of files) {
      const bytes = new Uint8Array(readFileSync(file));
      assert.ok(readInstructions(bytes) > 0, file);
      const same = transformModule(bytes, {});
      assert.deepEqual(Buffer.from(same), Buffer.from(bytes), `${file}: the identity transform changed bytes`);
    }
  });

  test("the feature module round-trips unchanged", async () => {
    const bytes = await featureModule();
    assert.ok(WebAssembly.validate(bytes));
    assert.ok(
      readSections(bytes).some((s) => s.name === "name"),
      "wabt wrote a name section",
    );
    assert.deepEqual(Buffer.from(transformModule(bytes, {})), Buffer.from(bytes));
  });

  test("an added import shifts every function index; an appended function keeps them; replacements apply", async () => {
    const bytes = await featureModule();
    const expected = run(bytes);
    // i32.const 7 (in $seven) becomes a call of the appended function, which
    // returns the added import's value (7 from the host) through a call.
    const out = transformModule(bytes, {
      imports: [{ module: "extra", name: "seven", params: [], results: [0x7f] }],
      functions: [
        { params: [], results: [0x7f], locals: [0x7f], body: (ix) => Uint8Array.of(OP.call, ...encodeU(ix.imports[0]), 0x0b) },
      ],
      replace(ins, ix) {
        if (ins.op !== 0x41) return undefined;
        if (new Reader(bytes, ins.start + 1, ins.end).s() !== 7) return undefined;
        return Uint8Array.of(OP.call, ...encodeU(ix.functions[0]));
      },
    });
    assert.ok(WebAssembly.validate(out), "the transformed module validates");
    let calls = 0;
    const got = run(out, { extra: { seven: () => (calls++, 7) } });
    assert.equal(got, expected);
    assert.equal(calls, 1, "the replaced i32.const 7 ran once, through the appended function and the import");
    // The export and the name section still name the right functions.
    const names = WebAssembly.Module.customSections(new WebAssembly.Module(out), "name");
    assert.equal(names.length, 1);
  });

  test("LEB128 encoders round-trip", () => {
    for (const v of [0, 1, 63, 64, 127, 128, 16383, 16384, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 40]) {
      assert.equal(new Reader(encodeU(v)).u(64), v);
    }
    for (const v of [0, 1, -1, 63, 64, -64, -65, 2 ** 31 - 1, -(2 ** 31), -(2 ** 40)]) {
      assert.equal(new Reader(encodeS(v)).s(64), v);
    }
  });

  test("a truncated or unknown binary is a TypeError, never a wrong read", async () => {
    const bytes = await featureModule();
    for (let cut = 9; cut < bytes.length; cut += 7) {
      try {
        readInstructions(bytes.subarray(0, cut));
      } catch (error) {
        assert.ok(error instanceof TypeError, `cut at ${cut}: ${error}`);
      }
    }
  });
});
