// Why a spawn returned -1: the decline reasons, as lib/pool/reasons.js lists them
// (test/reasons.test.js holds the two files to each other).

/**
 * Why a pool spawn returned no thread, in the C core's numbering order.
 * `"interrupted"` is this package's, from the native core only: the spawning
 * thread's environment is stopping. `"terminated"` is this package's too: the
 * pool was closed by `terminateWasiThreadPool` (a host's `terminateAll`), on
 * any thread.
 */
export type WasiThreadPoolDeclineReason =
  "pool-exhausted" | "worker-create-failed" | "tid-exhausted" | "dispatch-failed" | "interrupted" | "terminated";

/** The declines only a host knows: the pool never sees them. */
export type WasiThreadHostDeclineReason =
  "threads-unavailable" | "pool-empty" | "pool-not-armed" | "hostcall-channel-missing" | "pool-disabled";
