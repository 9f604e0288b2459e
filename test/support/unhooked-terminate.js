// Node's own Worker.prototype.terminate, without the hook that
// lib/native/backend.js installs over it with the first native pool (the hook interrupts the worker's native waits first). For
// the backstop test of test/shutdown.test.js: a termination that bypasses the
// hook must still end at the wait slice's end.
//
// It is captured when this module is evaluated, so it must be imported before
// this thread uses a native pool (put its import first); it refuses to load
// later, rather than hand back the hooked function.

import { Worker } from "node:worker_threads";

const terminate = Worker.prototype.terminate;
// lib/native/backend.js's hook is the function named terminateWorker.
if (terminate.name === "terminateWorker") {
  throw new Error(
    "test/support/unhooked-terminate.js was imported after lib/native/backend.js had hooked Worker.prototype.terminate",
  );
}

export function terminateWithoutHook(worker) {
  return terminate.call(worker);
}
