// The Node thread host in child processes (test/support/guest-scenario.js):
// guest threads' stdout/stderr, the fault lines, process exit with idle or
// running workers, and parents started with --input-type=module --eval.
// Bounds are generous: the machine may be busy.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { IMPLEMENTATIONS, skipImplementation } from "./support/guest-host.js";
import { assertClean, runScenarioChild } from "./support/scenario-child.js";

const SCENARIO_URL = new URL("./support/guest-scenario.js", import.meta.url);
const SCENARIO_PATH = fileURLToPath(SCENARIO_URL);

// Runs a scenario; resolves {code, stdout, stderr, result, exitedAt}.
function runScenario(name, implementation, { nodeArgs = [], evalImport = false, timeoutMs = 30000 } = {}) {
  const args = evalImport
    ? [...nodeArgs, "--input-type=module", "--eval", `await import(${JSON.stringify(SCENARIO_URL.href)});`]
    : [...nodeArgs, SCENARIO_PATH];
  return runScenarioChild(process.execPath, args, { name, implementation, timeoutMs });
}

const HELLO = "hello from a guest thread";

for (const implementation of IMPLEMENTATIONS) {
  describe(`Node host in a child process, ${implementation} pool`, { skip: skipImplementation(implementation) }, () => {
    test("guest threads write to the process's stdout and stderr while the owner is blocked", async () => {
      const run = await runScenario("stdout", implementation);
      assertClean(run);
      assert.deepEqual(run.result, { ok: 2, ok2: 1 });
      const [before] = run.stdout.split("RESULT ");
      // Written by the threads (fs.writeSync) before the owner's join returned.
      assert.equal(before.split(HELLO).length - 1, 2, run.stdout);
      assert.equal(run.stderr.split(HELLO).length - 1, 1, run.stderr);
    });

    test("a script with idle workers exits promptly on its own", async () => {
      const run = await runScenario("idle-exit", implementation);
      assertClean(run);
      assert.equal(run.result.ok, 3);
      const lingered = run.exitedAt - run.result.endedAt;
      assert.ok(lingered < 4000, `exited ${lingered.toFixed(0)} ms after its last line`);
    });

    test("a running thread keeps the process alive until it ends", async () => {
      const run = await runScenario("detached", implementation);
      assertClean(run);
      assert.ok(run.result.tid > 0);
      // The thread sleeps 300 ms, then writes: its line comes after RESULT.
      const [, after] = run.stdout.split("RESULT ");
      assert.ok(after.includes(HELLO), run.stdout);
      const lived = run.exitedAt - run.result.spawnedAt;
      assert.ok(lived >= 250, `exited ${lived.toFixed(0)} ms after the spawn`);
      assert.ok(lived < 6000, `exited ${lived.toFixed(0)} ms after the spawn`);
    });

    test("a thread the owner spawned onto a worker a guest thread started keeps the process alive too", async () => {
      const run = await runScenario("foreign-detached", implementation);
      assertClean(run);
      const { coordinator, hold, tid, workers } = run.result;
      assert.equal(coordinator, 1);
      assert.ok(hold > 0 && tid > hold);
      assert.equal(workers, 2, "two workers: the owner's and the one its guest thread started");
      const [, after] = run.stdout.split("RESULT ");
      assert.ok(after.includes(HELLO), `the sleeping thread's line is missing:\n${run.stdout}`);
      const lived = run.exitedAt - run.result.spawnedAt;
      assert.ok(lived >= 250, `exited ${lived.toFixed(0)} ms after the spawn`);
      assert.ok(lived < 6000, `exited ${lived.toFixed(0)} ms after the spawn`);
    });

    test("a trap: stderr line, onGuestError (its throw swallowed), slot retired, pool still serves", async () => {
      const run = await runScenario("trap", implementation);
      assertClean(run);
      const { warm, tid, errors, after, next } = run.result;
      assert.equal(warm, 1);
      assert.equal(tid, 2);
      assert.match(run.stderr, /\[wasi-thread\] guest thread 2 trapped: RuntimeError: unreachable/);
      assert.match(run.stderr, /\[wasi-thread\] worker error:/);
      assert.equal(errors.length, 1);
      assert.deepEqual(errors[0], {
        instanceId: "trap-instance",
        tid: 2,
        isError: true,
        name: "RuntimeError",
        message: "unreachable",
      });
      // The trapped worker's slot is retired: neither active nor idle, and
      // its OS thread is still counted.
      assert.deepEqual(after, { active: 0, idle: 0, workers: 1 });
      assert.equal(next, 3);
      assert.equal(run.result.workersAfter, 2);
    });

    test("an instantiate failure: stderr line, onGuestError with the thread's tid, slot retired", async () => {
      const run = await runScenario("instantiate-fail", implementation);
      assertClean(run);
      assert.equal(run.result.tid, 1);
      assert.match(run.stderr, /\[wasi-thread\] guest thread 1 failed to instantiate: /);
      assert.equal(run.result.errors.length, 1);
      assert.equal(run.result.errors[0].instanceId, 7);
      assert.equal(run.result.errors[0].tid, 1);
      assert.match(run.result.errors[0].message, /custom/);
      assert.deepEqual(run.result.report, { active: 0, idle: 0, spawned: 1 });
    });

    test("--input-type=module --eval: workers do not inherit the eval flags", async () => {
      const run = await runScenario("eval", implementation, { evalImport: true });
      assertClean(run);
      assert.equal(run.result.ok, 4);
      assert.equal(run.result.sum, 8);
      assert.ok(run.result.execArgv.includes("--input-type=module"));
    });

    test("a worker that cannot be created: declined worker-create-failed", async () => {
      // Workers refuse --title; it reaches them because the filtered execArgv
      // of an --input-type parent is passed explicitly.
      const run = await runScenario("grow-fail", implementation, { evalImport: true, nodeArgs: ["--title=wtp-grow-fail"] });
      assertClean(run);
      const { ok, direct, declines, report } = run.result;
      assert.equal(ok, 0);
      assert.equal(direct, -1);
      assert.ok(declines.length >= 1);
      for (const decline of declines) {
        assert.equal(decline.reason, "worker-create-failed");
        assert.equal(decline.poolSize, 4);
      }
      assert.equal(report.declinedByReason["worker-create-failed"], declines.length);
      assert.equal(report.lastDeclineReason, "worker-create-failed");
      assert.equal(report.spawned, 0);
      assert.equal(report.workers, 0);
    });
  });
}
