// Pool workers that a program's threads ask its supervisor to start
// (runWasiThreadsProgram, lib/program/run.js).
//
// A thread-spawn that grows the pool runs on a guest thread (the main
// thread's worker or a pool worker). A Worker made there would be that
// thread's child, and Node ends a worker's children with it without telling
// the process's main thread, whose record of each child's messaging port
// (worker_threads' postMessageToThread registry) then stays for good: one
// MessagePort and its listener per such worker, for the life of the
// process. So every worker of a program run under a supervisor is the
// supervisor's: the spawning thread puts its slot here and rings the
// doorbell (lib/program/control.js); the supervisor starts the slot's worker
// (takeWorkerStarts) and terminates it with the program, every worker of the
// program from the thread that made it. A program that owns its process (the
// CLI, lib/program/process.js) starts its workers where it spawns: the
// process ends with the program.
//
// One Int32Array over its own SharedArrayBuffer per threaded program
// (program.starts). seq_cst (Atomics) throughout. Words:
//   R_TAIL   requests ever made. A requester takes entry number R_TAIL by
//            CAS R_TAIL -> R_TAIL + 1, only while R_TAIL - R_HEAD < size.
//   R_HEAD   requests ever taken; written by the supervisor alone, after it
//            has cleared the entry (so a requester that sees the entry's
//            number below R_HEAD + size finds it cleared).
//   entries  at R_ENTRIES + (n % size): slot + 1 once entry n's requester has
//            written it (a store, then the doorbell), 0 while free or not yet
//            written. The supervisor takes entries in order and stops at a 0:
//            its requester rings once it has written it.
// Each pool slot is started once, and a guest thread's spawn grows only
// with one of the program's few starts at once reserved
// (lib/program/threads.js, startsAtOnce), so the ring never fills; if it
// did, the requester starts the worker itself (requestWorkerStart: false).

import { ring } from "./control.js";

const R_TAIL = 0;
const R_HEAD = 1;
const R_ENTRIES = 2;
const SIZE = 64;

export function createStartRequests() {
  return new Int32Array(new SharedArrayBuffer(4 * (R_ENTRIES + SIZE)));
}

// Asks the supervisor to start slot's worker: false when the ring is full.
export function requestWorkerStart(program, slot) {
  const { starts, control } = program;
  let tail = Atomics.load(starts, R_TAIL);
  for (;;) {
    if (tail - Atomics.load(starts, R_HEAD) >= SIZE) return false;
    const seen = Atomics.compareExchange(starts, R_TAIL, tail, tail + 1);
    if (seen === tail) break;
    tail = seen;
  }
  Atomics.store(starts, R_ENTRIES + (tail % SIZE), slot + 1);
  ring(control);
  return true;
}

// The supervisor: start(slot) for every request written so far, in order.
export function takeWorkerStarts(program, start) {
  const { starts } = program;
  for (;;) {
    const head = Atomics.load(starts, R_HEAD);
    if (head === Atomics.load(starts, R_TAIL)) return;
    const at = R_ENTRIES + (head % SIZE);
    const entry = Atomics.load(starts, at);
    if (entry === 0) return; // still being written: its requester rings after
    Atomics.store(starts, at, 0);
    Atomics.store(starts, R_HEAD, head + 1);
    start(entry - 1);
  }
}
