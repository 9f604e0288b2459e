// The queue's watcher of a program that owns its process (the CLI,
// lib/program/process.js), whose main thread runs the guest and so cannot
// watch: runWasiThreadsProgram's supervisor does this itself. Started by the
// first spawn that leaves a thread queued (lib/program/runtime.js), it hands
// a stalled queue to idle or new workers (lib/program/threads.js,
// watchThreadQueue) until the process ends with the program.
//
// workerData: {wasmModule, memory, processState}

import { writeSync } from "node:fs";
import { workerData } from "node:worker_threads";
import { fullStallMessage } from "./control.js";
import { createSupervisorSpawn } from "./pool.js";
import { watchThreadQueue } from "./threads.js";

const { wasmModule, memory, processState } = workerData;
const { program } = processState;

// The watch waits on unref'd timers and Atomics.waitAsync, neither of which
// keeps a thread's event loop alive: this does, until the process ends.
setInterval(() => {}, 1 << 30);
await watchThreadQueue(program, {
  ...createSupervisorSpawn({ wasmModule, memory, processState }),
  onFullStall: (queued) => writeSync(program.stderrFd, fullStallMessage(queued, program.poolSize)),
});
