// The implementations the protocol suites run against, and the public API
// they drive (lib/pool.js).
//
// "js" is always there; "native" only when lib/pool.js reports the addon
// available. The implementation is a property of the pool (its H_IMPL word),
// so the suites create each pool with `implementation` and then use the same
// SDK-named functions for both, on any thread.

import * as api from "../../lib/pool.js";

export { api };

export const IMPLEMENTATIONS = api.getWasiThreadPoolImplementation().native.available ? ["js", "native"] : ["js"];

// A pool of the given implementation.
export function createPool(implementation, { capacity, spawnWaitMs } = {}) {
  return api.createWasiThreadPool({ capacity, spawnWaitMs, implementation });
}
