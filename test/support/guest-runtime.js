// A plugged worker runtime for the tests (the host's runtimeModule option):
// wraps lib/worker/runtime.js and adds the extra.value() import itself, the way an
// SDK user plugs the SDK's own runtime. It records that it was used in
// extra.value's answer (always 11).

import { createWasiThreadWorkerRuntime as base } from "../../lib/worker/runtime.js";

export function createWasiThreadWorkerRuntime(options) {
  return base({
    ...options,
    extraImports: [...(options.extraImports ?? []), () => ({ extra: { value: () => 11 } })],
  });
}
