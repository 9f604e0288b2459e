// The thread-wave guest (guest/, guest/README.md) end to end on this package's
// Node host, on both pool implementations: the SDK guest test's workload
// (SDK-CONTRACT 5) with real wasi-threads, spawns from the main thread and
// from guest threads (nested), a growing pool, 14,000 threads in one call,
// and a declined spawn.

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { getWasiThreadPoolImplementation } from "../lib/pool.js";
import {
  EXPECTED_14K_OUTPUT_HEX,
  EXPECTED_OUTPUT_HEX,
  WAVE_MODES,
  compileWaveGuest,
  runThreadWave,
  threadWaveSpawns,
} from "./support/wave-harness.js";

const LANES = [1, 2, 4, 8];
const nativeAvailable = getWasiThreadPoolImplementation().native.available;
const label = (mode) => (mode === "" ? '""' : mode);

let module;
before(async () => {
  module = await compileWaveGuest(); // builds the guest if needed; once per file
});

function assertRun(run, expectedHex) {
  assert.equal(run.status, 0, `status ${run.status}: ${run.errorCode} ${run.errorMessage}`);
  assert.equal(run.output, expectedHex);
  assert.equal(run.guest.declined, 0);
}

for (const implementation of ["native", "js"]) {
  const skip =
    implementation === "native" && !nativeAvailable
      ? `native addon unavailable: ${getWasiThreadPoolImplementation().native.error}`
      : false;

  describe(`thread waves, ${implementation} pool`, { skip }, () => {
    for (const mode of WAVE_MODES) {
      for (const lanes of LANES) {
        test(`mode ${label(mode)}, ${lanes} lanes, poolSize ${lanes}`, async () => {
          const r = await runThreadWave({ module, lanes, mode, poolSize: lanes, implementation });
          const [run] = r.runs;
          assertRun(run, EXPECTED_OUTPUT_HEX);
          const spawns = threadWaveSpawns(lanes, { mode });
          assert.equal(run.guest.spawned, spawns);
          assert.equal(r.report.spawned, spawns);
          assert.equal(r.spawnCount, spawns);
          assert.equal(r.report.declined, 0);
          assert.deepEqual(r.report.declinedByReason, {});
          assert.equal(r.report.poolSize, lanes);
          assert.ok(r.workers <= lanes, `${r.workers} workers for a pool of ${lanes}`);
          assert.equal(r.active, 0);
        });
      }
    }

    for (const mode of WAVE_MODES) {
      test(`mode ${label(mode)}, 8 lanes, no pool size: workers are reused`, async () => {
        const r = await runThreadWave({ module, lanes: 8, mode, implementation });
        const [run] = r.runs;
        assertRun(run, EXPECTED_OUTPUT_HEX);
        const spawns = threadWaveSpawns(8, { mode });
        assert.equal(run.guest.spawned, spawns);
        assert.equal(r.report.spawned, spawns);
        assert.equal(r.report.declined, 0);
        assert.equal(r.report.poolSize, null);
        assert.ok(r.workers >= 1 && r.workers <= 16, `${r.workers} workers`);
        assert.ok(r.workers < spawns, `${r.workers} workers for ${spawns} threads: not reused`);
        assert.equal(r.active, 0);
      });
    }

    describe("14,000 threads in one call (2000 waves of 7, 16 rounds)", () => {
      const waves = 2000;
      const rounds = 16;
      let reference;
      before(async () => {
        const r = await runThreadWave({ module, lanes: 1, waves, rounds, implementation });
        assertRun(r.runs[0], EXPECTED_14K_OUTPUT_HEX);
        assert.equal(r.report.spawned, 0);
        reference = r.runs[0].output;
      });

      for (const [mode, poolSize] of [
        ["", undefined],
        ["nested", 8],
      ]) {
        const what = poolSize === undefined ? "no pool size" : `poolSize ${poolSize}`;
        test(`mode ${label(mode)}, 8 lanes, ${what}`, async (t) => {
          const r = await runThreadWave({ module, lanes: 8, mode, waves, rounds, poolSize, implementation });
          const [run] = r.runs;
          assertRun(run, reference);
          assert.equal(run.guest.spawned, 14000);
          assert.equal(r.report.spawned, 14000);
          assert.equal(r.report.declined, 0);
          assert.ok(r.workers <= 16, `${r.workers} workers`);
          const line =
            `14,000 threads, ${implementation} pool, mode ${label(mode)}, ${what}: ` +
            `${run.wallMs.toFixed(0)} ms, ${r.workers} workers, ${r.report.waited} spawns waited`;
          t.diagnostic(line);
          console.log(line);
        });
      }
    });

    test("4 lanes on a pool of 2 with spawnWaitMs 0: wave 0 declines its third spawn", async () => {
      const r = await runThreadWave({ module, lanes: 4, poolSize: 2, spawnWaitMs: 0, implementation });
      const [run] = r.runs;
      assert.equal(run.status, 20);
      assert.equal(run.output, null);
      assert.equal(run.errorCode, "thread-spawn-declined");
      assert.equal(run.errorMessage, "wave 0 declined spawn 3 of 3");
      assert.equal(run.guest.spawned, 2);
      assert.equal(run.guest.declined, 1);
      assert.equal(r.report.spawned, 2);
      assert.equal(r.report.declined, 1);
      assert.deepEqual(r.report.declinedByReason, { "pool-exhausted": 1 });
      assert.equal(r.report.lastDeclineReason, "pool-exhausted");
      assert.ok(r.workers <= 2);
    });

    test("nested, 4 lanes on a pool of 2 with spawnWaitMs 0: the coordinator is declined", async () => {
      const r = await runThreadWave({ module, lanes: 4, mode: "nested", poolSize: 2, spawnWaitMs: 0, implementation });
      const [run] = r.runs;
      assert.equal(run.status, 30);
      assert.equal(run.output, null);
      assert.equal(run.errorCode, "thread-spawn-declined");
      assert.equal(run.errorMessage, "wave 0 nested thread declined spawn 3 of 3");
      assert.equal(run.guest.spawned, 2);
      assert.equal(run.guest.declined, 1);
      assert.equal(r.report.spawned, 2);
      assert.equal(r.report.declined, 1);
      assert.deepEqual(r.report.declinedByReason, { "pool-exhausted": 1 });
      assert.ok(r.workers <= 2);
    });
  });
}
