// Loads the native addon, once per thread, with node-gyp-build's conventions:
// a matching prebuilds/<platform>-<arch>/*.node first, then build/Release.
//
// Never throws: the result says whether the addon loaded and, if not, why,
// so the package falls back to the JS twin and can say so
// (getWasiThreadPoolImplementation()).

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("..", import.meta.url));

function load() {
  if (process.env.WASI_THREAD_POOL_NO_ADDON === "1") {
    return { binding: null, path: null, error: "WASI_THREAD_POOL_NO_ADDON=1" };
  }
  try {
    // WASI_THREAD_POOL_ADDON names a specific build, such as the sanitizer
    // build of `make -C test/c addon-asan`.
    const path = process.env.WASI_THREAD_POOL_ADDON || require("node-gyp-build").resolve(root);
    const binding = require(path);
    return { binding, path, error: null };
  } catch (error) {
    const message = String(error?.message ?? error).split("\n")[0];
    return { binding: null, path: null, error: message };
  }
}

export const native = load();

// The process's teardown joins every worker thread, one after another; a
// worker parked in a native wait would only notice its own termination at the
// end of its current wait slice. On the main thread's "exit" event every
// native wait in the process is told to return at once instead.
if (native.binding !== null && isMainThread) {
  process.once("exit", () => native.binding.interruptAll());
}
