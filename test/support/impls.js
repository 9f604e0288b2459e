// The implementations the protocol suites run against, and the public API
// they drive (lib/pool.js).
//
// "js" is always there; "native" only when lib/pool.js reports the addon
// available. The implementation is a property of the pool (its H_IMPL word),
// so the suites create each pool with `implementation` and then use the same
// SDK-named functions for both.

import { existsSync } from "node:fs";

const poolUrl = new URL("../../lib/pool.js", import.meta.url);

// Until lib/pool.js lands, a local shim over the twin stands in for it.
export const api = existsSync(poolUrl)
  ? await import(poolUrl.href)
  : await import("./pool-shim.js");

export const IMPLEMENTATIONS = api.getWasiThreadPoolImplementation().native.available
  ? ["js", "native"]
  : ["js"];

// A pool of the given implementation.
export function createPool(implementation, { capacity, spawnWaitMs } = {}) {
  return api.createWasiThreadPool({ capacity, spawnWaitMs, implementation });
}
