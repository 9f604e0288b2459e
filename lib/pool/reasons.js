// Why a spawn returned -1: the one list of decline reasons.
//
// The pool's own reasons are numbered as the C core numbers them
// (wtp_reason_t in src/core/wtp.h; the addon reports -reason, and
// test/layout.test.js holds these against the addon's binding.layout). The JS
// twin (lib/pool/twin.js) returns the same strings. The hosts (lib/host/host.js,
// lib/host/browser.js, lib/host/node.js) add the reasons only an owning
// thread knows. types/reasons.d.ts spells both lists as types, and
// test/reasons.test.js holds it to this file.

// Index = the core's reason number; 0 is success.
export const POOL_DECLINE_REASONS = Object.freeze([
  null,
  "pool-exhausted",
  "worker-create-failed",
  "tid-exhausted",
  "dispatch-failed",
  "interrupted",
  "terminated",
]);

// Declines of a host that the pool never sees.
export const HOST_DECLINE_REASONS = Object.freeze([
  "threads-unavailable",
  "pool-empty",
  "pool-not-armed",
  "hostcall-channel-missing",
  "pool-disabled",
]);

// By name, for the code that declines.
export const DECLINE = Object.freeze({
  POOL_EXHAUSTED: "pool-exhausted",
  WORKER_CREATE_FAILED: "worker-create-failed",
  TID_EXHAUSTED: "tid-exhausted",
  DISPATCH_FAILED: "dispatch-failed",
  INTERRUPTED: "interrupted",
  TERMINATED: "terminated",
  THREADS_UNAVAILABLE: "threads-unavailable",
  POOL_EMPTY: "pool-empty",
  POOL_NOT_ARMED: "pool-not-armed",
  HOSTCALL_CHANNEL_MISSING: "hostcall-channel-missing",
  POOL_DISABLED: "pool-disabled",
});
