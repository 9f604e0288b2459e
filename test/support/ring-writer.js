// The writer thread of test/program-ring.test.js: 2000 numbered records to
// fds 1 and 2 of the ring in workerData, then one write longer than the ring.

import { workerData } from "node:worker_threads";
import { writeOutputRing } from "../../lib/program/control.js";
import { ringRecord } from "./ring-records.js";

for (let i = 0; i < 2000; i++) writeOutputRing(workerData, i % 3 === 0 ? 2 : 1, new TextEncoder().encode(ringRecord(i)));
writeOutputRing(workerData, 1, new Uint8Array(1000).fill(65));
