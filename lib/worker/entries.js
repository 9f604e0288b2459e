// Which file a pool worker starts (Node only). Each of the package's two Node
// pool workers has a one-file build in dist/ (scripts/bundle-workers.js): one
// CommonJS file starts faster than its graph of ES modules (the bench's
// group 11). The npm tarball ships the builds; in a git checkout
// `npm install`, `npm test` and `npm run bench` make them (dist/ is ignored).
// Where a build is absent the worker starts from its source module, which runs
// the same code, only slower to start. WASI_THREAD_POOL_WORKER_BUNDLES=0 makes
// every worker start from its source (the fallback, on purpose).
//
// Inside a build, import.meta.url is its entry's source URL (the bundler's
// define), so ROOT is the package's root from either.

import { existsSync } from "node:fs";

const ROOT = new URL("../../", import.meta.url);

// name -> {source, built}: paths from the package's root.
export const WORKER_ENTRIES = {
  // The SDK host's worker (lib/host/node.js, and the workers its guest threads grow).
  host: { source: "lib/worker/node.js", built: "dist/node-worker.cjs" },
  // The program runner's worker (lib/program/pool.js).
  program: { source: "lib/program/pool-worker.js", built: "dist/pool-worker.cjs" },
  // Not a worker: the CLI's main thread, built the same way for its start-up
  // (bin/wasi-thread-pool.js, CommonJS, names these two paths itself).
  cli: { source: "lib/program/cli-main.js", built: "dist/cli-main.cjs" },
};

const chosen = new Map(); // name -> URL, decided once per thread

// The URL a Worker of `name` starts: the build when present, else the source.
export function workerEntryUrl(name) {
  let url = chosen.get(name);
  if (url === undefined) {
    const entry = WORKER_ENTRIES[name];
    if (entry === undefined) throw new RangeError(`name must be one of ${Object.keys(WORKER_ENTRIES).join(", ")}`);
    const built = new URL(entry.built, ROOT);
    const useBuilt = process.env.WASI_THREAD_POOL_WORKER_BUNDLES !== "0" && existsSync(built);
    url = useBuilt ? built : new URL(entry.source, ROOT);
    chosen.set(name, url);
  }
  return url;
}
