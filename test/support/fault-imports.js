// The fault guest's host imports (test/fixtures/fault-guest.wat), as an
// extraImports {moduleUrl, config} factory that runs in every pool worker:
//   fault.abort  the whole process dies of SIGABRT, as if native code in the
//                import had called abort(3). Node refuses process.abort() in
//                worker threads (ERR_WORKER_UNSUPPORTED_OPERATION, which the
//                guest sees as a trap), so the import raises the signal with
//                process.kill and never returns. With config.abort =
//                "process.abort" it calls process.abort() instead (and so
//                throws, in a worker).
//   fault.die    process.exit(config.exitCode ?? 7): in a worker, only that
//                worker ends, in the middle of its guest thread
// With config.failFromSlot = k, creating the imports throws in the workers
// of slots >= k, so those workers fail to instantiate the guest.

export default function faultImports({ config, workerIndex } = {}) {
  if (Number.isInteger(config?.failFromSlot) && workerIndex >= config.failFromSlot) {
    throw new Error(`fault-imports: refusing the worker of slot ${workerIndex}`);
  }
  return {
    fault: {
      abort: config?.abort === "process.abort" ? () => process.abort() : raiseAbort,
      die: () => process.exit(config?.exitCode ?? 7),
    },
  };
}

function raiseAbort() {
  process.kill(process.pid, "SIGABRT");
  // abort(3) does not return: neither does this (until the signal lands).
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

// For the guest's main instance on the owning thread (never called there).
export const ownerFaultImports = () => ({
  fault: {
    abort: () => process.abort(),
    die: () => {
      throw new Error("fault.die on the owning thread");
    },
  },
});
