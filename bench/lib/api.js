// The pool API the benchmarks drive: lib/pool.js (native + JS) when it is
// there, else the test shim over the JS twin (JS only). Every scenario calls
// the SDK-named functions from here, so both implementations run the same
// benchmark code; the pool's H_IMPL word decides which one does the work.

import { existsSync } from "node:fs";

const poolUrl = new URL("../../lib/pool.js", import.meta.url);
const shimUrl = new URL("../../test/support/pool-shim.js", import.meta.url);

export const api = existsSync(poolUrl) ? await import(poolUrl.href) : await import(shimUrl.href);

export const usingShim = !existsSync(poolUrl);

// The implementations this checkout can run, with the reason native cannot.
export function implementations() {
  let native = false;
  let reason = usingShim ? "lib/pool.js not present" : null;
  try {
    const info = api.getWasiThreadPoolImplementation?.();
    native = !!info?.native?.available;
    if (!native) reason = reason ?? info?.native?.error ?? "native addon unavailable";
  } catch (error) {
    reason = String(error?.message ?? error);
  }
  return { list: native ? ["native", "js"] : ["js"], nativeReason: native ? null : reason };
}

export function createPool(implementation, { capacity, spawnWaitMs } = {}) {
  return api.createWasiThreadPool({ capacity, spawnWaitMs, implementation });
}
