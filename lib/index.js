// wasi-thread-pool for Node: the pool API (native core, or the JS twin when
// the addon cannot load), the wasi-threads host, the per-thread runtime, the
// Node 20 Liftoff guard and the program runner.
//
// Importing it changes nothing in the process: the terminate/exit hooks come
// with the first native pool (lib/native/backend.js), and --no-liftoff only
// with compileWasiThreadGuest or protectFromLiftoffHazard (lib/worker/liftoff.js).

import "./native/backend.js";

export * from "./index-shared.js";
export * from "./liftoff.js";
export * from "./program/run.js";
