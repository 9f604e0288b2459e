// The Node side of the pool API: hands the addon (lib/native/binding.js) to
// lib/pool/api.js, and installs the two hooks native waits need, in each
// thread, right before that thread's first native call (creating a native
// pool, or first using one that another thread created). Importing the
// package installs nothing: a process that never uses a native pool keeps
// Node's own Worker.prototype.terminate and no extra "exit" listener.
//
// Node-only. lib/pool.js and lib/index.js import it for its effect.

import { isMainThread, Worker } from "node:worker_threads";
import { native } from "./binding.js";
import { useNativeBackend } from "../pool/backend.js";

let hooked = false;

// V8 cannot interrupt a thread blocked in C, and a native wait notices that
// its thread is being terminated only when its wait slice ends
// (src/node/binding.c, "Leaving a native wait"). Two hooks make it return at once:
//
// - Worker.prototype.terminate, in every thread that uses a native pool,
//   first tells the addon which thread is about to end, so that thread's
//   serve loops and spawners stop waiting; then Node's terminate runs as
//   usual.
// - On the main thread's "exit" event every native wait in the process is
//   told to return: the process's teardown joins worker threads one after
//   another, and one slice each would add up.
//
// Without them (a terminate that bypasses the hook, say) a wait still ends,
// at its slice's end: the hooks make it prompt, not possible.
export function installNativeHooks() {
  if (hooked || native.binding === null) return;
  hooked = true;
  const terminate = Worker.prototype.terminate;
  const { interruptThread, interruptAll } = native.binding;
  Worker.prototype.terminate = function terminateWorker(...args) {
    // threadId is -1 once the worker has exited.
    if (Number.isInteger(this.threadId) && this.threadId >= 0) interruptThread(this.threadId);
    return terminate.apply(this, args);
  };
  if (isMainThread) process.once("exit", () => interruptAll());
}

useNativeBackend({ native, env: process.env, beforeNativeUse: installNativeHooks });
