// What every pool worker runs a guest thread with, and nothing else (no
// WASI, no node: module, no addon): the instance policy (createThreadRunner)
// and the serve loop's runThread (createRunThread). Browser-safe. Used by
// lib/worker/runtime.js and lib/worker/shared.js (both workers of the SDK
// host) and by the runner's pool worker (lib/program/pool-worker.js), which
// loads no more than a thread needs.

// The instance policy of a pool worker. Mainstream wasi-threads toolchains
// (wasi-libc's wasi_thread_start, so Rust std and C; Zig's std.Thread; this
// package's guest) set __stack_pointer and the TLS base from the start
// argument at every thread start, and keep no other per-instance state that
// a thread leaves changed; so by default a worker keeps the instance its last
// thread ran on and runs the next thread on it, as @emnapi/wasi-threads does.
// A thread that does not return normally (a trap, or proc_exit's
// WasiExitError) leaves its instance behind: the next one gets a fresh one.
// freshInstances: true makes every thread's instance fresh (the SDK's
// behaviour).
//
// `runtime` is anything with the SDK's instantiate() (ours or a plugged one).
// run(tid, startArg) runs wasi_thread_start and lets its error through.
// adopt(instance) offers an instance made already (a worker's probe) as the
// first thread's; with freshInstances it is ignored, as the SDK ignores its
// probe instance.
export function createThreadRunner(runtime, { freshInstances = false } = {}) {
  const fresh = freshInstances === true;
  let kept = null;
  return {
    freshInstances: fresh,
    adopt(instance) {
      if (!fresh && instance) kept = instance;
    },
    run(tid, startArg) {
      const instance = kept ?? runtime.instantiate();
      // Dropped while the thread runs: if it throws, nothing is kept.
      kept = null;
      instance.exports.wasi_thread_start(tid, startArg);
      if (!fresh) kept = instance;
    },
    discard() {
      kept = null;
    },
  };
}

// A worker's runtime and runner, with the first thread's instance made as a
// probe: a module the worker cannot instantiate fails here, before it takes
// any thread (with reuse, the first thread runs on this instance).
// makeRuntime() returns the runtime (or a promise of it); runnerOptions are
// createThreadRunner's. Returns {runtime, runner}; on failure the runtime is
// closed (best effort) and the error thrown.
export async function startThreadRunner(makeRuntime, runnerOptions) {
  let runtime = null;
  try {
    runtime = await makeRuntime();
    const runner = createThreadRunner(runtime, runnerOptions);
    runner.adopt(runtime.instantiate());
    return { runtime, runner };
  } catch (error) {
    try {
      runtime?.close();
    } catch {
      // Closing is best effort; the start-up error is the one to report.
    }
    throw error;
  }
}

// runThread for serveWasiThreadPoolSlot: true when the thread ended (proc_exit
// on a thread ends that thread normally), false after a trap, which retires
// the slot and ends the serve loop; onTrap(tid, error) hears of the trap.
export function createRunThread(runner, onTrap) {
  return function runThread(tid, startArg) {
    try {
      runner.run(tid, startArg);
      return true;
    } catch (error) {
      if (error?.name === "WasiExitError") return true;
      onTrap(tid, error);
      return false;
    }
  };
}
