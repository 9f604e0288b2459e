// Shared helpers of the scenario child processes and their workers.

import { Worker } from "node:worker_threads";
import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";

export const hrnow = process.hrtime.bigint;

// Board words (an Int32Array over a SharedArrayBuffer, JS Atomics only:
// the same mechanism for both pool implementations).
export const B_DONE = 0; // threads that ran (incremented inside runThread)
export const B_GO = 1; // start flag for spawner workers
export const B_SPAWNERS_DONE = 2;
export const B_SPAWNED = 3; // successful spawns, summed by spawner workers
export const B_DECLINED = 4; // declined spawns, summed by spawner workers
export const B_WORDS = 16;

export function newBoard() {
  return new Int32Array(new SharedArrayBuffer(4 * B_WORDS));
}

// The scenario's parameters: argv[2] as JSON.
export function params() {
  return JSON.parse(process.argv[2] ?? "{}");
}

// The result the runner reads: into the file it names in BENCH_OUT, else one
// line on stdout (written in full: a pipe may take a large line in parts).
export function emit(result) {
  const text = `BENCH_RESULT ${JSON.stringify(result)}\n`;
  if (process.env.BENCH_OUT) {
    writeFileSync(process.env.BENCH_OUT, text);
    return;
  }
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}

export function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Busy-waits until the monotonic clock reaches `until` (bigint ns).
export function spinUntil(until) {
  while (hrnow() < until);
}

// Blocks until board[B_DONE] >= target (the join of a wave).
export function join(board, target) {
  for (;;) {
    const done = Atomics.load(board, B_DONE);
    if (done >= target) return;
    Atomics.wait(board, B_DONE, done);
  }
}

const serverUrl = new URL("./server.js", import.meta.url);
const spawnerUrl = new URL("./spawner.js", import.meta.url);

// Starts one serving worker per slot and resolves once each is about to
// serve. kind: "empty" | "stamp".
export async function startServers(pool, slots, { kind = "empty", board, stamps = null, ends = null, unref = false } = {}) {
  const workers = [];
  for (const slot of slots) {
    const worker = new Worker(serverUrl, {
      workerData: { pool, slot, kind, board, stamps, ends },
    });
    if (unref) worker.unref();
    workers.push(worker);
  }
  await Promise.all(workers.map((w) => once(w, "message")));
  return workers;
}

export async function startSpawners(pool, count, { board, spawns, owner = false, diag = false }) {
  const workers = [];
  for (let i = 0; i < count; i++) {
    const share = Math.floor(spawns / count) + (i < spawns % count ? 1 : 0);
    workers.push(new Worker(spawnerUrl, { workerData: { pool, board, spawns: share, owner, diag } }));
  }
  await Promise.all(workers.map((w) => once(w, "message")));
  return workers;
}

// Total context switches of every thread of this process.
export function contextSwitches() {
  let voluntary = 0;
  let involuntary = 0;
  try {
    for (const task of readdirSync("/proc/self/task")) {
      let text;
      try {
        text = readFileSync(`/proc/self/task/${task}/status`, "utf8");
      } catch {
        continue;
      }
      const v = /voluntary_ctxt_switches:\s*(\d+)/.exec(text);
      const n = /nonvoluntary_ctxt_switches:\s*(\d+)/.exec(text);
      if (v) voluntary += Number(v[1]);
      if (n) involuntary += Number(n[1]);
    }
  } catch {}
  return { voluntary, involuntary };
}

export function toNumbers(bigints) {
  return Array.from(bigints, (v) => Number(v));
}
