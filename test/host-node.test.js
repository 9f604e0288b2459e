// The Node thread host (lib/host/node.js) and its workers (lib/worker/node.js)
// with real WebAssembly guests (test/fixtures/*.wat), on both pool
// implementations. Scenarios that need their own process (stdout/stderr,
// process exit, execArgv) are in host-node-process.test.js.

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { workerExecArgv } from "../lib/host/node.js";
import { IMPLEMENTATIONS, KIND, W, arg, skipImplementation, startGuest, until } from "./support/guest-host.js";

const EXTRA_FACTORY_URL = new URL("./support/guest-extra-factory.js", import.meta.url).href;
const PLUGGED_RUNTIME_URL = new URL("./support/guest-runtime.js", import.meta.url).href;

// Every host a test made is terminated at the end, even when the test failed.
const hosts = [];
async function guest(options) {
  const started = await startGuest(options);
  hosts.push(started.host);
  return started;
}
after(async () => {
  await Promise.all(hosts.map((host) => host.terminateAll()));
});

test("workerExecArgv drops the eval flags only when --input-type is present", () => {
  assert.equal(workerExecArgv(["--no-warnings", "--eval", "x"]), undefined);
  assert.equal(workerExecArgv([]), undefined);
  assert.deepEqual(workerExecArgv(["--input-type=module", "--no-warnings", "--eval", "code", "--title=t"]), [
    "--no-warnings",
    "--title=t",
  ]);
  assert.deepEqual(
    workerExecArgv(["--input-type", "module", "-e", "code", "-p", "x", "--print=y", "--eval=z", "--stack-size=900"]),
    ["--stack-size=900"],
  );
});

for (const implementation of IMPLEMENTATIONS) {
  describe(`Node host, ${implementation} pool`, { skip: skipImplementation(implementation) }, () => {
    test("a guest spawns threads and joins them", async () => {
      const { host, main, words } = await guest({ implementation });
      assert.equal(main.spawn_join(8, arg(KIND.PLAIN, 3)), 8);
      assert.equal(Atomics.load(words, W.DONE), 8);
      assert.equal(Atomics.load(words, W.SUM), 24);
      assert.equal(Atomics.load(words, W.PENDING), 0);
      assert.equal(Atomics.load(words, W.DECLINED), 0);
      // A fresh pool hands out tids 1..8, and each thread was started with its own.
      assert.equal(Atomics.load(words, W.TIDSUM), 36);
      assert.equal(host.spawnCount(), 8);
      const report = host.spawnReport();
      assert.equal(report.poolSize, null);
      assert.equal(report.spawned, 8);
      assert.equal(report.declined, 0);
      assert.ok(report.workers >= 1 && report.workers <= 8, `workers ${report.workers}`);
      assert.equal(host.distinctOsThreadCount(), report.workers);
      for (const key of ["armed", "failedToArm", "declinedByReason", "lastDeclineReason", "waited", "active", "idle"]) {
        assert.ok(key in report, key);
      }
    });

    test("a guest thread spawns and joins threads of its own (the pool grows from a worker)", async () => {
      const { host, main, words } = await guest({ implementation });
      // Two coordinators, each spawning three children from its worker.
      assert.equal(main.spawn_join(2, arg(KIND.COORDINATOR, 3)), 2);
      assert.equal(Atomics.load(words, W.SUM), 6);
      assert.equal(Atomics.load(words, W.DONE), 8);
      assert.equal(Atomics.load(words, W.DECLINED), 0);
      assert.equal(Atomics.load(words, W.SPAWNED), 8);
      assert.equal(host.spawnCount(), 8, "spawns from guest threads are counted too");
      assert.ok(host.distinctOsThreadCount() >= 3, `workers ${host.distinctOsThreadCount()}`);
    });

    test("1,000 threads in one call run on a handful of workers", async () => {
      const { host, main, words } = await guest({ implementation });
      // 250 waves of 4 threads, each wave joined before the next.
      assert.equal(main.waves(250, 4), 1000);
      assert.equal(Atomics.load(words, W.SUM), 1000);
      assert.equal(Atomics.load(words, W.DECLINED), 0);
      assert.equal(host.spawnCount(), 1000);
      // The SDK's own bound for a growing pool (SDK-CONTRACT 6).
      const workers = host.distinctOsThreadCount();
      assert.ok(workers >= 1 && workers <= 16, `workers ${workers}`);
    });

    test("poolSize caps the workers a guest's threads run on", async () => {
      const { host, main, words } = await guest({ implementation, poolSize: 2 });
      // Warm up both workers first: a worker takes longer to start on a
      // small machine than spawnWaitMs (250 ms) lets a spawn wait for it.
      assert.equal(main.spawn_join(2, arg(KIND.PLAIN, 1)), 2);
      await until(() => host.spawnReport().idle === 2, { what: "two idle workers" });
      // Six threads on two workers: spawns wait for a slot to come free.
      assert.equal(main.spawn_join(6, arg(KIND.PLAIN, 1)), 6);
      assert.equal(Atomics.load(words, W.SUM), 8);
      assert.ok(host.distinctOsThreadCount() <= 2);
      assert.equal(host.spawnReport().poolSize, 2);
    });

    test("poolSize caps concurrent threads; the next spawn is declined pool-exhausted", async () => {
      const declines = [];
      const { host, words } = await guest({
        implementation,
        poolSize: 2,
        spawnWaitMs: 0,
        mainInstance: false,
        onSpawnDeclined: (info) => declines.push(info),
      });
      const first = host.threadSpawn(arg(KIND.HOLD));
      const second = host.threadSpawn(arg(KIND.HOLD));
      assert.ok(first > 0 && second > 0 && first !== second);
      assert.equal(host.threadSpawn(arg(KIND.HOLD)), -1);
      assert.deepEqual(declines, [{ reason: "pool-exhausted", poolSize: 2, declined: 1 }]);
      const report = host.spawnReport();
      assert.equal(report.declinedByReason["pool-exhausted"], 1);
      assert.equal(report.lastDeclineReason, "pool-exhausted");
      assert.equal(host.activeThreadCount(), 2);
      await until(() => Atomics.load(words, W.RUNNING) === 2, { what: "both threads running" });
      Atomics.store(words, W.RELEASE, 1);
      Atomics.notify(words, W.RELEASE);
      await until(() => Atomics.load(words, W.DONE) === 2, { what: "held threads to end" });
      assert.equal(Atomics.load(words, W.MAXRUNNING), 2);
      await until(() => host.activeThreadCount() === 0, { what: "slots to come back" });
      assert.ok(host.threadSpawn(arg(KIND.PLAIN, 1)) > 0, "a slot is free again");
      assert.ok(host.distinctOsThreadCount() <= 2);
    });

    test("poolSize 0 declines every spawn at once", async () => {
      const declines = [];
      const { host } = await guest({
        implementation,
        poolSize: 0,
        mainInstance: false,
        onSpawnDeclined: (info) => declines.push(info),
      });
      const started = performance.now();
      assert.equal(host.threadSpawn(0), -1);
      assert.ok(performance.now() - started < 100);
      assert.deepEqual(declines, [{ reason: "pool-exhausted", poolSize: 0, declined: 1 }]);
    });

    test("proc_exit on a guest thread ends that thread normally", async () => {
      const errors = [];
      const { host, words } = await guest({
        implementation,
        mainInstance: false,
        onGuestError: (...args) => errors.push(args),
      });
      Atomics.store(words, W.PENDING, 1);
      assert.ok(host.threadSpawn(arg(KIND.EXIT)) > 0);
      await until(() => Atomics.load(words, W.DONE) === 1, { what: "exiting thread" });
      await until(() => host.spawnReport().idle === 1, { what: "the worker to be idle again" });
      assert.deepEqual(errors, []);
      Atomics.store(words, W.PENDING, 1);
      assert.ok(host.threadSpawn(arg(KIND.PLAIN, 4)) > 0);
      await until(() => Atomics.load(words, W.DONE) === 2, { what: "next thread" });
      assert.equal(host.distinctOsThreadCount(), 1, "the same worker served both threads");
    });

    test("extraImports { moduleUrl, exportName, config } factories run in the workers", async () => {
      const { host, words } = await guest({
        implementation,
        fixture: "extra",
        mainInstance: false,
        extraImports: [
          { moduleUrl: EXTRA_FACTORY_URL, config: { value: 5 } },
          { moduleUrl: EXTRA_FACTORY_URL, exportName: "named", config: { value: 2 } },
        ],
      });
      // The later fragment wins within the "extra" module: value() = 102.
      Atomics.store(words, W.PENDING, 3);
      for (let i = 0; i < 3; i++) assert.ok(host.threadSpawn(0) > 0);
      await until(() => Atomics.load(words, W.DONE) === 3, { what: "threads" });
      assert.equal(Atomics.load(words, W.SUM), 306);
    });

    test("runtimeModule plugs another worker runtime", async () => {
      const { host, words } = await guest({
        implementation,
        fixture: "extra",
        mainInstance: false,
        runtimeModule: PLUGGED_RUNTIME_URL,
      });
      Atomics.store(words, W.PENDING, 2);
      assert.ok(host.threadSpawn(0) > 0);
      assert.ok(host.threadSpawn(0) > 0);
      await until(() => Atomics.load(words, W.DONE) === 2, { what: "threads" });
      assert.equal(Atomics.load(words, W.SUM), 22);
    });

    test("a worker that traps retires the slots of the workers its guest threads started", async () => {
      const errors = [];
      const { host, words } = await guest({
        implementation,
        mainInstance: false,
        onGuestError: (instanceId, tid) => errors.push(tid),
      });
      // One thread, on the first worker, spawns two children (the pool grows
      // from that worker), joins them, then traps. Node ends the children's
      // workers with their parent: their slots must not stay claimable.
      assert.equal(host.threadSpawn(arg(KIND.DOOMED, 2)), 1);
      await until(() => errors.length === 1, { what: "onGuestError" });
      assert.deepEqual(errors, [1]);
      assert.equal(Atomics.load(words, W.SUM), 2);
      await until(() => host.spawnReport().idle === 0, { what: "the children's slots to be retired" });
      assert.equal(host.spawnReport().active, 0);
      assert.equal(host.distinctOsThreadCount(), 3);
      // The next thread gets a new worker and runs.
      Atomics.store(words, W.PENDING, 1);
      assert.ok(host.threadSpawn(arg(KIND.PLAIN, 5)) > 0);
      await until(() => Atomics.load(words, W.SUM) === 7, { what: "a thread after the trap" });
    });

    test("terminateAll ends the workers promptly; later spawns are declined 'terminated'", async () => {
      const declines = [];
      const { host, main, words } = await guest({
        implementation,
        onSpawnDeclined: (info) => declines.push(info),
      });
      assert.equal(main.spawn_join(3, arg(KIND.PLAIN, 1)), 3);
      // One thread still running (held) while terminating.
      assert.ok(host.threadSpawn(arg(KIND.HOLD)) > 0);
      await until(() => Atomics.load(words, W.RUNNING) === 1, { what: "held thread" });
      const started = performance.now();
      await host.terminateAll();
      const took = performance.now() - started;
      assert.ok(took < 2000, `terminateAll took ${took} ms`);
      assert.equal(host.activeThreadCount(), 0);
      assert.equal(host.spawnReport().idle, 0);
      assert.equal(host.threadSpawn(0), -1);
      assert.equal(main.spawn_join(1, arg(KIND.PLAIN, 1)), 0, "the guest sees the decline");
      assert.deepEqual(
        declines.map((d) => d.reason),
        ["terminated", "terminated"],
      );
      const report = host.spawnReport();
      assert.equal(report.declinedByReason.terminated, 2);
      assert.equal(report.lastDeclineReason, "terminated");
      assert.equal(report.spawned, 4);
      await host.terminateAll(); // idempotent
    });
  });
}
