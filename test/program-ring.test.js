// The runner's output ring (lib/program/control.js) on its own: a writer
// thread puts numbered records into a ring much smaller than what it writes,
// so the ring wraps and the writer waits for room many times; the reader
// (this thread, woken through the doorbell with Atomics.waitAsync, as the
// supervisor is) must get every byte, in order, each record whole.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { C_DOORBELL, CONTROL_WORDS, drainOutputRing } from "../lib/program/control.js";
import { ringRecord } from "./support/ring-records.js";

test("the output ring delivers every record in order across wrap-arounds and waits for room", async () => {
  // 256 bytes: the writer's 2000 records (about 60 KB) wrap it hundreds of
  // times, and its 1000-byte write is split into records of 64 bytes.
  const program = {
    control: new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS)),
    outRing: new Uint8Array(new SharedArrayBuffer(256)),
  };
  const got = { 1: [], 2: [] };
  const worker = new Worker(new URL("./support/ring-writer.js", import.meta.url), { workerData: program });
  let failure = null;
  worker.on("error", (error) => (failure = error));
  let done = false;
  const exited = new Promise((resolve) => worker.once("exit", resolve)).then(() => (done = true));
  while (!done) {
    const seen = Atomics.load(program.control, C_DOORBELL);
    drainOutputRing(program, (fd, bytes) => got[fd].push(Buffer.from(bytes)));
    const waiting = Atomics.waitAsync(program.control, C_DOORBELL, seen);
    if (waiting.async) await Promise.race([waiting.value, exited]);
  }
  assert.equal(failure, null);
  drainOutputRing(program, (fd, bytes) => got[fd].push(Buffer.from(bytes)));
  const out = Buffer.concat(got[1]).toString();
  const err = Buffer.concat(got[2]).toString();
  const expected = { 1: "", 2: "" };
  for (let i = 0; i < 2000; i++) {
    expected[i % 3 === 0 ? 2 : 1] += ringRecord(i);
  }
  assert.equal(err, expected[2]);
  assert.equal(out, expected[1] + "A".repeat(1000));
});
