// An application that uses the SDK, whose host and pool import each other
// relatively inside the SDK's package. Prints where they came from.
import { host, pool } from "space-data-module-sdk";

const threads = await host.createWasiThreadSpawn({ requiresHostcalls: true });
console.log(
  JSON.stringify({
    hostFrom: host.FROM ?? "wasi-thread-pool",
    poolFrom: pool.FROM ?? "wasi-thread-pool",
    probe: host.BROWSER_POOL_PROBE_TIMEOUT_MS ?? null,
    pool: typeof pool.createWasiThreadPool,
    spawn: typeof threads === "object" ? threads.threadSpawn(0) : threads,
  }),
);
