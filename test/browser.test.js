// The thread-wave guest (guest/, guest/README.md) end to end in headless
// Chromium on this package's browser host: a cross-origin isolated page
// served from 127.0.0.1 (test/browser/server.js), the guest's main thread in
// a module Worker (test/browser/owner.js), its threads on the pool of module
// workers of lib/wasiThreadBrowserWorker.mjs.
//
// Needs Debian's chromium at /usr/bin/chromium (CHROMIUM_PATH overrides) and
// npm playwright-core. With CI=true a browser that cannot run fails the test;
// otherwise the suite is skipped with the reason.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { EXPECTED_OUTPUT_HEX, WAVE_MODES, readWaveGuest, threadWaveSpawns } from "./support/wave-guest.js";
import { openWavePage } from "./browser/chromium.js";
import { BUNDLED_WORKER_PATH } from "./browser/server.js";

const CI = process.env.CI === "true";
const LANES = [1, 2, 4, 8];
const INVOKES = 2;
// Arming (every worker fetches the chain, makes its runtime and answers the
// probe) took 1.2-1.7 s for 8 module workers on a 2-core machine with lib/
// served as a directory, around the host's 1500 ms default probe deadline;
// a late worker is dropped (partial arming) and the pool is smaller than
// asked. The test is about the guest on the pool, so it gives arming time
// and reports how long arming took (armMs).
const PROBE_TIMEOUT_MS = 15000;
const label = (mode) => (mode === "" ? '""' : mode);

// Everything the suite needs, or the reason it cannot run.
async function setUp() {
  readWaveGuest(); // builds guest/out/thread-wave.wasm if needed
  const env = await openWavePage();
  try {
    return { ...env, info: await env.page.evaluate(() => globalThis.pageInfo()) };
  } catch (error) {
    await env.browser.close().catch(() => {});
    await env.server.close();
    throw error;
  }
}

let env = null;
let unavailable = null;
try {
  env = await setUp();
} catch (error) {
  unavailable = String(error?.message ?? error).split("\n")[0];
}
const skip = unavailable && !CI ? `headless Chromium cannot run here: ${unavailable}` : false;

// The bundled worker (dist/) when the package has one, else lib/ served as a
// directory (the host's default anchor, lib/wasiThreadBrowserWorker.mjs).
const workerMode = existsSync(BUNDLED_WORKER_PATH) ? "bundle" : "directory";
const workerOptions = (mode = workerMode) =>
  mode === "bundle" ? { workerUrl: `${env.server.origin}/dist/wasiThreadBrowserWorker.mjs` } : {};

async function runInPage(config) {
  const mark = env.consoleLines.length;
  const result = await env.page.evaluate((c) => globalThis.runWaveOwner(c), config);
  const console = env.consoleLines.slice(mark);
  return { result, console };
}

function describeRun(result) {
  return JSON.stringify(result, null, 1);
}

function summary(what, r) {
  const runs = r.runs.map((run) => `${run.status}/${run.output}/${run.guest.spawned}`).join(" ");
  return (
    `${what}: hardwareConcurrency ${r.hardwareConcurrency}, crossOriginIsolated ${r.crossOriginIsolated}, ` +
    `poolSize ${r.report.poolSize}, armed ${r.report.armed}, workers ${r.poolWorkers}, ` +
    `spawned ${r.report.spawned}, waited ${r.report.waited}, declined ${r.report.declined}, ` +
    `active ${r.active}, armed in ${Math.round(r.armMs)} ms; runs (status/output/spawned) ${runs}`
  );
}

describe("thread waves in headless Chromium", { skip, timeout: 600000 }, () => {
  before(() => {
    if (unavailable) throw new Error(`CI=true and headless Chromium cannot run: ${unavailable}`);
  });
  after(async () => {
    await env?.browser.close().catch(() => {});
    await env?.server.close();
  });

  test("the page is cross-origin isolated", (t) => {
    t.diagnostic(`browser: ${JSON.stringify(env.info)}; worker chain served as ${workerMode}`);
    console.log(`browser: ${JSON.stringify(env.info)}; worker chain served as ${workerMode}`);
    assert.equal(env.info.crossOriginIsolated, true);
    assert.ok(env.info.hardwareConcurrency >= 1);
  });

  function checkRuns(r, spawnsPerInvoke, logs) {
    const context = `${describeRun(r)}\nconsole:\n${logs.join("\n")}`;
    assert.equal(r.ok, true, context);
    assert.equal(r.crossOriginIsolated, true, context);
    assert.equal(r.runs.length, INVOKES, context);
    for (const run of r.runs) {
      assert.equal(run.status, 0, context);
      assert.equal(run.output, EXPECTED_OUTPUT_HEX, context);
      assert.equal(run.guest.spawned, spawnsPerInvoke, context);
      assert.equal(run.guest.declined, 0, context);
    }
    assert.equal(r.report.spawned, INVOKES * spawnsPerInvoke, context);
    assert.equal(r.spawnCount, INVOKES * spawnsPerInvoke, context);
    assert.equal(r.report.declined, 0, context);
    assert.deepEqual(r.report.declinedByReason, {}, context);
    assert.equal(r.active, 0, context);
    assert.equal(r.report.active, 0, context);
  }

  for (const mode of WAVE_MODES) {
    for (const lanes of LANES) {
      test(`mode ${label(mode)}, ${lanes} lanes, poolSize ${lanes}: ${INVOKES} invokes on one host`, async (t) => {
        const { result: r, console: logs } = await runInPage({
          lanes,
          mode,
          poolSize: lanes,
          invokes: INVOKES,
          probeTimeoutMs: PROBE_TIMEOUT_MS,
          ...workerOptions(),
        });
        checkRuns(r, threadWaveSpawns(lanes, { mode }), logs);
        assert.equal(r.report.poolSize, lanes);
        assert.equal(r.report.armed, lanes);
        assert.equal(r.report.failedToArm, 0);
        assert.equal(r.poolWorkers, lanes);
        const line = summary(`mode ${label(mode)}, ${lanes} lanes, poolSize ${lanes}`, r);
        t.diagnostic(line);
        console.log(line);
      });
    }
  }

  test(`implicit pool size (requestedThreads 4, mode ""): ${INVOKES} invokes on one host`, async (t) => {
    const lanes = 4;
    const { result: r, console: logs } = await runInPage({
      lanes,
      requestedThreads: lanes,
      invokes: INVOKES,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      ...workerOptions(),
    });
    const hc = r.hardwareConcurrency;
    const expectedSize = Math.max(0, Math.min(Math.floor(hc) - 1, lanes));
    assert.equal(r.report.poolSize, expectedSize, describeRun(r));
    const line = summary(`implicit size, 4 lanes`, r);
    t.diagnostic(line);
    console.log(line);
    if (expectedSize === 0) {
      // A one-core browser: no pool ("pool-empty"); the guest's first spawn
      // is declined.
      assert.equal(r.runs[0].status, 20, describeRun(r));
      assert.equal(r.report.declinedByReason["pool-empty"], INVOKES);
      return;
    }
    checkRuns(r, threadWaveSpawns(lanes), logs);
    assert.equal(r.report.armed, expectedSize);
    assert.equal(r.poolWorkers, expectedSize);
  });

  // The other way of naming the worker: with a bundle, the host's default
  // anchor (lib/ as a directory); without one, an explicit browserWorkerBaseUrl.
  const other = workerMode === "bundle" ? "the default anchor (lib/ as a directory)" : "browserWorkerBaseUrl /lib/";
  test(`nested, 4 lanes, worker named by ${other}`, async (t) => {
    const lanes = 4;
    const { result: r, console: logs } = await runInPage({
      lanes,
      mode: "nested",
      poolSize: lanes,
      invokes: INVOKES,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      ...(workerMode === "bundle" ? {} : { workerBaseUrl: `${env.server.origin}/lib/` }),
    });
    checkRuns(r, threadWaveSpawns(lanes, { mode: "nested" }), logs);
    assert.equal(r.poolWorkers, lanes);
    const line = summary(`nested, 4 lanes, ${other}`, r);
    t.diagnostic(line);
    console.log(line);
  });
});
