// Loads the native addon, once per thread, with node-gyp-build's conventions:
// a local build (build/Release) first, then a matching
// prebuilds/<platform>-<arch>/*.node.
//
// Never throws: the result says whether the addon loaded and, if not, why
// (this platform, the prebuilds present, and the reason), so the package
// falls back to the JS twin and can say so (getWasiThreadPoolImplementation()).

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, threadId } from "node:worker_threads";

import { explainLoadFailure } from "./prebuilds.js";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("..", import.meta.url));

function load() {
  if (process.env.WASI_THREAD_POOL_NO_ADDON === "1") {
    return { binding: null, path: null, error: "WASI_THREAD_POOL_NO_ADDON=1" };
  }
  let path = null;
  try {
    // WASI_THREAD_POOL_ADDON names a specific build, such as the sanitizer
    // build of scripts/asan-addon.sh.
    path = process.env.WASI_THREAD_POOL_ADDON || require("node-gyp-build").resolve(root);
    const binding = require(path);
    return { binding, path, error: null, threadId };
  } catch (error) {
    // This platform, the prebuilds the package holds, and the reason: no
    // match (node-gyp-build's message), or the file that matched and what
    // the dynamic loader said about it (lib/prebuilds.js).
    return { binding: null, path: null, error: explainLoadFailure(root, error, path) };
  }
}

export const native = load();

// V8 cannot interrupt a thread blocked in C, and a native wait notices that
// its thread is being terminated only when its wait slice ends
// (src/binding.c, "Leaving a native wait"). Two hooks make it return at once:
//
// - Worker.prototype.terminate, in every thread that loads the addon, first
//   tells the addon which thread is about to end, so that thread's serve
//   loops and spawners stop waiting; then Node's terminate runs as usual.
// - On the main thread's "exit" event every native wait in the process is
//   told to return: the process's teardown joins worker threads one after
//   another, and one slice each would add up.
if (native.binding !== null) {
  const terminate = Worker.prototype.terminate;
  const { interruptThread } = native.binding;
  Worker.prototype.terminate = function terminateWorker(...args) {
    // threadId is -1 once the worker has exited.
    if (Number.isInteger(this.threadId) && this.threadId >= 0) interruptThread(this.threadId);
    return terminate.apply(this, args);
  };
  if (isMainThread) process.once("exit", () => native.binding.interruptAll());
}
