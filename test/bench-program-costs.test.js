// The bench's group 13 (bench/lib/program-costs-plan.js, program-tiers.js):
// its rows in the full and the quick run, the tiers read from perf's samples,
// and the targets evaluated on the Node 24 rows with the machine's Node's
// figures beside.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { programCostScenarios, programCostTargets } from "../bench/lib/program-costs-plan.js";
import { classify, perfCommand, tierFigures } from "../bench/lib/program-tiers.js";
import { watToBytes } from "./fixtures/build.js";

const full = (f) => f;
const quick = (_, q) => q;

test("the rows: zstd -V, the 512 MiB rows (8 MiB in the quick run), and 20 runs in a row per program up to 64 MiB", () => {
  const rows = new Map(programCostScenarios(full).map((s) => [s.id, s]));
  assert.equal(rows.get("costs-zstd-V").params.program, "zstd-V");
  assert.equal(rows.get("costs-zstd-T2-512").params.mib, 512);
  assert.equal(rows.get("costs-zstd-d-512").params.mib, 512);
  assert.equal(rows.get("costs-spread-zstd-d").params.runs, 20);
  assert.equal(rows.get("costs-spread-zstd-d").params.breakdown, false);
  assert.equal(rows.has("costs-spread-zstd-d-512"), false);
  for (const row of rows.values()) assert.equal(row.otherNode, true, `${row.id} runs on Node 24 too`);
  const small = new Map(programCostScenarios(quick).map((s) => [s.id, s]));
  assert.equal(small.get("costs-zstd-d-512").params.mib, 8);
  assert.equal(small.get("costs-spread-zstd-d").params.runs, 3);
  assert.deepEqual([...small.keys()], [...rows.keys()]);
});

const sample = (comm, tid, time, sym) => ({ comm, pid: 1, tid, time, sym });

test("the tiers: guest samples by their code's tier, hot Liftoff time, V8's named background threads", () => {
  const figures = classify([
    sample("MainThread", 1, 1.0, "Builtins_JSEntry"),
    sample("WorkerThread", 2, 1.001, "JS:f-7-liftoff"),
    sample("WorkerThread", 2, 1.002, "JS:f-7-liftoff"),
    sample("WorkerThread", 2, 1.003, "JS:g-8-liftoff"),
    sample("WorkerThread", 2, 1.011, "JS:f-7-turbofan"),
    sample("V8Worker", 3, 1.005, "v8::internal::compiler::InstructionSelectorT::VisitBlock"),
    sample("V8Worker", 3, 1.006, "v8::internal::wasm::WasmFullDecoder<...>::Decode"),
    sample("V8Worker", 3, 1.007, "v8::internal::Scavenger::ScavengeObject"),
    sample("libuv-worker", 4, 1.008, "read"),
  ]);
  assert.equal(figures.liftoffMs, 0.75);
  assert.equal(figures.liftoffHotMs, 0.5, "f's Liftoff samples: f got TurboFan code, g did not");
  assert.equal(figures.turbofanMs, 0.25);
  assert.ok(Math.abs(figures.firstTurbofanMs - 10) < 1e-6, String(figures.firstTurbofanMs));
  assert.equal(figures.bgCompileMs, 0.5);
  assert.equal(figures.bgMs, 0.75);
});

test("the tiers where no thread is named (Node 20): background threads are those that never ran an isolate's code", () => {
  const figures = classify([
    sample("node", 1, 1.0, "read"),
    sample("node", 2, 1.001, "Builtins_InterpreterEntryTrampoline"),
    sample("node", 2, 1.002, "v8::internal::Scanner::Next"),
    sample("node", 3, 1.003, "v8::internal::wasm::LiftoffCompiler::Foo"),
    sample("node", 3, 1.004, "malloc"),
    sample("node", 4, 1.005, "JS:h-3-turbofan"),
  ]);
  assert.equal(figures.bgMs, 0.5, "thread 3 only: 1 is the main thread, 2 and 4 ran JS and guest code");
  assert.equal(figures.bgCompileMs, 0.25);
  assert.equal(figures.turbofanMs, 0.25);
  assert.equal(figures.liftoffMs, 0);
});

// Two functions doing the same loop, one compiled by TurboFan and the other
// kept in Liftoff (V8's test flags make that deterministic).
const LOOPS_WAT = `(module
  (func $loop (param $n i32) (result i32) (local $x i32)
    (loop $l (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 31)) (local.get $n)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $x))
  (func (export "optimized") (param i32) (result i32) (call $loop (local.get 0)))
  (func (export "baseline") (param $n i32) (result i32) (local $x i32)
    (loop $l (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 31)) (local.get $n)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $x)))`;

const perfWorks =
  spawnSync("perf", ["record", "-q", "-e", "task-clock", "-o", "/dev/null", "--", "true"], { stdio: "ignore" }).status === 0;

test(
  "the tiers of a real run: this Node's map names the code of both tiers",
  { skip: !perfWorks && "perf cannot sample here" },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "wtp-bench-tiers-"));
    try {
      writeFileSync(join(dir, "loops.wasm"), await watToBytes(LOOPS_WAT, "loops.wat"));
      writeFileSync(
        join(dir, "run.cjs"),
        `const bytes = require("fs").readFileSync(${JSON.stringify(join(dir, "loops.wasm"))});
       const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
       let x = 0;
       for (const f of ["optimized", "baseline"]) for (let i = 0; i < 20; i++) x ^= instance.exports[f](5e6);
       console.log(x);`,
      );
      const [file, args] = perfCommand(
        process.execPath,
        ["--no-wasm-tier-up", "--no-wasm-dynamic-tiering", "--wasm-tier-mask-for-testing=1", join(dir, "run.cjs")],
        dir,
      );
      const run = spawnSync(file, args, { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      const figures = tierFigures(dir);
      assert.ok(figures.turbofanMs > 0, JSON.stringify(figures));
      assert.ok(figures.liftoffMs > 0, JSON.stringify(figures));
      assert.equal(figures.liftoffHotMs, 0, "no function ran in both tiers");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("the targets: Node 24's rows decide, the machine's Node's figure beside; the spread of 20 runs", () => {
  const results = {
    "costs-hello@node24": { runner: 32, node: 25 },
    "costs-hello": { runner: 120, node: 80 },
    "costs-zstd-V@node24": { runner: 50, node: 25 },
    "costs-zstd-d-512@node24": { runner: 1000, native: 850 },
    "costs-spread-pigz-c@node24": { runner: 2.5, native: 1.1 },
    "costs-spread-pigz-c": { runner: 1.2 },
  };
  const figure = (id, variant, metric) =>
    metric === "slowestRatio:value" || metric === "wallMs:value" ? results[id]?.[variant] : undefined;
  const fr = (v) => (Number.isFinite(v) ? v.toFixed(2) : "-");
  const f1 = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : "-");
  const added = [];
  programCostTargets((key, name, want, value, ok, figureText, note) => added.push({ name, want, value, ok, figureText, note }), {
    figure,
    fr,
    f1,
  });
  assert.deepEqual(
    added.map((t) => [t.want, t.ok]),
    [
      ["<= 1.3", true],
      ["<= +20 ms", false],
      ["<= 1.2", true],
      ["<= 2", false],
    ],
  );
  const [hello, version, big, spread] = added;
  assert.match(hello.name, /hello world.*Node 24/);
  assert.equal(hello.value, 32 / 25);
  assert.match(hello.note, /^Node \d+: 1\.50 \(120 ms against 80 ms\)$/);
  assert.equal(version.value, 25);
  assert.match(version.figureText, /^\+25 ms \(50 ms against 25 ms\)$/);
  assert.match(big.name, /zstd -d .*512 MiB: runner \/ native/);
  assert.match(spread.note, /1\.20; native's own: 1\.10/);
});
