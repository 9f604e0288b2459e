// wasi-thread-pool for browsers: the pool API on the JS twin (no addon, no
// node: module), the wasi-threads host, the per-thread runtime, the Liftoff
// guard's API (a no-op here; it exports the names lib/index.js takes from
// lib/worker/liftoff.js) and the program runner's names (the runner itself is
// Node-only: it rejects here).

export * from "./index-shared.js";
export * from "./worker/liftoff.browser.js";
export * from "./program/run.browser.js";
