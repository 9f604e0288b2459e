// Loads the native addon, once per thread, with node-gyp-build's conventions:
// a local build (build/Release) first, then a matching
// prebuilds/<platform>-<arch>/*.node.
//
// The room: lib/native/ owns the addon: loading it, saying why it did not load, and handing it to
// lib/pool/ with the hooks native waits need. Node only: it may import lib/pool/ and node: modules,
// and nothing a browser reaches imports it.
//
// Never throws: the result says whether the addon loaded and, if not, why
// (this platform, the prebuilds present, and the reason), so the package
// falls back to the JS twin and can say so (getWasiThreadPoolImplementation()).

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { threadId, workerData } from "node:worker_threads";

import { explainLoadFailure, usualAddonPath } from "./prebuilds.js";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../..", import.meta.url));

// The package's own workers are told where the thread that started them
// found the addon (workerData.wasiThreadPoolAddonPath: lib/program/pool.js,
// lib/host/node.js), which spares each of them node-gyp-build's search
// (about 1 ms of a worker's start).
function foundByParent() {
  const path = workerData?.wasiThreadPoolAddonPath;
  return typeof path === "string" && path.length > 0 ? path : null;
}

function load() {
  if (process.env.WASI_THREAD_POOL_NO_ADDON === "1") {
    return { binding: null, path: null, error: "WASI_THREAD_POOL_NO_ADDON=1" };
  }
  let path = null;
  try {
    // WASI_THREAD_POOL_ADDON names a specific build, such as the sanitizer
    // build of scripts/asan-addon.sh.
    path =
      process.env.WASI_THREAD_POOL_ADDON || foundByParent() || usualAddonPath(root) || require("node-gyp-build").resolve(root);
    const binding = require(path);
    return { binding, path, error: null, threadId };
  } catch (error) {
    // This platform, the prebuilds the package holds, and the reason: no
    // match (node-gyp-build's message), or the file that matched and what
    // the dynamic loader said about it (lib/native/prebuilds.js).
    return { binding: null, path: null, error: explainLoadFailure(root, error, path) };
  }
}

// The hooks that make native waits end promptly on terminate and exit are
// installed by lib/native/backend.js, when a thread first uses a native pool.
export const native = load();
