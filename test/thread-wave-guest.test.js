// The thread-wave guest by itself (guest/README.md), independent of this
// package's pool and host: the native reference of its arithmetic, its
// imports and exports, and runs on a minimal host of plain Node workers
// (test/support/wave-direct.js).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { before, test } from "node:test";

import {
  EXPECTED_14K_OUTPUT_HEX,
  EXPECTED_OUTPUT_HEX,
  WAVE_MODES,
  readWaveGuest,
  threadWaveSpawns,
} from "./support/wave-guest.js";
import { compileWaveModule, runWaveDirect } from "./support/wave-direct.js";

const WAVE_REF = fileURLToPath(new URL("../guest/out/wave_ref", import.meta.url));
let module;

before(() => {
  module = compileWaveModule(readWaveGuest()); // builds guest/out if needed
});

test("the native reference reproduces the published bytes for any lane count", () => {
  const table = execFileSync(WAVE_REF, { encoding: "utf8" }); // exits 1 on a mismatch
  assert.match(table, /waves=3 rounds=2048 lanes=8 ecbe247c0e7e1dec ok/);
  assert.match(table, /waves=2000 rounds=16 lanes=8 67b092ecfada4a65 ok/);
  assert.equal(execFileSync(WAVE_REF, ["3", "2048", "5"], { encoding: "utf8" }).trim(), EXPECTED_OUTPUT_HEX);
});

test("imports and exports: a wasi-threads guest with shared imported memory", () => {
  const imports = WebAssembly.Module.imports(module).map((e) => `${e.module}.${e.name}:${e.kind}`);
  assert.deepEqual(imports.sort(), [
    "env.memory:memory",
    "wasi.thread-spawn:function",
    "wasi_snapshot_preview1.environ_get:function",
    "wasi_snapshot_preview1.environ_sizes_get:function",
  ]);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  for (const name of ["waves", "wasi_thread_start", "wave_output_ptr", "wave_error_ptr", "wave_error_code_ptr", "wave_stat"]) {
    assert.ok(exports.includes(name), name);
  }
});

for (const mode of WAVE_MODES) {
  test(`direct host, mode ${mode || '""'}, lanes 1, 4, 8`, async () => {
    for (const lanes of [1, 4, 8]) {
      const r = await runWaveDirect({ module, lanes, mode });
      assert.equal(r.status, 0, r.errorMessage ?? "");
      assert.equal(r.output, EXPECTED_OUTPUT_HEX);
      assert.equal(r.guest.spawned, threadWaveSpawns(lanes, { mode }));
      assert.equal(r.spawned, r.guest.spawned);
      assert.equal(r.guest.declined, 0);
      assert.equal(r.guest.lanes, lanes);
      assert.equal(r.guest.mode, lanes > 1 || mode !== "nested" ? mode : "nested");
      assert.ok(r.guest.peakThreadRecords <= lanes);
    }
  });
}

test("direct host: lanes are clamped to 64; the bytes match the native reference", async () => {
  // 63 threads per wave on 8 workers: spawns wait for a worker to come free.
  const r = await runWaveDirect({ module, lanes: 200, waves: 1, rounds: 1, workers: 8 });
  assert.equal(r.status, 0);
  assert.equal(r.guest.lanes, 64);
  assert.equal(r.guest.spawned, 63);
  assert.equal(r.guest.waves, 1);
  assert.equal(r.guest.rounds, 1);
  const ref = execFileSync(WAVE_REF, ["1", "1", "1"], { encoding: "utf8" }).trim();
  assert.equal(r.output, ref);
});

test("direct host: 14,000 threads, the published bytes", async () => {
  const r = await runWaveDirect({ module, lanes: 8, mode: "nested", waves: 2000, rounds: 16, workers: 8 });
  assert.equal(r.status, 0);
  assert.equal(r.output, EXPECTED_14K_OUTPUT_HEX);
  assert.equal(r.spawned, 14000);
});

// Which spawn declines is forced: each worker runs one thread (reuse: false),
// so with spawnWaitMs 0 the spawn after the first `workers` declines, on the
// main thread (mode "") or in the coordinator (mode "nested": the coordinator
// is spawn 1 of its wave). 2 workers: wave 0's third spawn; 4 workers: wave
// 0 takes 3 of them, wave 1's second spawn declines.
test("direct host: declines give 20 + wave on the main thread, 30 + wave in the coordinator", async () => {
  const declines = [
    { mode: "", workers: 2, status: 20, message: "wave 0 declined spawn 3 of 3" },
    { mode: "", workers: 4, status: 21, message: "wave 1 declined spawn 2 of 3" },
    { mode: "nested", workers: 2, status: 30, message: "wave 0 nested thread declined spawn 3 of 3" },
    { mode: "nested", workers: 4, status: 31, message: "wave 1 nested thread declined spawn 2 of 3" },
  ];
  for (const { mode, workers, status, message } of declines) {
    const what = `mode ${mode || '""'}, ${workers} workers`;
    const r = await runWaveDirect({ module, lanes: 4, mode, waves: 2, workers, spawnWaitMs: 0, reuse: false });
    assert.equal(r.status, status, what);
    assert.equal(r.errorCode, "thread-spawn-declined", what);
    assert.equal(r.errorMessage, message, what);
    assert.equal(r.output, null, what);
    // One thread per worker, then the one decline: the host's counts and the guest's.
    assert.equal(r.spawned, workers, what);
    assert.equal(r.declined, 1, what);
    assert.equal(r.guest.spawned, workers, what);
    assert.equal(r.guest.declined, 1, what);
  }
});
