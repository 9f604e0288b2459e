// Scenario 5: scan cost. A pool of `capacity` slots, all in service, of
// which `busy` (the first ones) are held RUNNING by stores straight into the
// control words (no worker serves them), and the rest are armed and served.
// Each spawn has to scan past the busy slots to the first idle one. Timed:
// the spawn() call, and spawn -> runThread entry. One thread at a time, the
// next 30 us after the previous finished.

import { emit, hrnow, join, newBoard, params, sleepSync, spinUntil, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";
import { S_STATE, WASI_THREAD_POOL_SLOT, slotBase } from "../../lib/pool/layout.js";

const { impl, capacity = 1024, busy = 1020, samples = 2000, warmup = 200, gapUs = 30 } = params();

const total = warmup + samples;
const pool = createPool(impl, { capacity });
api.openWasiThreadPoolSlots(pool, capacity);
for (let s = 0; s < busy; s++) {
  Atomics.store(pool.control, slotBase(s) + S_STATE, WASI_THREAD_POOL_SLOT.RUNNING);
}
const slots = [];
for (let s = busy; s < capacity; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
const stamps = new BigInt64Array(new SharedArrayBuffer(8 * total));
const ends = new BigInt64Array(new SharedArrayBuffer(8 * total));
await startServers(pool, slots, { kind: "stamp", board, stamps, ends });
sleepSync(30);

const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true });
const call = [];
const handoff = [];
let declined = 0;
const gap = BigInt(gapUs * 1000);
for (let i = 0; i < total; i++) {
  if (i > 0) spinUntil(ends[i - 1] + gap);
  const t0 = hrnow();
  const r = spawn(i);
  const t1 = hrnow();
  if (r.tid < 0) {
    declined++;
    Atomics.add(board, 0, 1);
  } else if (i >= warmup) {
    call.push(Number(t1 - t0) / 1000);
  }
  join(board, i + 1);
  if (r.tid > 0 && i >= warmup) handoff.push(Number(stamps[i] - t0) / 1000);
}
for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
emit({
  metrics: { spawnCallUs: { samples: call }, handoffUs: { samples: handoff } },
  info: { declined },
});
process.exit(0);
