// Child-process scenarios for test/host-node*.test.js: things that need their
// own process (stderr and stdout of guest threads, process exit, execArgv).
//
// Run as `node guest-scenario.js` (or imported from `--eval`) with
// WTP_SCENARIO=<name> and WTP_IMPL=js|native in the environment. Results are
// printed as one line "RESULT <json>" on stdout.

import { KIND, W, arg, startGuest, until } from "./guest-host.js";

const scenario = process.env.WTP_SCENARIO;
const implementation = process.env.WTP_IMPL || undefined;

function result(value) {
  process.stdout.write(`RESULT ${JSON.stringify(value)}\n`);
}

const scenarios = {
  // A guest thread's stdout while the owner is blocked in the join.
  async stdout() {
    const { host, main } = await startGuest({ implementation });
    const ok = main.spawn_join(2, arg(KIND.STDOUT));
    const ok2 = main.spawn_join(1, arg(KIND.STDERR));
    result({ ok, ok2 });
    await host.terminateAll();
  },

  // Idle workers must not keep the process alive: no terminateAll here.
  async "idle-exit"() {
    const { main, host } = await startGuest({ implementation });
    const ok = main.spawn_join(3, arg(KIND.PLAIN, 1));
    result({ ok, workers: host.distinctOsThreadCount(), endedAt: performance.timeOrigin + performance.now() });
  },

  // A thread still running when the owner returns to its event loop keeps
  // the process alive until it ends (its output then appears).
  async detached() {
    const { host } = await startGuest({ implementation, mainInstance: false });
    const tid = host.threadSpawn(arg(KIND.SLEEP, 30));
    result({ tid, spawnedAt: performance.timeOrigin + performance.now() });
  },

  // An owner's spawn that lands on a worker a guest thread started: that
  // thread too keeps the process alive until it ends. A coordinator on the
  // owner's worker (slot 0) spawns a child, which grows the pool from inside
  // that worker (slot 1); with both idle, a held thread takes slot 0 and a
  // sleeping one slot 1 (spawns scan from slot 0); the held one is released
  // at once, so only the sleeper (300 ms) is left running when the owner
  // returns to its event loop.
  async "foreign-detached"() {
    const { host, words } = await startGuest({ implementation, mainInstance: false });
    Atomics.store(words, W.PENDING, 1);
    const coordinator = host.threadSpawn(arg(KIND.COORDINATOR, 1));
    await until(() => Atomics.load(words, W.PENDING) === 0, { what: "the coordinator" });
    await until(() => host.spawnReport().idle === 2, { what: "both workers idle" });
    Atomics.store(words, W.PENDING, 2);
    const hold = host.threadSpawn(arg(KIND.HOLD));
    const tid = host.threadSpawn(arg(KIND.SLEEP, 30));
    Atomics.store(words, W.RELEASE, 1);
    Atomics.notify(words, W.RELEASE);
    const after = host.spawnReport();
    result({
      coordinator,
      hold,
      tid,
      workers: after.workers,
      spawnedAt: performance.timeOrigin + performance.now(),
    });
  },

  // A trap on a guest thread.
  async trap() {
    const errors = [];
    const { host, words } = await startGuest({
      implementation,
      mainInstance: false,
      instanceId: "trap-instance",
      onGuestError: (instanceId, tid, error) => {
        // The worker's error event argument as it is (the thrown error, as
        // Node clones it), not a string made of it: SDK code reads .message.
        errors.push({ instanceId, tid, isError: error instanceof Error, name: error?.name, message: error?.message });
        throw new Error("a throwing onGuestError must be swallowed");
      },
    });
    const warm = host.threadSpawn(arg(KIND.PLAIN, 1));
    await until(() => Atomics.load(words, W.DONE) === 1, { what: "warm-up thread" });
    await until(() => host.spawnReport().idle === 1, { what: "idle worker" });
    const tid = host.threadSpawn(arg(KIND.TRAP));
    await until(() => errors.length > 0, { what: "onGuestError" });
    const after = host.spawnReport();
    const next = host.threadSpawn(arg(KIND.PLAIN, 1));
    await until(() => Atomics.load(words, W.DONE) === 2, { what: "thread after the trap" });
    result({
      warm,
      tid,
      errors,
      after: { active: after.active, idle: after.idle, workers: after.workers },
      next,
      workersAfter: host.distinctOsThreadCount(),
    });
    await host.terminateAll();
  },

  // A worker that cannot instantiate the guest.
  async "instantiate-fail"() {
    const errors = [];
    const { host } = await startGuest({
      fixture: "needs-import",
      implementation,
      mainInstance: false,
      instanceId: 7,
      onGuestError: (instanceId, tid, error) =>
        errors.push({ instanceId, tid, name: error?.name, message: String(error?.message ?? error) }),
    });
    const tid = host.threadSpawn(0);
    await until(() => errors.length > 0, { what: "onGuestError" });
    await until(() => host.spawnReport().active === 0, { what: "slot retired" });
    const report = host.spawnReport();
    result({ tid, errors, report: { active: report.active, idle: report.idle, spawned: report.spawned } });
    await host.terminateAll();
  },

  // Worker creation fails (run with a parent flag workers refuse).
  async "grow-fail"() {
    const declines = [];
    const { host, main } = await startGuest({
      implementation,
      poolSize: 4,
      onSpawnDeclined: (info) => declines.push(info),
    });
    const ok = main.spawn_join(2, arg(KIND.PLAIN, 1));
    const direct = host.threadSpawn(arg(KIND.PLAIN, 1));
    const report = host.spawnReport();
    result({ ok, direct, declines, report });
    await host.terminateAll();
  },

  // The --input-type=module --eval case: workers must start and run.
  async eval() {
    const { host, main, words } = await startGuest({ implementation });
    const ok = main.spawn_join(4, arg(KIND.PLAIN, 2));
    result({ ok, sum: Atomics.load(words, W.SUM), execArgv: process.execArgv.filter((a) => !a.startsWith("import(")) });
    await host.terminateAll();
  },
};

const run = scenarios[scenario];
if (!run) throw new Error(`unknown scenario ${scenario}`);
await run();
