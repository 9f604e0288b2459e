// Helpers for tests that drive a pool from worker threads.

import { Worker } from "node:worker_threads";

const WORKER_URL = new URL("./pool-worker.js", import.meta.url);

// Starts a pool-worker.js worker; see startMessagingWorker.
export function startPoolWorker(workerData) {
  return startMessagingWorker(WORKER_URL, workerData);
}

// Starts the worker script at `url`. `message(type)` resolves with the next
// message of that type (or rejects if the worker fails first); `exited`
// resolves with the exit code.
export function startMessagingWorker(url, workerData) {
  const worker = new Worker(url, { workerData });
  const queued = [];
  const waiting = [];
  let failure = null;
  worker.on("message", (msg) => {
    const index = waiting.findIndex((w) => w.type === msg.type);
    if (index >= 0) waiting.splice(index, 1)[0].resolve(msg);
    else queued.push(msg);
  });
  worker.on("error", (error) => {
    failure = error;
    for (const w of waiting.splice(0)) w.reject(error);
  });
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  return {
    worker,
    exited,
    message(type) {
      const index = queued.findIndex((m) => m.type === type);
      if (index >= 0) return Promise.resolve(queued.splice(index, 1)[0]);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiting.push({ type, resolve, reject }));
    },
  };
}

// performance.timeOrigin + performance.now() of two threads of one process
// agree to well under this (measured: the worker's reading after a wake is
// 0.06 ms or more later, never earlier); comparisons across threads allow it.
export const CLOCK_SLACK_MS = 1;

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls `predicate` every few ms until it holds, or throws after timeoutMs.
export async function until(predicate, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

// A promise that rejects after ms, to bound a wait on another thread.
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function sharedInts(length) {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}
