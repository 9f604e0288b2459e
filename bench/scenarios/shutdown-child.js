// Scenario 7, the measured process: `workers` serving workers parked on idle
// slots; then the main module ends. It writes its monotonic clock (ns, the
// same CLOCK_MONOTONIC the parent reads) to stdout as its very last act; the
// parent stamps the child's exit.
//
// variant "unref": the workers are unref'd and left parked (an idle pool
//   that nobody shuts down: the process must still end);
// variant "retire": the main module retires every slot as its last act
//   (what a host's terminateAll does), workers stay ref'd.

import { writeSync } from "node:fs";
import { newBoard, params, sleep, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, workers = 64, variant = "unref", settleMs = 300 } = params();

const pool = createPool(impl, { capacity: workers });
api.openWasiThreadPoolSlots(pool, workers);
const slots = [];
for (let s = 0; s < workers; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
await startServers(pool, slots, { kind: "empty", board, unref: variant === "unref" });
await sleep(settleMs);
if (variant === "retire") {
  for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
}
writeSync(1, `BENCH_END ${process.hrtime.bigint()}\n`);
