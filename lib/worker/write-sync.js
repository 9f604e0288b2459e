// Writing to a file descriptor synchronously, whole: a guest thread's output
// must appear even while the owner's event loop is blocked (in the guest's
// join, say). Node only; for lib/worker/node.js and lib/program/wasi-node.js.

import { writeSync } from "node:fs";

const backoff = new Int32Array(new SharedArrayBuffer(4));

// Writes all of `bytes` to fd. A non-blocking pipe that is full (EAGAIN) is
// retried after 1 ms, at most maxRetries times in a row; any other error, or
// a pipe that stays full, is thrown.
export function writeAllSync(fd, bytes, maxRetries = 1000) {
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
      retries = 0;
    } catch (error) {
      if (error?.code === "EAGAIN" && retries++ < maxRetries) {
        Atomics.wait(backoff, 0, 0, 1);
        continue;
      }
      throw error;
    }
  }
}
