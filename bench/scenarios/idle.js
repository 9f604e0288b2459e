// Scenario 6: idle cost. `workers` serving workers parked on idle slots for
// `seconds`; the CPU time of this whole process (every thread) over that
// window, as a percentage of one core, and the context switches of all its
// threads (wake-ups). The main thread sleeps in Atomics.wait meanwhile.

import { contextSwitches, emit, hrnow, newBoard, params, sleepSync, startServers } from "../lib/child.js";
import { api, createPool } from "../lib/api.js";

const { impl, workers = 64, seconds = 5, settleMs = 500 } = params();

const pool = createPool(impl, { capacity: workers });
api.openWasiThreadPoolSlots(pool, workers);
const slots = [];
for (let s = 0; s < workers; s++) {
  api.armWasiThreadPoolSlot(pool, s);
  slots.push(s);
}
const board = newBoard();
await startServers(pool, slots, { kind: "empty", board });
sleepSync(settleMs);

const cs0 = contextSwitches();
const cpu0 = process.cpuUsage();
const t0 = hrnow();
sleepSync(seconds * 1000);
const cpu = process.cpuUsage(cpu0);
const wallUs = Number(hrnow() - t0) / 1000;
const cs1 = contextSwitches();
const switches = cs1.voluntary + cs1.involuntary - cs0.voluntary - cs0.involuntary;
for (const s of slots) api.retireWasiThreadPoolSlot(pool, s);
emit({
  metrics: {
    cpuPctOfCore: { value: ((cpu.user + cpu.system) / wallUs) * 100 },
    wakeupsPerSec: { value: switches / (wallUs / 1e6) },
    cpuUsPerWakeup: { value: switches > 0 ? (cpu.user + cpu.system) / switches : 0 },
    userUsPerWakeup: { value: switches > 0 ? cpu.user / switches : 0 },
    systemUsPerWakeup: { value: switches > 0 ? cpu.system / switches : 0 },
  },
  info: { userUs: cpu.user, systemUs: cpu.system, wallUs },
});
process.exit(0);
