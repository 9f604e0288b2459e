// The busy processes of the bench's load rows (bench/lib/burners.js): they
// burn CPU while they run, stop() ends them, and one that nobody stops ends by
// itself at its deadline, so a crashed scenario never leaves a burner behind.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { startBurners } from "../bench/lib/burners.js";

// utime + stime of a process in clock ticks, or null once it is gone.
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function withinMs(promise, ms, message) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const onLinux = process.platform === "linux" ? false : "reads /proc";
const BOUND_MS = 30000;

test("burners burn CPU until stop(), then every one has exited", { skip: onLinux }, async () => {
  const burners = await startBurners(2, { maxMs: BOUND_MS });
  try {
    assert.equal(burners.pids.length, 2);
    const before = burners.pids.map(cpuTicks);
    const until = Date.now() + 600;
    while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    const after = burners.pids.map(cpuTicks);
    // Each used some CPU (at least 2 ticks of 10 ms in 600 ms; a loaded
    // 2-CPU machine still gives a spinning process that much).
    for (let i = 0; i < 2; i++) assert.ok(after[i] - before[i] >= 2, `burner ${i}: ${before[i]} -> ${after[i]} ticks`);
  } finally {
    burners.stop();
  }
  // Ended by stop(), well before their own deadline.
  await withinMs(burners.ended, 5000, "burners still running 5 s after stop()");
  for (const pid of burners.pids) assert.equal(cpuTicks(pid), null, `burner ${pid} still present`);
});

test("a burner nobody stops ends by itself at its deadline", { skip: onLinux }, async () => {
  const burners = await startBurners(1, { maxMs: 300 });
  await withinMs(burners.ended, 10000, "a burner with a 300 ms deadline still runs after 10 s");
  assert.equal(cpuTicks(burners.pids[0]), null);
});

test("zero burners, and the argument checks", async () => {
  const none = await startBurners(0);
  assert.deepEqual(none.pids, []);
  await none.ended;
  await assert.rejects(startBurners(-1), RangeError);
  await assert.rejects(startBurners(1.5), RangeError);
  await assert.rejects(startBurners(1, { maxMs: 0 }), RangeError);
});
