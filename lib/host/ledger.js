// The spawn ledger of one thread host (SDK-CONTRACT 2.4).
//
// The pool buffer counts what every thread of the process does (spawned,
// waited, and "pool-exhausted" declines). The ledger counts what only the
// owning thread knows: how many workers armed, how many failed to, and the
// declines the pool never sees (threads-unavailable, terminated, ...) or does
// not count (worker-create-failed, tid-exhausted, dispatch-failed).
//
// createSpawnLedger({poolSize, onSpawnDeclined, getPool, readReport}) ->
//   {
//     ledger: {                      // mutable; the host writes armed/failedToArm
//       poolSize,                    // number | null
//       armed: 0,
//       failedToArm: 0,
//       declinedByReason: {},        // reason -> count (pool-exhausted from the pool)
//       lastDeclineReason: null,     // string | null
//     },
//     decline(reason) -> -1,         // records, calls onSpawnDeclined, returns -1
//     report() -> {poolSize, armed, failedToArm, declinedByReason,
//                  lastDeclineReason, spawned, waited, declined},
//   }
//
// `getPool()` returns the pool descriptor or null (no pool yet, or none at
// all). `readReport(pool)` reads the pool's counters; it defaults to
// lib/pool/api.js's readWasiThreadPoolReport, which follows the pool's
// implementation (tests pass their own).
//
// reportGuestError(onGuestError, instanceId, tid, error): both hosts hand a
// guest's fault to the caller's hook through it.
//
// The caller's hooks (onSpawnDeclined, onGuestError) are called quietly: a
// hook that throws must never turn a declined spawn into a trap in the guest
// (which expects -1 and its sequential fallback), nor break a host's message
// or event handling.

import { readWasiThreadPoolReport } from "../pool/api.js";
import { DECLINE } from "../pool/reasons.js";

export const POOL_DECLINE_REASON = DECLINE.POOL_EXHAUSTED;

function callQuietly(hook, ...args) {
  if (typeof hook !== "function") return;
  try {
    hook(...args);
  } catch {
    // See above: the caller's hook must not break the host.
  }
}

export function reportGuestError(onGuestError, instanceId, tid, error) {
  callQuietly(onGuestError, instanceId, tid, error);
}

export function createSpawnLedger({
  poolSize = null,
  onSpawnDeclined,
  getPool = () => null,
  readReport = readWasiThreadPoolReport,
} = {}) {
  const ledger = {
    poolSize,
    armed: 0,
    failedToArm: 0,
    declinedByReason: {},
    lastDeclineReason: null,
  };

  function currentPool() {
    return typeof getPool === "function" ? (getPool() ?? null) : null;
  }

  function report() {
    const pool = currentPool();
    const counts = pool ? readReport(pool) : null;
    const declinedByReason = { ...ledger.declinedByReason };
    // The pool counts its own exhaustion declines, from every thread; the
    // ledger never double-counts them (see decline()).
    if (counts && counts.declined) declinedByReason[POOL_DECLINE_REASON] = counts.declined;
    let declined = 0;
    for (const value of Object.values(declinedByReason)) declined += value;
    return {
      poolSize: ledger.poolSize,
      armed: ledger.armed,
      failedToArm: ledger.failedToArm,
      declinedByReason,
      lastDeclineReason: ledger.lastDeclineReason,
      spawned: counts?.spawned ?? 0,
      waited: counts?.waited ?? 0,
      declined,
    };
  }

  function decline(reason) {
    if (reason !== POOL_DECLINE_REASON || !currentPool()) {
      ledger.declinedByReason[reason] = (ledger.declinedByReason[reason] ?? 0) + 1;
    }
    ledger.lastDeclineReason = reason;
    if (typeof onSpawnDeclined === "function") {
      callQuietly(onSpawnDeclined, { reason, poolSize: ledger.poolSize, declined: report().declined });
    }
    return -1;
  }

  return { ledger, decline, report };
}
