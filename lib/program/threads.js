// Threads and workers of a program run by runWasiThreadsProgram
// (docs/runner.md, "Threads and workers").
//
// A thread-spawn fails (a negative value: EAGAIN in pthread_create) only when
// the program already has maxThreads threads alive. It never waits for a
// thread to end: wasi-libc's pthread_create holds the thread-list lock
// across thread-spawn and an ending thread takes that lock, so a spawn that
// waited for a worker to come free would wait for ever. Instead a spawn
//   1. takes an idle worker, if there is one (the pool's claim, no wait);
//   2. else starts a worker when that pays: the pool has room, a start is
//      free (at most startsAtOnce() workers starting at any time), and a new
//      worker is expected to run the thread sooner than a busy one (no
//      thread has ended yet, or T_RUN_US >= T_START_US: growthPays);
//   3. else queues the thread (its tid is taken now, from the pool's
//      counter) and returns: every worker runs queued threads after its own
//      (runQueuedThreads), each worker that comes up starts workers for the
//      queue with the starts that frees while a new worker pays (feedQueue),
//      and the supervisor hands the queue to idle workers and starts workers
//      for it when it stalls (watchThreadQueue).
//
// One Int32Array over its own SharedArrayBuffer per program (program.threads),
// shared by every thread of the program and the supervisor. seq_cst
// (Atomics) throughout. Words:
//   T_LIMIT     maxThreads (the main thread not counted); written once,
//               before any thread runs.
//   T_ALIVE     spawned threads alive: +1 by CAS below T_LIMIT at a spawn,
//               -1 when the spawn fails or the thread's wasi_thread_start
//               returns; notified on every -1 (a spawn at the limit waits).
//   T_STARTING  workers started and not yet ready: +1 by CAS below
//               startsAtOnce() before a worker is made, -1 when it has made
//               its instance (workerReady); notified on every -1.
//   T_START_US  a worker's start-up time, moving average (microseconds);
//   T_RUN_US    a thread's run time, moving average (microseconds), -1 until
//               a thread has ended. Both written by plain read-modify-write:
//               a lost update only delays an estimate.
//   T_TICKETS   trampolines the supervisor spawned and no worker has taken
//               yet (watchThreadQueue); a worker takes one by CAS.
//   T_QLOCK     the queue's lock (0 free, 1 held): a spin on CAS with a
//               wait on the word; released by a store of 0 and a notify.
//   T_QHEAD,    threads ever taken from / put in the queue; the queue holds
//   T_QTAIL     T_QTAIL - T_QHEAD entries, at T_QUEUE + 2 * (n % size):
//               tid, start argument. Written under T_QLOCK; T_QTAIL and
//               T_QHEAD are notified after each change (the supervisor
//               waits on them).
//   T_STOP      1 once the program has ended: the watcher stops.
//   T_ENDED     threads ended (+1 each); the watcher compares it.

import { createRequire } from "node:module";
import { H_NEXT_TID, MAX_TID } from "../pool/layout.js";

export const T_LIMIT = 0;
const T_ALIVE = 1;
const T_STARTING = 2;
const T_START_US = 3;
const T_RUN_US = 4;
const T_TICKETS = 5;
const T_QLOCK = 6;
const T_QHEAD = 7;
const T_QTAIL = 8;
const T_STOP = 9;
const T_ENDED = 10;
const T_QUEUE = 16;

// The default of maxThreads. Threads alive beyond the workers wait in the
// queue (8 bytes each), so the limit can be well above the workers (1024 by
// default): a burst of short threads outruns its workers without failing.
// 16384 threads with wasi-libc's default 128 KiB stacks fill 2 GiB, half of
// what a wasm32 memory can hold.
export const DEFAULT_MAX_THREADS = 16384;
// The default pool capacity (poolSize): the most workers.
export const DEFAULT_POOL_SIZE = 1024;
// The most poolSize (a pool's capacity: lib/pool/validate.js, checkCapacity)
// and maxThreads may be: 268,435,454.
export const MOST_THREADS = 0x0ffffffe;
// The most queue entries (a queue of maxThreads, at most this many).
const MOST_QUEUED = 1 << 16;

// A joined thread has woken its joiner a few instructions before its
// wasi_thread_start returns to us: a spawn that finds the program at its
// limit waits up to this long for such a thread before it declines.
const LIMIT_GRACE_MS = 100;

// Workers starting at once: a start is mostly CPU work (Node's bootstrap,
// loading the runtime, instantiating): a few per CPU overlap its waits, more
// only slow each other and hold memory early.
const startsAtOnce = () => Math.max(2, Math.min(8, 2 * cpuCount()));
// ... and for a stalled queue, whose threads are known to wait for threads
// that do not end: starts overlap well (16 bare workers started at once cost
// 12 ms each on 2 CPUs, against about 30 ms four at a time).
const stallStartsAtOnce = () => Math.max(4, Math.min(16, 4 * cpuCount()));
// How often the supervisor looks for an idle worker while threads are queued.
const POLL_MS = 5;
// Polls with every worker up and nothing moving that make a stalled queue.
const STALL_POLLS = 2;
// A guess of a worker's start-up until one has been measured.
const FIRST_START_US = 50_000;

// The start argument of a trampoline: a thread the supervisor spawns only to
// get a worker that runs queued threads (never a valid start argument of
// wasi-libc, whose are aligned pointers).
export const TRAMPOLINE_ARG = -1;

export function createThreadWords(maxThreads) {
  const size = Math.max(1, Math.min(maxThreads, MOST_QUEUED));
  const words = new Int32Array(new SharedArrayBuffer(4 * (T_QUEUE + 2 * size)));
  words[T_LIMIT] = maxThreads;
  words[T_START_US] = FIRST_START_US;
  words[T_RUN_US] = -1;
  return words;
}

// The CPUs this process may use, asked at the first need (a thread that
// starts a worker), not when a worker loads this file: node:os costs a
// worker's start about 2 ms.
let cpus = 0;
export function cpuCount() {
  cpus ||= createRequire(import.meta.url)("node:os").availableParallelism();
  return cpus;
}

// Milliseconds on a clock every thread of the process reads alike (libuv's
// uv_hrtime: the system's monotonic clock), so comparable between threads
// (growTimes). Not performance.now(): Node's global performance is lazy, and
// its first read loads perf_hooks, about 4 ms of every worker's start.
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const wallMs = nowMs;

function average(words, index, sample) {
  const old = Atomics.load(words, index);
  Atomics.store(words, index, old < 0 ? sample : Math.round(old + (sample - old) / 4));
}

// Counts a new thread in, or returns false when the program has its limit of
// threads alive (after LIMIT_GRACE_MS for a thread that is just returning).
function enterThread(words) {
  const limit = Atomics.load(words, T_LIMIT);
  let deadline = -1;
  for (;;) {
    const alive = Atomics.load(words, T_ALIVE);
    if (alive < limit) {
      if (Atomics.compareExchange(words, T_ALIVE, alive, alive + 1) === alive) return true;
      continue;
    }
    const now = nowMs();
    if (deadline < 0) deadline = now + LIMIT_GRACE_MS;
    if (now >= deadline) return false;
    Atomics.wait(words, T_ALIVE, alive, deadline - now);
  }
}

function leaveThread(words) {
  Atomics.sub(words, T_ALIVE, 1);
  Atomics.notify(words, T_ALIVE);
}

// Takes one of `bound` starts, if one is free.
export function tryReserveStart(words, bound = startsAtOnce()) {
  const starting = Atomics.load(words, T_STARTING);
  return starting < bound && Atomics.compareExchange(words, T_STARTING, starting, starting + 1) === starting;
}

export function releaseStart(words) {
  Atomics.sub(words, T_STARTING, 1);
  Atomics.notify(words, T_STARTING);
}

// A worker made its instance: its start is over. growTimes[slot] is when its
// start was asked for (wallMs), 0 when not known.
export function workerReady(program, slot) {
  const words = program.threads;
  const askedAt = Number.isInteger(slot) && slot < program.growTimes.length ? program.growTimes[slot] : 0;
  if (askedAt > 0) average(words, T_START_US, Math.round(Math.max(0, wallMs() - askedAt) * 1000));
  releaseStart(words);
}

// When slot's worker was asked for (for its start-up time).
export function noteGrow(program, slot) {
  if (slot >= 0 && slot < program.growTimes.length) program.growTimes[slot] = wallMs();
}

// One slot's time per pool slot.
export function createGrowTimes(capacity) {
  return new Float64Array(new SharedArrayBuffer(8 * Math.max(1, Math.min(capacity, MOST_QUEUED))));
}

// ---------------------------------------------------------------------------
// The queue.

function lockQueue(words) {
  while (Atomics.compareExchange(words, T_QLOCK, 0, 1) !== 0) Atomics.wait(words, T_QLOCK, 1);
}

function unlockQueue(words) {
  Atomics.store(words, T_QLOCK, 0);
  Atomics.notify(words, T_QLOCK, 1);
}

const queueSize = (words) => (words.length - T_QUEUE) >> 1;
const queued = (words) => Atomics.load(words, T_QTAIL) - Atomics.load(words, T_QHEAD);

// Threads waiting in the program's queue (lib/program/runtime.js starts the
// CLI's queue watcher at the first).
export const threadsQueued = (program) => queued(program.threads);

function enqueue(words, tid, startArg) {
  lockQueue(words);
  try {
    const tail = Atomics.load(words, T_QTAIL);
    if (tail - Atomics.load(words, T_QHEAD) >= queueSize(words)) return false;
    const at = T_QUEUE + 2 * (tail % queueSize(words));
    Atomics.store(words, at, tid);
    Atomics.store(words, at + 1, startArg);
    Atomics.store(words, T_QTAIL, tail + 1);
  } finally {
    unlockQueue(words);
  }
  Atomics.notify(words, T_QTAIL);
  return true;
}

// [tid, startArg] of the oldest queued thread, or null.
function dequeue(words) {
  if (queued(words) <= 0) return null;
  let entry = null;
  lockQueue(words);
  try {
    const head = Atomics.load(words, T_QHEAD);
    if (Atomics.load(words, T_QTAIL) > head) {
      const at = T_QUEUE + 2 * (head % queueSize(words));
      entry = [Atomics.load(words, at), Atomics.load(words, at + 1)];
      Atomics.store(words, T_QHEAD, head + 1);
    }
  } finally {
    unlockQueue(words);
  }
  if (entry) Atomics.notify(words, T_QHEAD);
  return entry;
}

// A tid from the pool's counter, as the pool's spawn takes one (sticky past
// MAX_TID); -1 when none is left.
function takeTid(pool) {
  const control = pool.control;
  let t = Atomics.load(control, H_NEXT_TID);
  for (;;) {
    if (t < 1 || t > MAX_TID) return -1;
    const seen = Atomics.compareExchange(control, H_NEXT_TID, t, t + 1);
    if (seen === t) return t;
    t = seen;
  }
}

// ---------------------------------------------------------------------------
// Running threads on a worker.

// Runs one thread, start(tid, startArg), timing it; the thread leaves the
// count of threads alive when it returns (a trap never returns here).
export function runProgramThread(program, start, tid, startArg) {
  const began = nowMs();
  try {
    return start(tid, startArg);
  } finally {
    average(program.threads, T_RUN_US, Math.max(1, Math.round((nowMs() - began) * 1000)));
    Atomics.add(program.threads, T_ENDED, 1);
    leaveThread(program.threads);
  }
}

// After a worker's thread: every queued thread, oldest first, until the
// queue is empty.
export function runQueuedThreads(program, start) {
  for (let entry = dequeue(program.threads); entry !== null; entry = dequeue(program.threads)) {
    runProgramThread(program, start, entry[0], entry[1]);
  }
}

// A trampoline's wasi_thread_start: true (and the ticket is taken) when this
// thread is one, not the guest's.
export function takeTrampoline(program, startArg) {
  if (startArg !== TRAMPOLINE_ARG) return false;
  const words = program.threads;
  for (;;) {
    const tickets = Atomics.load(words, T_TICKETS);
    if (tickets <= 0) return false;
    if (Atomics.compareExchange(words, T_TICKETS, tickets, tickets - 1) === tickets) return true;
  }
}

// ---------------------------------------------------------------------------
// Spawning.

// A new worker is expected to run this thread sooner than a busy one: no
// thread has ended yet (nothing to expect), or threads run at least as long
// as a worker takes to start.
function growthPays(words) {
  const runUs = Atomics.load(words, T_RUN_US);
  return runUs < 0 || runUs >= Atomics.load(words, T_START_US);
}

// The program's thread-spawn for one thread of the program (the main
// thread's worker or a pool worker). It never waits, but at the limit
// (LIMIT_GRACE_MS):
//   claim(startArg)  the pool's spawn without growth ({tid, slot, reason},
//                    as createWasiThreadPoolSpawn's)
//   grow(startArg)   the pool's spawn that starts a worker when none is
//                    idle: {tid, slot, reason, grew}
//   hasRoom()        the pool can still grow
// Returns the tid, or -1 (EAGAIN).
export function createProgramSpawn(program, { claim, grow, hasRoom }) {
  const words = program.threads;
  return function programSpawn(startArg) {
    if (!enterThread(words)) return -1;
    const claimed = claim(startArg);
    if (claimed.tid > 0) return claimed.tid;
    if (hasRoom() && growthPays(words) && tryReserveStart(words)) {
      const grown = grow(startArg);
      if (!grown.grew) releaseStart(words);
      if (grown.tid > 0) return grown.tid;
    }
    const tid = takeTid(program.pool);
    if (tid < 0 || !enqueue(words, tid, startArg)) {
      leaveThread(words);
      return -1;
    }
    // A worker that found the queue empty just before this thread was put in
    // it may be idle by now: it gets a trampoline (watchThreadQueue looks
    // again, for one that becomes idle later).
    handQueueToIdleWorker(words, claim);
    return tid;
  };
}

// An idle worker, if there is one, runs the queued threads (a trampoline).
function handQueueToIdleWorker(words, claim) {
  Atomics.add(words, T_TICKETS, 1);
  if (claim(TRAMPOLINE_ARG).tid > 0) return true;
  Atomics.sub(words, T_TICKETS, 1);
  return false;
}

// ---------------------------------------------------------------------------
// The supervisor's side.

// One of `bound` starts, if one is free, for a trampoline
// (spawnTrampoline(TRAMPOLINE_ARG) -> {tid, grew}: an idle worker's, or a
// new worker's): true when one is on its way to the queue.
function startTrampolineWith(words, spawnTrampoline, bound = startsAtOnce()) {
  if (!tryReserveStart(words, bound)) return false;
  Atomics.add(words, T_TICKETS, 1);
  const { tid, grew } = spawnTrampoline(TRAMPOLINE_ARG);
  if (tid < 0) Atomics.sub(words, T_TICKETS, 1);
  if (!grew) releaseStart(words);
  return tid > 0;
}

// A worker of the program is up (its start is over, one of startsAtOnce()
// is free): while queued threads outnumber the trampolines on their way to
// them, the pool has room and a new worker pays (growthPays), it starts
// workers for them with the free starts, on this thread, at once. A burst of
// threads that stay alive (each needs a worker of its own) so gets its
// workers back to back, startsAtOnce() at a time, not when the queue's
// watcher finds the queue stalled (a start-up time and two polls later).
export function feedQueue(program, { spawnTrampoline, hasRoom }) {
  const words = program.threads;
  while (Atomics.load(words, T_STOP) === 0 && queued(words) > Atomics.load(words, T_TICKETS) && hasRoom() && growthPays(words)) {
    if (!startTrampolineWith(words, spawnTrampoline)) return;
  }
}

// Until the program ends, while threads are queued: every POLL_MS, an idle
// worker (a worker that went idle just as a thread was queued) gets a
// trampoline (claim); and it starts workers for the queue (trampolines, with
// spawnTrampoline(TRAMPOLINE_ARG) -> {tid, grew}), when the pool has room and
//   - the queue is stalled (watchQueueFor): its threads wait on threads that
//     run (or block) on every worker; one worker per queued thread;
//   - the queue moves but has not shrunk in a start-up time, and there are
//     fewer workers than CPUs (workers()): short threads outrun the workers;
//     one more worker.
// A stalled queue with the pool full may wait for ever (threads that wait for
// each other, more of them than workers): onFullStall(queued) is told, once.
// Never blocks its thread (the supervisor's).
export async function watchThreadQueue(program, { claim, spawnTrampoline, hasRoom, workers, cpus, onFullStall = null }) {
  const words = program.threads;
  let warned = false;
  const startTrampoline = (bound) => startTrampolineWith(words, spawnTrampoline, bound);
  while (Atomics.load(words, T_STOP) === 0) {
    const tail = Atomics.load(words, T_QTAIL);
    const head = Atomics.load(words, T_QHEAD);
    if (tail === head) {
      await Atomics.waitAsync(words, T_QTAIL, tail).value;
      continue;
    }
    const ended = Atomics.load(words, T_ENDED);
    const verdict = await watchQueueFor(words, head, ended, claim);
    const unserved = queued(words) > Atomics.load(words, T_TICKETS);
    if (verdict === "stalled" && !hasRoom() && !warned) {
      warned = true;
      onFullStall?.(queued(words));
    }
    if (verdict === "stalled" && unserved && hasRoom()) await feedStalledQueue(words, startTrampoline, hasRoom);
    else if (verdict === "behind" && unserved && hasRoom() && workers() < cpus) startTrampoline();
  }
}

// Looks at a non-empty queue every POLL_MS (an idle worker gets a
// trampoline) until it can say how the queue goes:
//   "stalled"  nothing taken from it and no thread ended, for a worker's
//              start-up time, and no worker starting; or, while threads are not known to be short
//              (growthPays), for STALL_POLLS polls when no worker is
//              starting (every worker is up, and busy with threads that do
//              not end). Short threads get the whole start-up time: a
//              worker preempted for a few polls is not a stall;
//   "behind"   taken from, but no shorter, after a start-up time;
//   "fine"     emptied, shrinking, or the program ended.
async function watchQueueFor(words, head, ended, claim) {
  const backlog = queued(words);
  const startMs = Math.max(POLL_MS, Atomics.load(words, T_START_US) / 1000);
  let quiet = 0; // polls with no worker starting and nothing moving
  for (let waited = 0; waited < startMs; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
    if (Atomics.load(words, T_STOP) !== 0 || queued(words) <= 0) return "fine";
    handQueueToIdleWorker(words, claim);
    const still = Atomics.load(words, T_QHEAD) === head && Atomics.load(words, T_ENDED) === ended;
    if (!still) quiet = -Infinity;
    else if (Atomics.load(words, T_STARTING) === 0 && growthPays(words)) quiet++;
    if (quiet >= STALL_POLLS) return "stalled";
  }
  // A worker still starting may take from the queue yet: not a stall.
  const still = Atomics.load(words, T_QHEAD) === head && Atomics.load(words, T_ENDED) === ended;
  if (still && Atomics.load(words, T_STARTING) === 0) return "stalled";
  if (still) return "fine";
  return queued(words) >= backlog ? "behind" : "fine";
}

// The queue has not moved for a worker's start-up time: its threads wait for
// threads that do not end. One worker per queued thread, as fast as the
// starts allow, until a thread ends (a worker may come free), the queue
// empties, the pool is full or the program ends (stallStartsAtOnce()).
async function feedStalledQueue(words, startTrampoline, hasRoom) {
  const ended = Atomics.load(words, T_ENDED);
  // Trampolines on their way (T_TICKETS) will each take a queued thread.
  while (
    Atomics.load(words, T_STOP) === 0 &&
    Atomics.load(words, T_ENDED) === ended &&
    queued(words) > Atomics.load(words, T_TICKETS) &&
    hasRoom()
  ) {
    if (startTrampoline(stallStartsAtOnce())) continue;
    const starting = Atomics.load(words, T_STARTING);
    await Atomics.waitAsync(words, T_STARTING, starting, POLL_MS).value;
  }
}

// The program ended: the watcher returns.
export function stopThreadQueue(program) {
  const words = program.threads;
  Atomics.store(words, T_STOP, 1);
  Atomics.notify(words, T_QTAIL);
  Atomics.notify(words, T_QHEAD);
}
