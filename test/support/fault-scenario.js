// Child-process scenarios for test/faults.test.js: faults that end a
// process, or whose evidence is the process's stderr or its exit.
//
// Run as `node fault-scenario.js` with WTP_SCENARIO=<name> and
// WTP_IMPL=js|native in the environment. Progress lines go to stdout
// ("STEP <name>"), results as one line "RESULT <json>". Every scenario but
// the abort ones ends by returning to the event loop: the process must then
// exit on its own.

import { performance } from "node:perf_hooks";
import { F, FK, delay, farg, startFaultGuest, until } from "./fault-host.js";

const scenario = process.env.WTP_SCENARIO;
const implementation = process.env.WTP_IMPL || undefined;

function step(name) {
  process.stdout.write(`STEP ${name}\n`);
}

function result(value) {
  process.stdout.write(`RESULT ${JSON.stringify(value)}\n`);
}

const scenarios = {
  // process.abort() in a guest thread's host import while the owner is
  // blocked in the guest's join: the whole process dies with SIGABRT.
  async "abort-in-join"() {
    const { main } = await startFaultGuest({ implementation, mainInstance: true });
    step("joining");
    const joined = main.spawn_join(1, farg(FK.ABORT));
    result({ joined }); // never reached
  },

  // The same with the owner idle in its event loop (the running thread keeps
  // the process alive until it aborts it).
  async "abort-detached"() {
    const { host } = await startFaultGuest({ implementation });
    const tid = host.threadSpawn(farg(FK.ABORT));
    step(`spawned ${tid}`);
  },

  // process.abort() in a worker throws ERR_WORKER_UNSUPPORTED_OPERATION:
  // for the guest, a trap in its thread.
  async "process-abort-refused"() {
    const errors = [];
    const { host, words } = await startFaultGuest({
      implementation,
      config: { abort: "process.abort" },
      onGuestError: (instanceId, tid, error) => errors.push({ tid, message: String(error?.message ?? error) }),
    });
    const tid = host.threadSpawn(farg(FK.ABORT));
    await until(() => errors.length === 1, { what: "onGuestError" });
    await until(() => host.spawnReport().active === 0, { what: "the slot to be retired" });
    const after = host.spawnReport();
    await host.terminateAll();
    result({
      tid,
      errors,
      running: Atomics.load(words, F.RUNNING),
      after: { active: after.active, idle: after.idle, workers: after.workers },
    });
  },

  // A trap on a worker started by a guest thread: that worker reports on
  // stderr only (SDK-CONTRACT 3.4), retires its own slot, and the pool keeps
  // serving.
  async "child-trap"() {
    const errors = [];
    const { host, words } = await startFaultGuest({
      implementation,
      onGuestError: (instanceId, tid, error) => errors.push({ tid, message: String(error?.message ?? error) }),
    });
    Atomics.store(words, F.CHILD_ARG, farg(FK.TRAP));
    Atomics.store(words, F.PENDING, 1);
    const spawner = host.threadSpawn(farg(FK.SPAWNER, 1));
    await until(() => Atomics.load(words, F.DONE) === 1, { what: "the spawner thread" });
    await until(() => host.spawnReport().active === 0, { what: "the trapped child's slot to leave the busy states" });
    await delay(200); // an onGuestError, if any, would have come by now
    const after = host.spawnReport();
    Atomics.store(words, F.PENDING, 2);
    const next = [host.threadSpawn(farg(FK.PLAIN, 3)), host.threadSpawn(farg(FK.PLAIN, 4))];
    await until(() => Atomics.load(words, F.SUM) === 7, { what: "threads after the trap" });
    const end = host.spawnReport();
    await host.terminateAll();
    result({
      spawner,
      childSpawned: Atomics.load(words, F.SPAWNED),
      errors,
      after: { active: after.active, idle: after.idle, workers: after.workers },
      next,
      end: { active: end.active, spawned: end.spawned },
    });
  },

  // A worker started by a guest thread cannot instantiate the guest (its
  // extraImports factory throws): stderr "failed to instantiate" only, the
  // slot is retired, the thread it was started for never runs.
  async "child-instantiate-fail"() {
    const errors = [];
    const { host, words } = await startFaultGuest({
      implementation,
      config: { failFromSlot: 1 },
      onGuestError: (instanceId, tid, error) => errors.push({ tid, message: String(error?.message ?? error) }),
    });
    Atomics.store(words, F.CHILD_ARG, farg(FK.PLAIN, 100));
    Atomics.store(words, F.PENDING, 1);
    const spawner = host.threadSpawn(farg(FK.SPAWNER, 1));
    await until(() => Atomics.load(words, F.DONE) === 1, { what: "the spawner thread" });
    await until(() => host.spawnReport().active === 0, { what: "the failed child's slot to leave the busy states" });
    await delay(200);
    const after = host.spawnReport();
    // Slot 0's worker is idle: the next thread runs there.
    Atomics.store(words, F.PENDING, 1);
    const next = host.threadSpawn(farg(FK.PLAIN, 5));
    await until(() => Atomics.load(words, F.SUM) === 5, { what: "a thread after the failure" });
    await host.terminateAll();
    result({
      spawner,
      childSpawned: Atomics.load(words, F.SPAWNED),
      sum: Atomics.load(words, F.SUM),
      errors,
      after: { active: after.active, idle: after.idle, workers: after.workers, spawned: after.spawned },
      next,
    });
  },

  // A guest thread spawns a thread (its worker grows a child worker for it),
  // then its host import calls process.exit() at once: the child dies with
  // its parent before it reaches its serve loop, so the child's tid never
  // runs. Its slot must not stay ASSIGNED (busy for good), and the tid must
  // be reported as a trap is (stderr, onGuestError).
  async "child-orphaned"() {
    const errors = [];
    const { host, words } = await startFaultGuest({
      implementation,
      onGuestError: (instanceId, tid, error) => errors.push({ tid, message: String(error?.message ?? error) }),
    });
    Atomics.store(words, F.CHILD_ARG, farg(FK.PLAIN, 100));
    const parent = host.threadSpawn(farg(FK.SPAWN_DIE));
    await until(() => Atomics.load(words, F.SPAWNED) === 1, { what: "the parent thread's spawn" });
    await until(() => host.spawnReport().workers >= 1 && host.spawnReport().idle === 0, { what: "the parent's worker to end" });
    const settled = performance.now();
    while (host.spawnReport().active !== 0 && performance.now() - settled < 3000) await delay(10);
    await delay(100);
    const after = host.spawnReport();
    await host.terminateAll();
    result({
      parent,
      sum: Atomics.load(words, F.SUM),
      errors,
      after: { active: after.active, idle: after.idle, spawned: after.spawned },
    });
  },

  // terminateAll while a guest thread waits on the generation for a slot
  // (poolSize 2, spawnWaitMs 60 s, both slots busy): terminateAll and the
  // process's exit must not wait for that spawn's deadline.
  async "terminate-waiting-spawner"() {
    const { host, words } = await startFaultGuest({ implementation, poolSize: 2, spawnWaitMs: 60000 });
    Atomics.store(words, F.CHILD_ARG, farg(FK.WAIT));
    const spawner = host.threadSpawn(farg(FK.SPAWNER, 3));
    // Slot 0 runs the spawner, slot 1 its first child (a wait thread); the
    // second child's spawn has no slot and no room: it waits.
    await until(
      () => Atomics.load(words, F.SPAWNED) === 1 && Atomics.load(words, F.RUNNING) === 1 && Atomics.load(words, F.SPAWNING) === 1,
      { what: "the spawner to wait in its second spawn" },
    );
    await delay(300);
    const before = host.spawnReport();
    step("terminating");
    const started = performance.now();
    await host.terminateAll();
    const terminateMs = performance.now() - started;
    const after = host.spawnReport();
    result({
      spawner,
      terminateMs,
      before: { active: before.active, slots: before.workers },
      after: { active: after.active, idle: after.idle },
      endedAt: performance.timeOrigin + performance.now(),
    });
  },
};

const run = scenarios[scenario];
if (!run) throw new Error(`unknown scenario ${scenario}`);
await run();
