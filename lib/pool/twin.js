// The pure-JS twin of the pool protocol (SDK-CONTRACT section 1).
//
// This is the protocol exactly as space-data-module-sdk 0.8.25 runs it in
// JavaScript: the same Atomics waits, notifies and generation bumps, the same
// spawn algorithm, no extra spinning. Browsers and machines without the addon
// use it, and the benchmarks measure the native core against it, so it must
// stay faithful: never slower than the SDK, never doing extra work.
//
// Arguments are validated by lib/pool.js before it dispatches here. What this
// file does defend against is the shared buffer itself: any thread holding it
// may have written any header word, so H_CAPACITY and H_SLOTS are clamped to
// the slots the buffer really holds, negative counts are 0, an unknown state
// value is busy (never claimable, never retired) and a tid outside 1..MAX_TID
// is "tid-exhausted". Nothing here indexes outside the buffer or loops forever
// on a corrupted word.
//
// Deliberate refinements over the SDK, made identically by the native core,
// are marked "Refinement" below (docs/api.md lists them).

import {
  DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
  FLAG_MESSAGE_DISPATCH,
  GROW_AFTER_MS,
  H_CAPACITY,
  H_DECLINED,
  H_GENERATION,
  H_IMPL,
  H_NEXT_TID,
  H_SLOTS,
  H_SPAWNED,
  H_WAITED,
  IMPL_CLOSED,
  IMPL_JS,
  MAX_TID,
  S_ARG,
  S_FLAGS,
  S_STATE,
  S_THREAD,
  S_TID,
  WASI_THREAD_POOL_SLOT,
  maxSlotsOf,
  slotBase,
} from "./layout.js";
import { DECLINE } from "./reasons.js";

const { PENDING, IDLE, CLAIMED, ASSIGNED, RUNNING, RETIRED } = WASI_THREAD_POOL_SLOT;

const { POOL_EXHAUSTED, WORKER_CREATE_FAILED, TID_EXHAUSTED, DISPATCH_FAILED, TERMINATED } = DECLINE;

// Read at each call, not at load: Node's global performance is lazy, and its
// first read loads perf_hooks (about 4 ms of a worker's start, where this is
// loaded but may never wait).
const monotonicNow = () =>
  typeof performance !== "undefined" && typeof performance.now === "function" ? performance.now() : Date.now();

// ---------------------------------------------------------------------------
// Header words, clamped to the buffer.

// min(H_CAPACITY, slots the buffer holds); negative counts as 0.
function capacityOf(control) {
  const capacity = Atomics.load(control, H_CAPACITY);
  const max = maxSlotsOf(control.length);
  return capacity <= 0 ? 0 : capacity < max ? capacity : max;
}

// min(H_SLOTS, capacity); negative counts as 0.
function slotsOf(control, capacity) {
  const slots = Atomics.load(control, H_SLOTS);
  return slots <= 0 ? 0 : slots < capacity ? slots : capacity;
}

// Bumped whenever a slot may have become claimable or has been retired:
// every spawner sleeping on the generation re-scans.
function bumpGeneration(control) {
  Atomics.add(control, H_GENERATION, 1);
  Atomics.notify(control, H_GENERATION);
}

// Store, wake the slot's worker, wake the spawners.
function setState(control, slot, state) {
  const index = slotBase(slot) + S_STATE;
  Atomics.store(control, index, state);
  Atomics.notify(control, index);
  bumpGeneration(control);
}

// ---------------------------------------------------------------------------
// Creation and owner-side operations.

// Header of a new pool. Plain stores: the buffer is not shared yet.
export function formatWasiThreadPool(control, capacity) {
  control[H_NEXT_TID] = 1;
  control[H_CAPACITY] = capacity;
  control[H_IMPL] = IMPL_JS;
}

// Refinement (not in the SDK): closing a pool for terminateAll. Sets the
// closed bit of H_IMPL, then retires every slot in service, re-reading
// H_SLOTS until it stops moving. Every spawn on any thread reads the bit
// first and declines "terminated"; a growing spawner reads it after its CAS
// on H_SLOTS and its claim of the new slot, and again after grow(). Why no
// slot is assigned once this has returned, and what may still start: the
// one statement of the argument, src/core/wtp.h, "Closing a pool". Returns the
// number of slots retired.
export function terminateWasiThreadPool(pool) {
  const control = pool.control;
  Atomics.or(control, H_IMPL, IMPL_CLOSED);
  const capacity = capacityOf(control);
  let done = 0;
  for (;;) {
    const slots = slotsOf(control, capacity);
    if (done >= slots) break;
    for (; done < slots; done++) setState(control, done, RETIRED);
  }
  // Wake every spawner even with no slot in service.
  bumpGeneration(control);
  return done;
}

export function wasiThreadPoolTerminated(pool) {
  return isClosed(pool.control);
}

function isClosed(control) {
  return (Atomics.load(control, H_IMPL) & IMPL_CLOSED) !== 0;
}

export function openWasiThreadPoolSlots(pool, count) {
  Atomics.store(pool.control, H_SLOTS, count);
}

// Refinement: PENDING -> IDLE only, by CAS (the SDK stores IDLE in any
// state), so a RETIRED slot stays RETIRED (a closed pool stays closed) and
// an active slot keeps its thread. As wtp_slot_arm in src/core/wtp_pool.c.
export function armWasiThreadPoolSlot(pool, slot, { messageDispatch = false } = {}) {
  const control = pool.control;
  const index = slotBase(slot) + S_STATE;
  if (Atomics.load(control, index) !== PENDING) return;
  if (messageDispatch) {
    Atomics.store(control, slotBase(slot) + S_FLAGS, FLAG_MESSAGE_DISPATCH);
  }
  if (Atomics.compareExchange(control, index, PENDING, IDLE) !== PENDING) return;
  Atomics.notify(control, index);
  bumpGeneration(control);
}

// Unconditional: a worker parked on the slot wakes and returns.
export function retireWasiThreadPoolSlot(pool, slot) {
  setState(pool.control, slot, RETIRED);
}

export function wasiThreadPoolSlotState(pool, slot) {
  return Atomics.load(pool.control, slotBase(slot) + S_STATE);
}

export function wasiThreadPoolLastTid(pool, slot) {
  return Atomics.load(pool.control, slotBase(slot) + S_TID);
}

export function wasiThreadPoolRunningTid(pool, slot) {
  const control = pool.control;
  const base = slotBase(slot);
  const state = Atomics.load(control, base + S_STATE);
  return state === ASSIGNED || state === RUNNING ? Atomics.load(control, base + S_TID) : null;
}

// Tid-guarded: a late or duplicate exit for an older thread never frees a
// slot that has since been given to another thread.
export function releaseWasiThreadPoolSlotIfRunning(pool, slot, tid) {
  const control = pool.control;
  const base = slotBase(slot);
  for (;;) {
    const state = Atomics.load(control, base + S_STATE);
    if (state !== ASSIGNED && state !== RUNNING) return false;
    if (Atomics.load(control, base + S_TID) !== tid) return false;
    if (Atomics.compareExchange(control, base + S_STATE, state, IDLE) === state) {
      bumpGeneration(control);
      return true;
    }
  }
}

// ---------------------------------------------------------------------------
// Worker side.

export function takeWasiThreadPoolAssignment(pool, slot) {
  const control = pool.control;
  const base = slotBase(slot);
  if (Atomics.compareExchange(control, base + S_STATE, ASSIGNED, RUNNING) !== ASSIGNED) {
    return null;
  }
  return {
    tid: Atomics.load(control, base + S_TID),
    startArg: Atomics.load(control, base + S_ARG),
  };
}

// Bumps only if the CAS won, so a slot retired while its thread ran stays
// RETIRED.
export function finishWasiThreadPoolRun(pool, slot) {
  const control = pool.control;
  if (Atomics.compareExchange(control, slotBase(slot) + S_STATE, RUNNING, IDLE) === RUNNING) {
    bumpGeneration(control);
  }
}

// Blocks until the slot is retired, running every thread assigned to it.
export function serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId = 0 } = {}) {
  const control = pool.control;
  const base = slotBase(slot);
  const index = base + S_STATE;
  if (osThreadId) Atomics.store(control, base + S_THREAD, osThreadId);
  for (;;) {
    const state = Atomics.load(control, index);
    if (state === RETIRED) return;
    if (state !== ASSIGNED) {
      // PENDING, IDLE, CLAIMED (or a corrupted value): sleep until the word
      // changes or a spawner notifies it.
      Atomics.wait(control, index, state);
      continue;
    }
    // takeWasiThreadPoolAssignment, inlined.
    if (Atomics.compareExchange(control, index, ASSIGNED, RUNNING) !== ASSIGNED) continue;
    const tid = Atomics.load(control, base + S_TID);
    const startArg = Atomics.load(control, base + S_ARG);
    let result;
    try {
      result = runThread(tid, startArg);
    } catch (error) {
      // Refinement: the SDK leaves the slot RUNNING forever here, so spawners
      // count it live and wait on it in vain. Retire it, then rethrow.
      setState(control, slot, RETIRED);
      throw error;
    }
    if (result === false) {
      setState(control, slot, RETIRED);
      return;
    }
    finishWasiThreadPoolRun(pool, slot);
  }
}

// ---------------------------------------------------------------------------
// Report.

export function readWasiThreadPoolReport(pool) {
  const control = pool.control;
  const slots = slotsOf(control, capacityOf(control));
  let active = 0;
  let idle = 0;
  let workers = 0;
  for (let slot = 0; slot < slots; slot++) {
    const base = slotBase(slot);
    const state = Atomics.load(control, base + S_STATE);
    if (state === CLAIMED || state === ASSIGNED || state === RUNNING) active++;
    else if (state === IDLE) idle++;
    if (Atomics.load(control, base + S_THREAD) !== 0) workers++;
  }
  return {
    spawned: Atomics.load(control, H_SPAWNED),
    waited: Atomics.load(control, H_WAITED),
    declined: Atomics.load(control, H_DECLINED),
    slots,
    active,
    idle,
    workers,
  };
}

// ---------------------------------------------------------------------------
// Spawn (SDK-CONTRACT 1.5), in three steps: claim a slot (a scan, then the
// slow path that grows or waits), publish the thread in it (its tid and
// argument, then CLAIMED -> ASSIGNED) and dispatch it (wake the slot's worker,
// or post the message). One spawner per thread keeps what the steps share:
// the capacity read once, the no-second-wait generation (starvedAt), canBlock
// and what the last scan saw.

// Refinement: H_NEXT_TID is sticky at exhaustion. The SDK's Atomics.add
// keeps counting on every "tid-exhausted" attempt and wraps after 2^32 of
// them, handing tid 1 out again; here the word moves t -> t+1 only while t is
// a valid tid (1..MAX_TID), so once it passes MAX_TID it stays. Returns t.
function nextTid(control) {
  let t = Atomics.load(control, H_NEXT_TID);
  for (;;) {
    if (t < 1 || t > MAX_TID) return t;
    const seen = Atomics.compareExchange(control, H_NEXT_TID, t, t + 1);
    if (seen === t) return t;
    t = seen;
  }
}

function createSpawner(pool, owner, grow, dispatchMessage) {
  const control = pool.control;
  return {
    pool,
    control,
    owner,
    grow,
    growable: typeof grow === "function",
    dispatchMessage,
    spawnWaitMs: pool.spawnWaitMs ?? DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
    capacity: capacityOf(control),
    starvedAt: null,
    canBlock: true,
    // Claimable, non-retired slots the last scan saw. Read right after the
    // scan that sets it, before any callback can run another scan.
    live: 0,
    // The claimed slot's message-dispatch bit, read once right after the claim
    // (refinement: the SDK reads S_FLAGS again after the assignment, so a
    // write in between changed the path). Set by scan() and growOne().
    dispatch: false,
  };
}

// Claims an IDLE slot; sets `live` and `dispatch`. Returns the slot or -1.
function scan(spawner) {
  const { control, owner } = spawner;
  const slots = slotsOf(control, spawner.capacity);
  let seen = 0;
  for (let slot = 0; slot < slots; slot++) {
    const base = slotBase(slot);
    // A non-owner never claims a message-dispatch slot.
    if (!owner && (Atomics.load(control, base + S_FLAGS) & FLAG_MESSAGE_DISPATCH) !== 0) {
      continue;
    }
    if (Atomics.compareExchange(control, base + S_STATE, IDLE, CLAIMED) === IDLE) {
      const dispatch = (Atomics.load(control, base + S_FLAGS) & FLAG_MESSAGE_DISPATCH) !== 0;
      spawner.dispatch = dispatch;
      if (!owner && dispatch) {
        // Refinement: armed as message-dispatch between the flag check and
        // the CAS. Give it back (the owner may be waiting for it).
        if (Atomics.compareExchange(control, base + S_STATE, CLAIMED, IDLE) === CLAIMED) {
          bumpGeneration(control);
        }
        seen++;
        continue;
      }
      spawner.live = seen + 1;
      return slot;
    }
    if (Atomics.load(control, base + S_STATE) !== RETIRED) seen++;
  }
  spawner.live = seen;
  return -1;
}

// Room to grow: 0 <= H_SLOTS < capacity. A negative (corrupted) count is
// no room, as in reserve(), so that the claim loop never spins between
// "room" and "reserve failed".
function hasRoom(spawner) {
  if (!spawner.growable) return false;
  const n = Atomics.load(spawner.control, H_SLOTS);
  return n >= 0 && n < spawner.capacity;
}

// Reserves slot H_SLOTS by CAS and claims it PENDING -> CLAIMED by CAS.
// -1 when there is no room or the reserved slot was not PENDING (look
// again), -2 when the pool is closed.
function reserve(spawner) {
  const control = spawner.control;
  for (;;) {
    const n = Atomics.load(control, H_SLOTS);
    if (n < 0 || n >= spawner.capacity) return -1;
    if (Atomics.compareExchange(control, H_SLOTS, n, n + 1) === n) {
      // Refinement: a CAS, not the SDK's store, so that a retire of slot
      // n landing since the reservation (terminateWasiThreadPool saw the
      // new H_SLOTS) stays.
      if (Atomics.compareExchange(control, slotBase(n) + S_STATE, PENDING, CLAIMED) !== PENDING) {
        return isClosed(control) ? -2 : -1;
      }
      // G3 of the pairing with terminateWasiThreadPool (src/core/wtp.h,
      // "Closing a pool"): a closer this read misses retires slot n itself.
      if (isClosed(control)) {
        setState(control, n, RETIRED);
        return -2;
      }
      return n;
    }
  }
}

// Starts a worker for a new slot. Returns the slot, or -1 with
// attempt.reason set ("worker-create-failed", "terminated") or left null
// (another thread took the room).
function growOne(spawner, attempt) {
  const slot = reserve(spawner);
  if (slot === -2) {
    attempt.reason = TERMINATED;
    return -1;
  }
  if (slot < 0) return -1;
  // Never armed: worker-served, whatever grow() writes into its flags.
  spawner.dispatch = false;
  try {
    spawner.grow(slot);
  } catch {
    // The slot is used up for good: retired, it counts against capacity.
    setState(spawner.control, slot, RETIRED);
    attempt.reason = WORKER_CREATE_FAILED;
    return -1;
  }
  // Closed while grow() ran: decline before taking a tid (as grow_one in
  // src/core/wtp_pool.c; the worker just started finds its slot retired).
  if (isClosed(spawner.control)) {
    setState(spawner.control, slot, RETIRED);
    attempt.reason = TERMINATED;
    return -1;
  }
  return slot;
}

// The slow path of a claim, after a scan found nothing. `attempt` is the
// spawn's own state: its clock (set on the first call, kept if the spawn
// has to claim again), whether it waited, and why it failed. Returns a
// CLAIMED slot, or -1 with attempt.reason set.
function claim(spawner, attempt) {
  const control = spawner.control;
  if (attempt.deadline < 0) {
    const now = monotonicNow();
    attempt.deadline = now + (spawner.canBlock ? spawner.spawnWaitMs : 0);
    attempt.growAt = now + (spawner.canBlock ? Math.min(GROW_AFTER_MS, spawner.spawnWaitMs) : 0);
  }
  for (;;) {
    const generation = Atomics.load(control, H_GENERATION);
    // Closed while this spawn waited or looked again.
    if (isClosed(control)) {
      attempt.reason = TERMINATED;
      return -1;
    }
    const slot = scan(spawner);
    if (slot >= 0) return slot;
    const room = hasRoom(spawner);
    if (room && (spawner.live === 0 || monotonicNow() >= attempt.growAt)) {
      const grown = growOne(spawner, attempt);
      if (grown >= 0 || attempt.reason !== null) return grown;
      continue; // another thread took the last reservation: look again
    }
    // Nothing can ever come free: no wait (a dead pool declines at once).
    if (spawner.live === 0) return exhausted(attempt);
    // The no-second-wait rule: this spawner already waited out this
    // generation, and nothing has changed since.
    if (generation === spawner.starvedAt && !room) return exhausted(attempt);
    const remaining = (room ? attempt.growAt : attempt.deadline) - monotonicNow();
    if (!room && remaining <= 0) {
      spawner.starvedAt = generation;
      return exhausted(attempt);
    }
    if (remaining > 0) {
      try {
        Atomics.wait(control, H_GENERATION, generation, remaining);
      } catch {
        // This agent may not block (a window's main thread): never wait
        // again on this spawner.
        spawner.canBlock = false;
        if (!room) return exhausted(attempt);
        attempt.growAt = 0;
        continue;
      }
      attempt.waited = true;
    }
  }
}

function exhausted(attempt) {
  attempt.reason = POOL_EXHAUSTED;
  return -1;
}

function decline(control, why) {
  if (why === POOL_EXHAUSTED) Atomics.add(control, H_DECLINED, 1);
  return { tid: -1, slot: -1, reason: why };
}

// A tid for the thread about to be published in the CLAIMED `slot`, or 0
// when there is none to give: beyond MAX_TID (or a wrapped or zeroed
// counter). Then the slot goes back to IDLE as the SDK does, but by CAS (see
// publish()): a slot retired meanwhile stays RETIRED.
function takeTid(control, slot) {
  const tid = nextTid(control);
  if (tid > MAX_TID || tid < 1) {
    Atomics.compareExchange(control, slotBase(slot) + S_STATE, CLAIMED, IDLE);
    bumpGeneration(control);
    return 0;
  }
  return tid;
}

// Writes the thread into the CLAIMED `slot` and assigns it. false when the
// slot was retired meanwhile.
// Refinement: the SDK stores ASSIGNED unconditionally, which would undo a
// retire that landed while the slot was CLAIMED (worker exit, terminateAll).
// A CAS keeps the slot RETIRED; this spawner puts the slot's last tid back,
// keeps its own tid and claims again, still within the same deadline.
function publish(control, slot, tid, startArg) {
  const base = slotBase(slot);
  const lastTid = Atomics.load(control, base + S_TID);
  Atomics.store(control, base + S_TID, tid);
  Atomics.store(control, base + S_ARG, startArg | 0);
  if (Atomics.compareExchange(control, base + S_STATE, CLAIMED, ASSIGNED) === CLAIMED) {
    return true;
  }
  Atomics.compareExchange(control, base + S_TID, tid, lastTid);
  return false;
}

// Hands the ASSIGNED slot's thread to whoever runs it, then counts the spawn.
function dispatchThread(spawner, slot, tid, startArg, attempt) {
  const control = spawner.control;
  // The flag as read at the claim, not re-read (see createSpawner, `dispatch`).
  if (spawner.dispatch) {
    try {
      spawner.dispatchMessage(slot, tid, startArg);
    } catch {
      releaseWasiThreadPoolSlotIfRunning(spawner.pool, slot, tid);
      return decline(control, DISPATCH_FAILED);
    }
  } else {
    Atomics.notify(control, slotBase(slot) + S_STATE);
  }
  Atomics.add(control, H_SPAWNED, 1);
  if (attempt !== null && attempt.waited) Atomics.add(control, H_WAITED, 1);
  return { tid, slot, reason: null };
}

function spawnOn(spawner, startArg) {
  const control = spawner.control;
  // Refinement: a closed pool (terminateWasiThreadPool, on any thread)
  // declines every spawn, before any slot is touched.
  if (isClosed(control)) return decline(control, TERMINATED);
  let slot = scan(spawner);
  let attempt = null; // made only on the slow path
  let tid = 0;
  for (;;) {
    if (slot < 0) {
      attempt ??= { deadline: -1, growAt: 0, waited: false, reason: null };
      slot = claim(spawner, attempt);
      if (slot < 0) return decline(control, attempt.reason);
    }
    if (tid === 0) {
      tid = takeTid(control, slot);
      if (tid === 0) return decline(control, TID_EXHAUSTED);
    }
    if (publish(control, slot, tid, startArg)) break;
    slot = scan(spawner);
  }
  return dispatchThread(spawner, slot, tid, startArg, attempt);
}

export function createWasiThreadPoolSpawn(pool, { owner = false, grow = null, dispatchMessage = null } = {}) {
  const spawner = createSpawner(pool, owner, grow, dispatchMessage);
  return function spawn(startArg) {
    return spawnOn(spawner, startArg);
  };
}
