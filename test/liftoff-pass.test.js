// The Liftoff pass (lib/wasm/liftoff-pass.js): every memory.atomic.wait
// becomes a call of an appended function that does only the wait, so that
// Node 20's Liftoff hazard (lib/worker/liftoff.js) cannot lose the waiting
// function's values, with Liftoff left on. The hazard's cases run in
// pristine child processes: no --no-liftoff there unless a case sets it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { OP } from "../lib/wasm/instructions.js";
import { rewriteAtomicWaits, hasAtomicWait } from "../lib/wasm/liftoff-pass.js";
import { moduleCounts, scanCode } from "../lib/wasm/module.js";
import { probeLiftoffHazard } from "../lib/worker/liftoff.js";
import { watToBytes } from "./fixtures/build.js";

// Whether this engine has the hazard: the package's probe decides (held to a
// direct run of the hazard by test/liftoff.test.js). Probed in this process
// before it compiles anything else.
const AFFECTED = probeLiftoffHazard();
const url = (path) => JSON.stringify(new URL(path, import.meta.url).href);
const REAL = new URL("../../shared/real-programs/", import.meta.url);

// The hazard's shapes: a param, a local and an operand-stack value, each
// live across a wait that returns "not-equal" at once (word 0 holds 0, the
// wait expects 1), in one function; and the same with wait64. A correct
// engine returns $b from each export.
const HAZARDS_WAT = `(module
  (memory 1 1 shared)
  (func (export "param") (param $a i32) (param $b i32) (result i32)
    (drop (memory.atomic.wait32 (local.get $a) (i32.const 1) (i64.const 0)))
    (local.get $b))
  (func (export "local") (param $a i32) (param $b i32) (result i32) (local $x i32)
    (local.set $x (local.get $b))
    (drop (memory.atomic.wait32 offset=4 (local.get $a) (i32.const 1) (i64.const 0)))
    (local.get $x))
  (func (export "stack") (param $a i32) (param $b i32) (result i32)
    (i32.sub (i32.add (local.get $b) (i32.const 1))
      (memory.atomic.wait32 (local.get $a) (i32.const 1) (i64.const 0))))
  (func (export "wait64") (param $a i32) (param $b i32) (result i32)
    (drop (memory.atomic.wait64 offset=8 (local.get $a) (i64.const 1) (i64.const 0)))
    (local.get $b)))`;
const hazardBytes = await watToBytes(HAZARDS_WAT, "hazards.wat");

// Runs each export `rounds` times in a fresh process (Liftoff on, V8's
// dynamic tiering: the hot functions tier up to TurboFan along the way) and
// counts the wrong answers. compile: "plain" (WebAssembly.Module of the
// bytes) or "rewritten" (of rewriteAtomicWaits' bytes) or "guest"
// (compileWasiThreadGuest). Prints {wrong, state}.
function wrongAnswers(bytes, compile, rounds = 20000) {
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "--eval",
      `
      const { rewriteAtomicWaits } = await import(${url("../lib/wasm/liftoff-pass.js")});
      const { compileWasiThreadGuest, liftoffHazardState } = await import(${url("../lib/worker/liftoff.js")});
      const bytes = new Uint8Array(${JSON.stringify([...bytes])});
      const how = ${JSON.stringify(compile)};
      const module = how === "guest" ? await compileWasiThreadGuest(bytes)
        : new WebAssembly.Module(how === "rewritten" ? rewriteAtomicWaits(bytes).bytes : bytes);
      const exports = new WebAssembly.Instance(module).exports;
      const wrong = {};
      for (const name of ["param", "local", "stack", "wait64"]) {
        wrong[name] = 0;
        for (let i = 0; i < ${rounds}; i++) if (exports[name](0, i + 7) !== i + 7) wrong[name]++;
      }
      console.log(JSON.stringify({ wrong, state: liftoffHazardState() }));
      `,
    ],
    { encoding: "utf8" },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test("a module without a wait comes back as it is (the same object)", async () => {
  const bytes = await watToBytes(
    `(module (memory 1 1 shared) (func (export "f") (param i32) (result i32)
       (memory.atomic.notify (local.get 0) (i32.const 1))))`,
    "nowait.wat",
  );
  assert.equal(hasAtomicWait(bytes), false);
  const out = rewriteAtomicWaits(bytes);
  assert.equal(out.rewritten, false);
  assert.equal(out.bytes, bytes);
});

test("each wait becomes a call of one appended wrapper per distinct wait; the result validates", () => {
  const out = rewriteAtomicWaits(hazardBytes);
  assert.equal(out.rewritten, true);
  assert.equal(out.waits, 4);
  assert.equal(WebAssembly.validate(out.bytes), true);
  assert.equal(hasAtomicWait(hazardBytes), true);
  const module = new WebAssembly.Module(out.bytes);
  // Exports and imports are those of the original: only functions appended.
  assert.deepEqual(WebAssembly.Module.exports(module), WebAssembly.Module.exports(new WebAssembly.Module(hazardBytes)));
  // Three distinct waits (wait32 at offset 0, used twice: one wrapper;
  // wait32 at offset 4; wait64 at offset 8): three wrappers appended.
  assert.equal(out.bytes.length > hazardBytes.length, true);
  const again = rewriteAtomicWaits(out.bytes);
  assert.equal(again.waits, 3, "the rewritten module's only waits are its wrappers'");
});

test("the probe module, rewritten, answers right with Liftoff on (plain, it does not where the engine is affected)", () => {
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "--eval",
      `
      const { probeLiftoffHazard } = await import(${url("../lib/worker/liftoff.js")});
      const { rewriteAtomicWaits } = await import(${url("../lib/wasm/liftoff-pass.js")});
      const rewritten = probeLiftoffHazard((bytes) => rewriteAtomicWaits(bytes).bytes);
      console.log(JSON.stringify({ plain: probeLiftoffHazard(), rewritten }));
      `,
    ],
    { encoding: "utf8" },
  );
  assert.equal(child.status, 0, child.stderr);
  const { plain, rewritten } = JSON.parse(child.stdout);
  assert.equal(plain, AFFECTED, "a pristine process probes as this one did");
  assert.equal(rewritten, false, "the rewritten probe lost its param");
});

test("Liftoff on, tier-up included: plain code loses values across the wait (where affected), rewritten code never", () => {
  const plain = wrongAnswers(hazardBytes, "plain");
  if (AFFECTED)
    assert.ok(
      Object.values(plain.wrong).every((n) => n > 0),
      JSON.stringify(plain),
    );
  const rewritten = wrongAnswers(hazardBytes, "rewritten");
  assert.deepEqual(rewritten.wrong, { param: 0, local: 0, stack: 0, wait64: 0 });
  assert.equal(rewritten.state.protected, false);
});

test("compileWasiThreadGuest rewrites and sets no flag: right answers, --no-liftoff never applied", () => {
  const { wrong, state } = wrongAnswers(hazardBytes, "guest");
  assert.deepEqual(wrong, { param: 0, local: 0, stack: 0, wait64: 0 });
  assert.equal(state.protected, false, "compileWasiThreadGuest applied --no-liftoff");
});

test(
  "the real programs: rewritten, their waits replaced, valid",
  { skip: !existsSync(REAL) && "../shared/real-programs absent" },
  () => {
    for (const name of ["zstd.wasm", "pigz.wasm"]) {
      const bytes = new Uint8Array(readFileSync(new URL(name, REAL)));
      const out = rewriteAtomicWaits(bytes);
      assert.equal(out.rewritten, true, name);
      assert.ok(out.waits > 0, name);
      assert.equal(WebAssembly.validate(out.bytes), true, name);
      // Every wait left is in an appended wrapper (after the original functions).
      const { importedFunctions, definedFunctions } = moduleCounts(bytes);
      scanCode(out.bytes, (ins, index) => {
        if (ins.op === OP.memoryAtomicWait32 || ins.op === OP.memoryAtomicWait64) {
          assert.ok(index >= importedFunctions + definedFunctions, `${name}: a wait left in function ${index}`);
        }
      });
    }
  },
);
