// Memory that grows on one thread never traps another, on the browser host
// (issue 26), in headless Chromium: test/browser/growfill.wat (a guest whose
// main thread grows the memory while its filler thread is inside a long
// memory.fill, and the filler then fills the new pages at once) compiled by
// the browser's compileWasiThreadGuest, hosted by the browser branch of
// createWasiThreadSpawn (lib/host/browser.js, worker chain
// lib/wasiThreadBrowserWorker.mjs served as a directory, and the bundle
// dist/wasiThreadBrowserWorker.mjs when it was built), its main instance
// from createWasiThreadWorkerRuntime, in an owner module Worker
// (test/browser/growth-owner.js) on the page of test/browser/server.js.
// V8 checks memory.fill against a per-thread copy of the memory's size, so
// without the remedy the filler traps and run() reports it (-2).
//
// Needs Debian's chromium at /usr/bin/chromium (CHROMIUM_PATH overrides) and
// npm playwright-core. With CI=true a browser that cannot run fails the test;
// otherwise the suite is skipped with the reason.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import wabtInit from "wabt";

import { openWavePage } from "./browser/chromium.js";
import { BUNDLED_WORKER_PATH } from "./browser/server.js";

const CI = process.env.CI === "true";
const PAGE = 65536;
const INITIAL = 5; // growfill.wat's memory: 5 pages, at most 128
const MAXIMUM = 128;
const ROUNDS = 24; // of 4 pages each
const RUNS = 3;

async function assemble() {
  const wabt = await wabtInit();
  const source = readFileSync(new URL("./browser/growfill.wat", import.meta.url), "utf8");
  const parsed = wabt.parseWat("growfill.wat", source, { threads: true, bulk_memory: true });
  try {
    return Array.from(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

let env = null;
let unavailable = null;
try {
  env = await openWavePage();
} catch (error) {
  unavailable = String(error?.message ?? error).split("\n")[0];
}
const skip = unavailable && !CI ? `headless Chromium cannot run here: ${unavailable}` : false;

// One run in a fresh owner worker; its answer and the console lines it caused.
async function runOwner(config) {
  const mark = env.consoleLines.length;
  const answer = await env.page.evaluate(
    (c) =>
      new Promise((resolve) => {
        const owner = new Worker("/growth-owner.js", { type: "module", name: "growth owner" });
        const done = (result) => {
          owner.terminate();
          resolve(result);
        };
        owner.onmessage = (event) => done(event.data);
        owner.onerror = (event) => done({ ok: false, error: `owner worker error: ${event.message ?? event}` });
        owner.postMessage(c);
      }),
    config,
  );
  return { answer, logs: env.consoleLines.slice(mark) };
}

describe("memory growth across threads in headless Chromium", { skip, timeout: 600000 }, () => {
  let bytes;
  before(async () => {
    if (unavailable) throw new Error(`CI=true and headless Chromium cannot run: ${unavailable}`);
    bytes = await assemble();
  });
  after(async () => {
    await env?.browser.close().catch(() => {});
    await env?.server.close();
  });

  const config = (mode = "directory") => ({
    bytes,
    initial: INITIAL,
    maximum: MAXIMUM,
    poolSize: 1,
    probeTimeoutMs: 15000,
    ...(mode === "bundle"
      ? { workerUrl: `${env.server.origin}/dist/wasiThreadBrowserWorker.mjs` }
      : { workerBaseUrl: `${env.server.origin}/lib/` }),
  });
  // The bundle too, when `npm run build:browser-worker` made it (the suite does).
  const modes = existsSync(BUNDLED_WORKER_PATH) ? ["directory", "bundle"] : ["directory"];

  test(`compileWasiThreadGuest's guest: the filler never traps (${RUNS} runs, worker chain: ${modes.join(", ")})`, async () => {
    for (let i = 0; i < RUNS * modes.length; i++) {
      const { answer, logs } = await runOwner(config(modes[i % modes.length]));
      const context = `run ${i + 1}: ${JSON.stringify(answer)}\nconsole:\n${logs.join("\n")}`;
      assert.equal(answer.ok, true, context);
      assert.equal(answer.report.armed, 1, context);
      assert.deepEqual(answer.guestErrors, [], context);
      assert.equal(answer.result, 0, context);
      // The memory was reserved at its maximum once; the guest sees its own size.
      assert.equal(answer.byteLength, MAXIMUM * PAGE, context);
      assert.equal(answer.size, INITIAL + 4 * ROUNDS, context);
    }
  });

  test("reserveMemory: false keeps the SDK's behaviour: the host leaves the memory alone", async () => {
    // run() is not called: without the remedy the filler traps (the
    // hazard, seen before the browser host had the remedy). Only what the
    // host does with the memory is checked.
    const { answer, logs } = await runOwner({ ...config(), reserveMemory: false, run: false });
    const context = `${JSON.stringify(answer)}\nconsole:\n${logs.join("\n")}`;
    assert.equal(answer.ok, true, context);
    assert.equal(answer.byteLength, INITIAL * PAGE, context);
    assert.equal(answer.size, INITIAL, context);
  });
});
