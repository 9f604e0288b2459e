/* wtp_pool.c: the pool protocol of SDK-CONTRACT 1.3-1.7 over an array of
 * shared 32-bit words. See wtp.h for the layout and the state table.
 *
 * ## Atomics on the buffer
 *
 * The buffer is an Int32Array's memory, handed in as int32_t*; every access
 * goes through a cast to _Atomic int32_t* (why that is sound, and the
 * compile-time checks: wtp_park.c, "Atomics on plain int32_t words").
 * JavaScript's Atomics use the same instructions on the same words, so C
 * and JS agree on every value; they do not share waiter lists (see
 * WTP_H_IMPL), which is why a native pool only ever waits and wakes through
 * wtp_park.c.
 *
 * ## Who writes which word
 *
 *   H_GENERATION  fetch_add(1) by anyone who makes a slot claimable (arm,
 *                 finish, release, tid overflow) or retires one. seq_cst,
 *                 then a wake-all: a spawner parks on it (see bump()).
 *   H_NEXT_TID    CAS t -> t+1 by a spawner while t is a valid tid (sticky
 *                 at exhaustion: next_tid()); t is the tid. Relaxed.
 *   H_SPAWNED/H_WAITED/H_DECLINED
 *                 fetch_add(1) statistics; relaxed everywhere (no other
 *                 memory is published through them).
 *   H_SLOTS       the browser owner stores it once; a growing spawner CASes
 *                 it n -> n+1 (seq_cst) to reserve slot n, then claims the
 *                 slot PENDING -> CLAIMED by CAS. wtp_pool_close reads it
 *                 seq_cst (the pairing of wtp.h, "Closing a pool").
 *   H_CAPACITY    written once by wtp_pool_format before the buffer is shared.
 *   H_IMPL        the mechanism tag, written once by wtp_pool_format; bit 31
 *                 (WTP_IMPL_CLOSED) set by wtp_pool_close's seq_cst fetch_or
 *                 and read seq_cst by every spawn (is_closed()).
 *   S_STATE       the state machine of wtp.h. Changes that a worker parked on
 *                 the word waits for (-> ASSIGNED, -> RETIRED, PENDING ->
 *                 IDLE) are seq_cst and followed by an unpark of the word.
 *   S_TID, S_ARG  stored (relaxed) by the claiming spawner while the slot is
 *                 CLAIMED, i.e. owned by it alone, and published by its
 *                 release (seq_cst) CAS CLAIMED -> ASSIGNED; the worker's
 *                 acquire CAS ASSIGNED -> RUNNING reads that store, so its
 *                 loads of S_TID/S_ARG see the spawner's values.
 *   S_FLAGS       stored by the owner before arm's seq_cst CAS PENDING -> IDLE.
 *   S_THREAD      stored once by the serving worker; a statistic (relaxed).
 *
 * ## No lost wake-up
 *
 * - A worker parks on S_STATE with the value it read; every change it waits
 *   for is a seq_cst write followed by wtp__unpark_*(S_STATE), which is the
 *   waker's half of the invariant in wtp_park.c.
 * - A spawner reads g = H_GENERATION (acquire), then scans, and parks on
 *   H_GENERATION == g. Every transition that can make its scan succeed (a
 *   slot becoming IDLE) or make it give up (a retire) is followed by
 *   fetch_add(H_GENERATION) seq_cst + unpark_all. If that bump is ordered
 *   before the spawner's load of g, the acquire load reading it (or a later
 *   value) makes the slot change visible to the scan; if after, the word is
 *   no longer g and the park returns at once or is woken.
 *
 * ## Hardening
 *
 * Any JavaScript that holds the buffer can write any word. So:
 * - the only trusted bound is pool->max_slots, from the buffer length; every
 *   slot index is checked against it and H_SLOTS / H_CAPACITY are clamped to
 *   it (negative values count as 0). No access outside
 *   [0, 8 + 8 * max_slots) words is ever made.
 * - a state outside the enum is busy: it matches no CAS (all CASes expect a
 *   known state), is not claimable, and is not RETIRED (so it counts as
 *   live, and a serve loop parks on it).
 * - flags: only bit 0 is read.
 * - a tid outside 1..WTP_MAX_TID (H_NEXT_TID near MAX_TID, or wrapped to 0 or
 *   negative; atomic fetch_add on a signed type wraps in C11, no UB) is
 *   "tid exhausted".
 * - loops that retry on a lost race re-read the words each time and make no
 *   progress assumption a hostile write could break into a hang; waits are
 *   bounded by the caller's deadline or the serve loop's slot word.
 *
 * ## Refinements over the SDK (each keeps every SDK-visible behaviour when no
 *    two parties race on one slot)
 *
 * (a) CLAIMED -> ASSIGNED is a CAS, not a store. A slot retired while a
 *     spawner held it claimed (worker exit, terminateAll) stays RETIRED; the
 *     spawner puts back the slot's previous S_TID, keeps its tid and claims
 *     again against the same deadline. The tid-overflow undo
 *     (CLAIMED -> IDLE) is a CAS for the same reason.
 * (b) interrupted() stopping a wait: wtp_spawn returns WTP_REASON_INTERRUPTED
 *     (not counted in H_DECLINED); wtp_serve retires its slot, so that no
 *     spawner assigns a thread to a worker that is going away, and returns
 *     WTP_SERVE_INTERRUPTED. The claim loop also asks interrupted(ctx, 0) at
 *     the start of each turn, so a stopped spawner declines before it
 *     reserves a slot, grows a worker or waits (only its first scan, before
 *     the loop, may still take an IDLE slot), and interrupted(ctx, 1) once a
 *     slice has passed since it last asked, however the generation moves
 *     (spawner_stopped()).
 * (c) run() returning WTP_RUN_ERROR: serve retires the slot (otherwise it
 *     would stay RUNNING forever, busy for every spawner) and returns
 *     WTP_SERVE_RUN_ERROR.
 * (d) A spawner reads S_FLAGS after its claim CAS wins. The SDK reads
 *     the flags before the CAS only, so an arm (flags, then IDLE) between the
 *     two would hand a message-dispatch slot to a non-owner, which would
 *     notify a worker that never reads the buffer. Here the non-owner gives
 *     the slot back (CAS CLAIMED -> IDLE, bump) and scans on.
 * (e) A slot whose flags say message-dispatch but whose spawner has no
 *     dispatch callback fails as WTP_REASON_DISPATCH_FAILED (the SDK would
 *     throw calling null).
 * (f) A grown slot is claimed PENDING -> CLAIMED by CAS after H_SLOTS is
 *     bumped (the SDK stores CLAIMED unconditionally, undoing a retire that
 *     landed in between: a thread could then run after terminateAll).
 * (g) H_NEXT_TID is sticky at exhaustion (next_tid()).
 * (h) wtp_pool_close and WTP_REASON_TERMINATED (wtp.h, "Closing a pool").
 * (i) The dispatch path is chosen by the S_FLAGS value read once at the
 *     claim (claim_slot), carried to the assignment; a grown slot is
 *     worker-served without reading its flags.
 * (j) Arm is a CAS PENDING -> IDLE (the SDK stores IDLE in any state): a
 *     RETIRED slot stays RETIRED, so nothing is claimable once
 *     wtp_pool_close has returned, and an active slot keeps its thread.
 */
#include "wtp.h"

#include <stdatomic.h>
#include <stdint.h>

#include "wtp_claim.h"
#include "wtp_park.h"
#include "../os/wtp_wait.h"

/* Bound on max_slots, so that every word index 8 + 8*slot + 7 fits in an
 * int32 and a uint32 (a JS Int32Array cannot be that long anyway). */
#define SLOTS_LIMIT \
  ((uint32_t)((INT32_MAX - WTP_HEADER_WORDS) / WTP_SLOT_WORDS))

static inline _Atomic int32_t* header_word(const wtp_pool_t* pool, int word) {
  return (_Atomic int32_t*)(pool->words + word);
}

/* The caller has checked slot < pool->max_slots. */
static inline _Atomic int32_t* slot_word(const wtp_pool_t* pool, uint32_t slot,
                                         int word) {
  return (_Atomic int32_t*)(pool->words + WTP_HEADER_WORDS +
                            (size_t)WTP_SLOT_WORDS * slot + word);
}

static inline int32_t* slot_word_ptr(const wtp_pool_t* pool, uint32_t slot,
                                     int word) {
  return pool->words + WTP_HEADER_WORDS + (size_t)WTP_SLOT_WORDS * slot + word;
}

static inline uint32_t clamp(int32_t v, uint32_t bound) {
  if (v <= 0) return 0;
  return (uint32_t)v < bound ? (uint32_t)v : bound;
}

/* Bump the release generation and wake every parked spawner. seq_cst: the
 * waker's K1 of wtp_park.c, and a release of the slot change made before
 * it, read by the spawner's acquire load of the generation. */
static void bump(const wtp_pool_t* pool) {
  atomic_fetch_add_explicit(header_word(pool, WTP_H_GENERATION), 1,
                            memory_order_seq_cst);
  wtp__unpark_all(pool->words + WTP_H_GENERATION);
}

static inline void increment_statistic(const wtp_pool_t* pool, int word) {
  /* Statistics: relaxed, they publish nothing. */
  atomic_fetch_add_explicit(header_word(pool, word), 1, memory_order_relaxed);
}

/* The spin heuristic's count of guest threads assigned and not yet done
 * (wtp__park_note_running) follows the slot states exactly: +1 just
 * before a spawner's CAS CLAIMED -> ASSIGNED (-1 again if that CAS fails),
 * -1 by whichever RMW takes the slot out of ASSIGNED/RUNNING: finish's
 * CAS RUNNING -> IDLE, release's CAS, or retire's exchange that returned
 * ASSIGNED or RUNNING. Each assignment is left by exactly one of these
 * RMWs (they are all on the one state word), so every path, including a
 * retire or release before the worker took the thread and JavaScript-level
 * take/finish, keeps the count exact (arm, a CAS from PENDING, never
 * touches an active slot). Only a hostile plain store to a state word can
 * skew it; the reader clamps it at 0. */
static inline void running_left(int32_t old_state) {
  if (old_state == WTP_ASSIGNED || old_state == WTP_RUNNING)
    wtp__park_note_running(-1);
}

#ifdef WTP_TEST_HOOKS
void (*wtp__test_after_reserve)(const wtp_pool_t* pool, uint32_t slot) = NULL;
#define AFTER_RESERVE(pool, slot)                                             \
  do {                                                                        \
    if (wtp__test_after_reserve != NULL) wtp__test_after_reserve(pool, slot); \
  } while (0)
#else
#define AFTER_RESERVE(pool, slot) ((void)0)
#endif

static inline int is_dispatch(const wtp_pool_t* pool, uint32_t slot) {
  /* Relaxed here: a pre-CAS filter (as the SDK's). The value that decides
   * the dispatch path is the one claim_slot() reads after its acquire CAS,
   * carried to wtp_spawn (refinement (d)). Unknown bits are ignored. */
  return (atomic_load_explicit(slot_word(pool, slot, WTP_S_FLAGS),
                               memory_order_relaxed) &
          WTP_FLAG_MESSAGE_DISPATCH) != 0;
}

/* ------------------------------------------------------------------------ */
/* Views and owner-side operations                                           */

int wtp_pool_init(wtp_pool_t* pool, int32_t* words, size_t nwords) {
  if (pool == NULL || words == NULL || nwords < WTP_HEADER_WORDS)
    return WTP_EINVAL;
  size_t n = (nwords - WTP_HEADER_WORDS) / WTP_SLOT_WORDS;
  pool->words = words;
  pool->max_slots = n > SLOTS_LIMIT ? SLOTS_LIMIT : (uint32_t)n;
  return WTP_OK;
}

int wtp_pool_format(const wtp_pool_t* pool, uint32_t capacity, int32_t impl) {
  if (capacity > pool->max_slots) return WTP_EINVAL;
  /* Relaxed: the buffer is not shared yet; whatever later shares it
   * (postMessage, thread creation) synchronizes with these stores. */
  atomic_store_explicit(header_word(pool, WTP_H_NEXT_TID), 1,
                        memory_order_relaxed);
  atomic_store_explicit(header_word(pool, WTP_H_CAPACITY), (int32_t)capacity,
                        memory_order_relaxed);
  atomic_store_explicit(header_word(pool, WTP_H_IMPL), impl,
                        memory_order_relaxed);
  return WTP_OK;
}

uint32_t wtp_pool_capacity(const wtp_pool_t* pool) {
  /* Relaxed: written once before sharing; a hostile later write is clamped. */
  return clamp(atomic_load_explicit(header_word(pool, WTP_H_CAPACITY),
                                    memory_order_relaxed),
               pool->max_slots);
}

static uint32_t slots_in(const wtp_pool_t* pool, uint32_t capacity) {
  /* Relaxed: H_SLOTS only bounds the scan. Slot words beyond the value read
   * are either PENDING (zero since the buffer was made, before sharing) or
   * made CLAIMED by the reserving spawner itself; no other data hangs on
   * seeing the newest count. */
  return clamp(atomic_load_explicit(header_word(pool, WTP_H_SLOTS),
                                    memory_order_relaxed),
               capacity);
}

uint32_t wtp_pool_slots(const wtp_pool_t* pool) {
  return slots_in(pool, wtp_pool_capacity(pool));
}

void wtp_pool_open_slots(const wtp_pool_t* pool, int32_t slot_count) {
  /* seq_cst as the SDK's Atomics.store; no bump, no wake (slots opened this
   * way are PENDING until armed, and arming bumps). */
  atomic_store_explicit(header_word(pool, WTP_H_SLOTS), slot_count,
                        memory_order_seq_cst);
}

/* Unconditional -> RETIRED. seq_cst store (K1 for the slot word), wake every
 * server parked on the slot, then bump so parked spawners rescan (and see a
 * dead pool if it was the last live slot).
 *
 * Wake all, not one: a slot has a single server by protocol, but an
 * embedder bug or a hostile script can start two serve loops on one slot,
 * and RETIRED is final: every loop parked on it must end. Retire is rare, so
 * the wider wake costs nothing measurable; with no parked thread it is
 * skipped anyway. */
static void retire(const wtp_pool_t* pool, uint32_t slot) {
  /* An exchange rather than the SDK's store: the same unconditional write,
   * and it tells whether an assigned thread was counted (see running_left
   * below). seq_cst: K1 for the slot word. */
  int32_t old = atomic_exchange_explicit(slot_word(pool, slot, WTP_S_STATE),
                                         WTP_RETIRED, memory_order_seq_cst);
  running_left(old);
  wtp__unpark_all(slot_word_ptr(pool, slot, WTP_S_STATE));
  bump(pool);
}

int wtp_slot_arm(const wtp_pool_t* pool, uint32_t slot, int message_dispatch) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  _Atomic int32_t* state = slot_word(pool, slot, WTP_S_STATE);
  /* Arm moves PENDING -> IDLE only: RETIRED is final (a closed pool stays
   * closed), and an active slot is not its to change (the SDK's store would
   * hand an ASSIGNED slot's thread to no one and leave the running count
   * one too high). The pre-check keeps the flags of a slot it will not arm
   * as they are; a retire landing between it and the CAS below leaves the
   * flags of a RETIRED slot changed, which nothing reads. */
  if (atomic_load_explicit(state, memory_order_relaxed) != WTP_PENDING)
    return WTP_OK;
  if (message_dispatch) {
    /* Relaxed: published by the seq_cst (release) CAS to IDLE below. */
    atomic_store_explicit(slot_word(pool, slot, WTP_S_FLAGS),
                          WTP_FLAG_MESSAGE_DISPATCH, memory_order_relaxed);
  }
  /* SDK setState (notify the slot, bump) after a CAS instead of its store.
   * seq_cst: K1 for a worker parked on PENDING. One server per slot: wake
   * one. */
  int32_t expected = WTP_PENDING;
  if (!atomic_compare_exchange_strong_explicit(state, &expected, WTP_IDLE,
                                               memory_order_seq_cst,
                                               memory_order_relaxed))
    return WTP_OK;
  wtp__unpark_one(slot_word_ptr(pool, slot, WTP_S_STATE));
  bump(pool);
  return WTP_OK;
}

int wtp_slot_retire(const wtp_pool_t* pool, uint32_t slot) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  retire(pool, slot);
  return WTP_OK;
}

int wtp_slot_state(const wtp_pool_t* pool, uint32_t slot, int32_t* out) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  *out = atomic_load_explicit(slot_word(pool, slot, WTP_S_STATE),
                              memory_order_seq_cst);
  return WTP_OK;
}

int wtp_slot_last_tid(const wtp_pool_t* pool, uint32_t slot, int32_t* out) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  /* Relaxed: a snapshot for reporting; the SDK's load promises no more. */
  *out = atomic_load_explicit(slot_word(pool, slot, WTP_S_TID),
                              memory_order_relaxed);
  return WTP_OK;
}

int wtp_slot_running(const wtp_pool_t* pool, uint32_t slot, int32_t* tid) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  /* Acquire on the state pairs with the spawner's release of ASSIGNED, so
   * the tid read after it is at least the assigned one. */
  int32_t state = atomic_load_explicit(slot_word(pool, slot, WTP_S_STATE),
                                       memory_order_acquire);
  if (state != WTP_ASSIGNED && state != WTP_RUNNING) return 0;
  *tid = atomic_load_explicit(slot_word(pool, slot, WTP_S_TID),
                              memory_order_relaxed);
  return 1;
}

int wtp_slot_running_tid(const wtp_pool_t* pool, uint32_t slot, int32_t* out) {
  int32_t tid = 0;
  int r = wtp_slot_running(pool, slot, &tid);
  if (r == WTP_EINVAL) return WTP_EINVAL;
  *out = r ? tid : 0;
  return WTP_OK;
}

int wtp_slot_release_if_running(const wtp_pool_t* pool, uint32_t slot,
                                int32_t tid, int* released) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  _Atomic int32_t* state = slot_word(pool, slot, WTP_S_STATE);
  *released = 0;
  for (;;) {
    /* Acquire: pairs with the spawner's release CAS to ASSIGNED, so the
     * S_TID read below belongs to this assignment or a later one. */
    int32_t s = atomic_load_explicit(state, memory_order_acquire);
    if (s != WTP_ASSIGNED && s != WTP_RUNNING) return WTP_OK;
    if (atomic_load_explicit(slot_word(pool, slot, WTP_S_TID),
                             memory_order_relaxed) != tid)
      return WTP_OK;
    /* seq_cst: the change a spawner may wait for (via the bump below).
     * Inherited from the SDK: between the tid check and this CAS the slot
     * could in principle finish, be reassigned and be RUNNING again (ABA).
     * Release is only called by the owner for message-dispatch slots (which
     * only the owner claims, on the same thread, and which no worker moves
     * out of ASSIGNED) and for a dispatch it just failed, so no second party
     * can recycle the slot in between. */
    if (atomic_compare_exchange_strong_explicit(
            state, &s, WTP_IDLE, memory_order_seq_cst, memory_order_relaxed)) {
      running_left(s);
      bump(pool);
      *released = 1;
      return WTP_OK;
    }
  }
}

static int take_assignment(const wtp_pool_t* pool, uint32_t slot, int32_t* tid,
                           int32_t* arg) {
  int32_t expected = WTP_ASSIGNED;
  /* Acquire: reads the spawner's release CAS CLAIMED -> ASSIGNED, making its
   * relaxed stores of S_TID and S_ARG visible. No wake, no bump (SDK). */
  if (!atomic_compare_exchange_strong_explicit(
          slot_word(pool, slot, WTP_S_STATE), &expected, WTP_RUNNING,
          memory_order_acquire, memory_order_relaxed))
    return 0;
  *tid = atomic_load_explicit(slot_word(pool, slot, WTP_S_TID),
                              memory_order_relaxed);
  *arg = atomic_load_explicit(slot_word(pool, slot, WTP_S_ARG),
                              memory_order_relaxed);
  return 1;
}

int wtp_slot_take(const wtp_pool_t* pool, uint32_t slot, int* taken,
                  int32_t* tid, int32_t* arg) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  *taken = take_assignment(pool, slot, tid, arg);
  return WTP_OK;
}

static void finish(const wtp_pool_t* pool, uint32_t slot) {
  int32_t expected = WTP_RUNNING;
  /* seq_cst: makes the slot claimable; released to spawners through the
   * bump. A slot retired while its thread ran fails the CAS and stays
   * RETIRED, with no bump (SDK). */
  if (atomic_compare_exchange_strong_explicit(
          slot_word(pool, slot, WTP_S_STATE), &expected, WTP_IDLE,
          memory_order_seq_cst, memory_order_relaxed)) {
    running_left(WTP_RUNNING);
    bump(pool);
  }
}

int wtp_slot_finish(const wtp_pool_t* pool, uint32_t slot) {
  if (slot >= pool->max_slots) return WTP_EINVAL;
  finish(pool, slot);
  return WTP_OK;
}

void wtp_pool_report(const wtp_pool_t* pool, wtp_report_t* out) {
  /* Relaxed snapshot of statistics, as the SDK's loads: no decision hangs on
   * a consistent cut of the words. */
  uint32_t slots = wtp_pool_slots(pool);
  uint32_t active = 0, idle = 0, workers = 0;
  for (uint32_t i = 0; i < slots; i++) {
    int32_t s = atomic_load_explicit(slot_word(pool, i, WTP_S_STATE),
                                     memory_order_relaxed);
    if (s == WTP_CLAIMED || s == WTP_ASSIGNED || s == WTP_RUNNING)
      active++;
    else if (s == WTP_IDLE)
      idle++;
    if (atomic_load_explicit(slot_word(pool, i, WTP_S_THREAD),
                             memory_order_relaxed) != 0)
      workers++;
  }
  out->spawned = atomic_load_explicit(header_word(pool, WTP_H_SPAWNED),
                                      memory_order_relaxed);
  out->waited = atomic_load_explicit(header_word(pool, WTP_H_WAITED),
                                     memory_order_relaxed);
  out->declined = atomic_load_explicit(header_word(pool, WTP_H_DECLINED),
                                       memory_order_relaxed);
  out->slots = slots;
  out->active = active;
  out->idle = idle;
  out->workers = workers;
}

/* ------------------------------------------------------------------------ */
/* Spawning (SDK-CONTRACT 1.5)                                               */

void wtp_spawner_init(wtp_spawner_t* sp, const wtp_pool_t* pool,
                      double spawn_wait_ms, int owner) {
  sp->pool = *pool;
  sp->capacity = wtp_pool_capacity(pool);
  /* The binding validates; a NaN or negative here must still not hang. */
  sp->spawn_wait_ms = spawn_wait_ms >= 0 ? spawn_wait_ms : 0;
  sp->owner = owner != 0;
  sp->can_block = 1;
  sp->starved = 0;
  sp->starved_at = 0;
  sp->grow = NULL;
  sp->dispatch = NULL;
  sp->interrupted = NULL;
  sp->ctx = NULL;
}

static inline int claimable(const wtp_spawner_t* sp, uint32_t slot) {
  return sp->owner || !is_dispatch(&sp->pool, slot);
}

typedef struct scan_result {
  int32_t slot; /* claimed slot, or -1 */
  uint32_t live;
  int dispatch; /* the claimed slot's message-dispatch bit (claim_slot) */
} scan_result_t;

/* Try IDLE -> CLAIMED on slot; 1 if this spawner now holds it, with
 * *dispatch = the slot's message-dispatch bit as read once after the CAS. */
static int claim_slot(const wtp_spawner_t* sp, uint32_t slot, int* dispatch) {
  const wtp_pool_t* pool = &sp->pool;
  _Atomic int32_t* state = slot_word(pool, slot, WTP_S_STATE);
  int32_t expected = WTP_IDLE;
  /* Acquire: pairs with the release half of the seq_cst write that made the
   * slot IDLE (arm, finish, release), so S_FLAGS as armed is visible below.
   * No wake, no bump: nobody waits for a slot to become CLAIMED. */
  if (!atomic_compare_exchange_strong_explicit(state, &expected, WTP_CLAIMED,
                                               memory_order_acquire,
                                               memory_order_relaxed))
    return 0;
  /* The one read of S_FLAGS that decides the dispatch path (refinement
   * (d)): carried to wtp_spawn, never re-read, so a write between the claim
   * and the use cannot change the path. */
  *dispatch = is_dispatch(pool, slot);
  if (!sp->owner && *dispatch) {
    /* Refinement (d): armed as message-dispatch between our flag check and
     * the CAS. Give it back; it was claimable by the owner all along, so
     * bump in case the owner parked while we held it. */
    expected = WTP_CLAIMED;
    if (atomic_compare_exchange_strong_explicit(state, &expected, WTP_IDLE,
                                                memory_order_seq_cst,
                                                memory_order_relaxed))
      bump(pool);
    return 0;
  }
  return 1;
}

static scan_result_t scan(const wtp_spawner_t* sp) {
  const wtp_pool_t* pool = &sp->pool;
  scan_result_t r = {-1, 0, 0};
  uint32_t slots = slots_in(pool, sp->capacity);
  for (uint32_t i = 0; i < slots; i++) {
    if (!claimable(sp, i)) continue;
    /* Load first, CAS only an IDLE slot (test-and-test-and-set): a CAS on
     * a busy slot's line takes it exclusive for nothing, which made a scan
     * past busy slots several times slower (bench/c/scan.c). Relaxed:
     * it only chooses whether to try; the CAS below orders. A slot that
     * turns IDLE just after this load is found by the next scan: its
     * release bumps the generation, which the claim loop reads before each
     * scan (see "No lost wake-up"). "live" is a heuristic for "can anything
     * come free"; a stale read is corrected by that same next scan. */
    int32_t st = atomic_load_explicit(slot_word(pool, i, WTP_S_STATE),
                                      memory_order_relaxed);
    if (st == WTP_IDLE && claim_slot(sp, i, &r.dispatch)) {
      r.slot = (int32_t)i;
      r.live++;
      return r;
    }
    if (st != WTP_RETIRED) r.live++;
  }
  return r;
}

/* Raw H_SLOTS against capacity: room to grow only for 0 <= n < capacity.
 * A negative (hostile) count means no room, consistently with reserve(), so
 * the claim loop cannot spin between "room" and "reserve failed". */
static int has_room(const wtp_spawner_t* sp) {
  int32_t n = atomic_load_explicit(header_word(&sp->pool, WTP_H_SLOTS),
                                   memory_order_relaxed); /* see slots_in */
  return sp->grow != NULL && n >= 0 && (uint32_t)n < sp->capacity;
}

static int is_closed(const wtp_pool_t* pool) {
  /* seq_cst: the reader's half of "Closing a pool" (wtp.h). */
  return (atomic_load_explicit(header_word(pool, WTP_H_IMPL),
                               memory_order_seq_cst) &
          WTP_IMPL_CLOSED) != 0;
}

/* Reserve slot H_SLOTS for a new worker and claim it. Returns the slot; or
 * -1 with *reason = WTP_REASON_NONE when there is no room or the reserved
 * slot was not PENDING (the caller looks again), or WTP_REASON_TERMINATED
 * when the pool is closed. */
static int32_t reserve(const wtp_spawner_t* sp, wtp_reason_t* reason) {
  const wtp_pool_t* pool = &sp->pool;
  _Atomic int32_t* slots = header_word(pool, WTP_H_SLOTS);
  int32_t n = atomic_load_explicit(slots, memory_order_relaxed);
  *reason = WTP_REASON_NONE;
  for (;;) {
    if (n < 0 || (uint32_t)n >= sp->capacity) return -1;
    /* seq_cst: the grower's first write of the Dekker pairing with
     * wtp_pool_close's read of H_SLOTS (wtp.h, "Closing a pool"). On failure
     * n is reloaded. */
    if (atomic_compare_exchange_weak_explicit(
            slots, &n, n + 1, memory_order_seq_cst, memory_order_relaxed))
      break;
  }
  AFTER_RESERVE(pool, (uint32_t)n);
  /* PENDING -> CLAIMED by CAS, not the SDK's unconditional store: a retire
   * of slot n that landed since the reservation (wtp_pool_close saw the new
   * H_SLOTS) must stay. seq_cst: G2 of the pairing (wtp.h, "Closing a
   * pool"). No unpark follows: nobody waits for CLAIMED (a server parked on
   * a slot nobody gave it, a hostile case, sees the change at its next
   * check). */
  int32_t expected = WTP_PENDING;
  if (!atomic_compare_exchange_strong_explicit(
          slot_word(pool, (uint32_t)n, WTP_S_STATE), &expected, WTP_CLAIMED,
          memory_order_seq_cst, memory_order_relaxed)) {
    if (is_closed(pool)) *reason = WTP_REASON_TERMINATED;
    return -1; /* retired meanwhile, or a hostile value: slot n is spent */
  }
  if (is_closed(pool)) {
    /* The closer may have read H_SLOTS before our CAS: retire the slot
     * ourselves, so that it ends up RETIRED either way. */
    retire(pool, (uint32_t)n);
    *reason = WTP_REASON_TERMINATED;
    return -1;
  }
  return n;
}

typedef struct claim_state {
  int timed;         /* deadline and grow_at computed */
  int waited;        /* parked on the generation at least once */
  uint64_t deadline; /* ns, wtp__now_ns clock */
  uint64_t grow_at;
  uint64_t backstop_at; /* when the claim loop next asks the backstop */
} claim_state_t;

#define SLICE_NS ((uint64_t)WTP_PARK_SLICE_MS * 1000000u)

static uint64_t ms_to_ns(double ms) {
  if (!(ms > 0)) return 0;               /* 0, negative, NaN */
  if (ms >= 1e12) return UINT64_MAX / 2; /* ~31 years: "never" */
  return (uint64_t)(ms * 1e6);
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - 1 - b ? UINT64_MAX - 1 : a + b;
}

void wtp__claim_times(uint64_t now, double spawn_wait_ms, int can_block,
                      uint64_t* grow_at, uint64_t* deadline) {
  uint64_t wait_ns = can_block ? ms_to_ns(spawn_wait_ms) : 0;
  uint64_t grow_ns = (uint64_t)WTP_GROW_AFTER_MS * 1000000u;
  if (grow_ns > wait_ns) grow_ns = wait_ns;
  *deadline = add_sat(now, wait_ns);
  *grow_at = add_sat(now, grow_ns);
}

/* The rules of wtp_claim.h, in their order. */
wtp__claim_step_t wtp__claim_next(const wtp__claim_view_t* v) {
  wtp__claim_step_t step = {WTP__CLAIM_DECLINE, 0, 0, WTP_REASON_POOL_EXHAUSTED,
                            0};
  if (v->room && (v->live == 0 || v->now >= v->grow_at)) {
    step.action = WTP__CLAIM_GROW;
    step.reason = WTP_REASON_NONE;
    step.rule = 1;
  } else if (v->live == 0) {
    step.rule = 2; /* nothing can ever come free */
  } else if (!v->room && v->starved && v->generation == v->starved_at) {
    step.rule = 3; /* nothing changed since the last wait ran out */
  } else if (!v->room && v->now >= v->deadline) {
    step.now_starved = 1;
    step.rule = 4;
  } else {
    /* With room, now < grow_at here (rule 1); without, now < deadline. */
    step.action = WTP__CLAIM_WAIT;
    step.until = v->room ? v->grow_at : v->deadline;
    step.reason = WTP_REASON_NONE;
    step.rule = 5;
  }
  return step;
}

/* Grows the pool by one worker (rule 1): reserves a slot, then grow().
 * Returns the slot, or -1 with *reason set (WTP_REASON_NONE: another
 * spawner took the last reservation, look again). */
static int32_t grow_one(wtp_spawner_t* sp, wtp_reason_t* reason) {
  int32_t slot = reserve(sp, reason);
  if (slot < 0) return -1;
  if (sp->grow(sp->ctx, (uint32_t)slot) != 0) {
    retire(&sp->pool, (uint32_t)slot);
    *reason = WTP_REASON_WORKER_CREATE_FAILED;
    return -1;
  }
  if (is_closed(&sp->pool)) {
    /* Closed while grow() ran (wtp.h, "Closing a pool": what may still
     * start). The closer retires the slot, or has; retiring it here too
     * makes that final now. Declining before wtp_spawn takes a tid keeps
     * the tid for a spawn that can use it. */
    retire(&sp->pool, (uint32_t)slot);
    *reason = WTP_REASON_TERMINATED;
    return -1;
  }
  return slot;
}

/* Whether the claim loop must decline "interrupted": the embedder's stop
 * flag (interrupted(ctx, 0), cheap) at every turn, and its backstop
 * (interrupted(ctx, 1)) once a slice (WTP_PARK_SLICE_MS) has passed since
 * the claim began or since the loop last asked. wtp__park asks the backstop
 * only at a quiet slice end; a generation that keeps moving (threads
 * finishing, retiring, being interrupted) ends every park early with the
 * word changed, so without this a termination that bypassed the hooks
 * would be bounded by the spawn wait (maybe "never"), not by a slice. */
static int spawner_stopped(const wtp_spawner_t* sp, claim_state_t* cs) {
  if (sp->interrupted == NULL) return 0;
  if (sp->interrupted(sp->ctx, 0)) return 1;
  uint64_t now = wtp__now_ns();
  if (now < cs->backstop_at) return 0;
  cs->backstop_at = add_sat(now, SLICE_NS);
  return sp->interrupted(sp->ctx, 1) != 0;
}

/* Claim a slot (SDK claim()): scan, then follow wtp__claim_next until a
 * slot is ours or the claim declines. Returns the slot, with *dispatch set
 * as claim_slot read it (0 for a grown slot: see below), or -1 with
 * *reason set. */
static int32_t claim(wtp_spawner_t* sp, claim_state_t* cs, wtp_reason_t* reason,
                     int* dispatch) {
  const wtp_pool_t* pool = &sp->pool;
  scan_result_t found = scan(sp);
  if (found.slot >= 0) {
    *dispatch = found.dispatch;
    return found.slot;
  }

  if (!cs->timed) {
    uint64_t now = wtp__now_ns();
    wtp__claim_times(now, sp->spawn_wait_ms, sp->can_block, &cs->grow_at,
                     &cs->deadline);
    cs->backstop_at = add_sat(now, SLICE_NS);
    cs->timed = 1;
  }

  for (;;) {
    /* Acquire: pairs with bump()'s seq_cst fetch_add, see "No lost
     * wake-up" above. */
    int32_t generation = atomic_load_explicit(
        header_word(pool, WTP_H_GENERATION), memory_order_acquire);
    /* Closed while this spawn waited or looked again: decline "terminated"
     * rather than "pool-exhausted" (the retires woke us). */
    if (is_closed(pool)) {
      *reason = WTP_REASON_TERMINATED;
      return -1;
    }
    /* Stopped (its thread is ending): decline before this turn can reserve
     * a slot, grow a worker or wait. */
    if (spawner_stopped(sp, cs)) {
      *reason = WTP_REASON_INTERRUPTED;
      return -1;
    }
    found = scan(sp);
    if (found.slot >= 0) {
      *dispatch = found.dispatch;
      return found.slot;
    }

    wtp__claim_view_t view = {found.live,     has_room(sp), sp->starved,
                              sp->starved_at, generation,   wtp__now_ns(),
                              cs->grow_at,    cs->deadline};
    wtp__claim_step_t step = wtp__claim_next(&view);
    if (step.action == WTP__CLAIM_GROW) {
      int32_t slot = grow_one(sp, reason);
      if (slot >= 0) {
        /* A slot this spawner just took out of PENDING was never armed:
         * worker-served. Its flags are not read at all, so grow() (which
         * runs JavaScript) writing them cannot change the path. */
        *dispatch = 0;
        return slot;
      }
      if (*reason != WTP_REASON_NONE) return -1;
      continue; /* another spawner took the last reservation */
    }
    if (step.action == WTP__CLAIM_DECLINE) {
      if (step.now_starved) {
        sp->starved = 1;
        sp->starved_at = generation;
      }
      *reason = step.reason;
      return -1;
    }
    /* A slot frees when a running guest thread ends: the spin policy
     * spins only while one is assigned (wtp_park.c, "Spinning"). */
    if (wtp__park_awaiting(pool->words + WTP_H_GENERATION, generation,
                           step.until, sp->interrupted, sp->ctx,
                           WTP_PARK_AWAITS_FINISH) == WTP_PARK_INTERRUPTED) {
      *reason = WTP_REASON_INTERRUPTED;
      return -1;
    }
    /* As the SDK: any wait that returned counts, even one that found the
     * generation already moved. */
    cs->waited = 1;
  }
}

/* A tid from H_NEXT_TID, sticky at exhaustion: the word moves t -> t+1
 * only while t is a valid tid, so once it passes WTP_MAX_TID (or holds any
 * value outside 1..MAX_TID) it stays there, and every later call returns
 * that invalid value without writing. The SDK's fetch_add would wrap after
 * 2^32 attempts and hand tid 1 out again. Relaxed: uniqueness comes from
 * the RMW itself; the tid is published with the slot. */
static int32_t next_tid(const wtp_pool_t* pool) {
  _Atomic int32_t* word = header_word(pool, WTP_H_NEXT_TID);
  int32_t t = atomic_load_explicit(word, memory_order_relaxed);
  for (;;) {
    if (t <= 0 || t > WTP_MAX_TID) return t;
    if (atomic_compare_exchange_weak_explicit(
            word, &t, t + 1, memory_order_relaxed, memory_order_relaxed))
      return t;
  }
}

int wtp_pool_closed(const wtp_pool_t* pool) { return is_closed(pool); }

void wtp_pool_wake_spawners(const wtp_pool_t* pool) { bump(pool); }

uint32_t wtp_pool_close(const wtp_pool_t* pool) {
  /* seq_cst: the closer's first write of the pairing in wtp.h, "Closing a
   * pool"; then seq_cst reads of H_SLOTS. */
  atomic_fetch_or_explicit(header_word(pool, WTP_H_IMPL), WTP_IMPL_CLOSED,
                           memory_order_seq_cst);
  uint32_t capacity = wtp_pool_capacity(pool);
  uint32_t done = 0;
  for (;;) {
    uint32_t slots = clamp(atomic_load_explicit(header_word(pool, WTP_H_SLOTS),
                                                memory_order_seq_cst),
                           capacity);
    if (done >= slots) break;
    for (; done < slots; done++) retire(pool, done);
  }
  /* Wake every spawner even with no slot in service, so that one parked on
   * the generation declines "terminated" now. */
  bump(pool);
  return done;
}

/* The spawner's tid for the thread it is about to publish in the CLAIMED
 * slot s: 1 with *tid set, or 0 when there is none to give (H_NEXT_TID
 * exhausted), the slot then given back. */
static int take_tid(const wtp_pool_t* pool, uint32_t s, int32_t* tid) {
  _Atomic int32_t* state = slot_word(pool, s, WTP_S_STATE);
  *tid = next_tid(pool);
  if (*tid <= 0 || *tid > WTP_MAX_TID) {
    /* SDK: back to IDLE, bump, no slot notify. A CAS so that a slot
     * retired meanwhile stays RETIRED (refinement (a)). */
    int32_t expected = WTP_CLAIMED;
    atomic_compare_exchange_strong_explicit(
        state, &expected, WTP_IDLE, memory_order_seq_cst, memory_order_relaxed);
    bump(pool);
    return 0;
  }
  return 1;
}

/* Publishes the thread in the CLAIMED slot s: its tid and argument, then
 * CLAIMED -> ASSIGNED. 1 on success; 0 when the slot was retired (or
 * overwritten) while claimed, the slot's last tid then put back. */
static int publish(const wtp_pool_t* pool, uint32_t s, int32_t tid,
                   int32_t start_arg) {
  _Atomic int32_t* state = slot_word(pool, s, WTP_S_STATE);
  /* The slot is CLAIMED by us: nobody else writes S_TID/S_ARG now, so
   * relaxed stores, published by the release CAS below. */
  int32_t old_tid =
      atomic_load_explicit(slot_word(pool, s, WTP_S_TID), memory_order_relaxed);
  atomic_store_explicit(slot_word(pool, s, WTP_S_TID), tid,
                        memory_order_relaxed);
  atomic_store_explicit(slot_word(pool, s, WTP_S_ARG), start_arg,
                        memory_order_relaxed);
  int32_t expected = WTP_CLAIMED;
  /* Counted before the slot becomes ASSIGNED, so that the -1 of whoever
   * takes it out of ASSIGNED/RUNNING (see running_left) never comes
   * first. */
  wtp__park_note_running(1);
  /* seq_cst: release of S_TID/S_ARG to the worker's acquire CAS in take_assignment(),
   * and K1 for the worker parked on the slot word. */
  if (!atomic_compare_exchange_strong_explicit(state, &expected, WTP_ASSIGNED,
                                               memory_order_seq_cst,
                                               memory_order_relaxed)) {
    wtp__park_note_running(-1);
    /* Refinement (a): retired (or overwritten) while claimed. Put the
     * previous last-tid back if our store is still there, keep the tid,
     * and claim again against the same deadline. */
    int32_t mine = tid;
    atomic_compare_exchange_strong_explicit(
        slot_word(pool, s, WTP_S_TID), &mine, old_tid, memory_order_relaxed,
        memory_order_relaxed);
    return 0;
  }
  return 1;
}

/* Hands the ASSIGNED slot s's thread to whoever runs it (its server, woken,
 * or the owner's dispatch callback), then counts the spawn (and its wait).
 * WTP_REASON_NONE, or WTP_REASON_DISPATCH_FAILED with the slot released. */
static wtp_reason_t dispatch_thread(wtp_spawner_t* sp, uint32_t s, int32_t tid,
                                    int32_t start_arg, int dispatch,
                                    int waited) {
  const wtp_pool_t* pool = &sp->pool;
  if (dispatch) {
    /* Only an owner gets here (claim_slot re-checks for non-owners). The
     * flag is the value read at the claim, not re-read here. */
    if (sp->dispatch == NULL || sp->dispatch(sp->ctx, s, tid, start_arg) != 0) {
      int released;
      wtp_slot_release_if_running(pool, s, tid, &released);
      return WTP_REASON_DISPATCH_FAILED;
    }
  } else {
    /* Wake its server: one server per slot, wake one. */
    wtp__unpark_one(slot_word_ptr(pool, s, WTP_S_STATE));
  }
  increment_statistic(pool, WTP_H_SPAWNED);
  if (waited) increment_statistic(pool, WTP_H_WAITED);
  return WTP_REASON_NONE;
}

/* A spawn in three steps: claim a slot (claim), publish the thread in it
 * (take_tid, publish; a slot retired meanwhile is claimed again) and
 * dispatch it (dispatch_thread). */
wtp_spawn_result_t wtp_spawn(wtp_spawner_t* sp, int32_t start_arg) {
  const wtp_pool_t* pool = &sp->pool;
  wtp_spawn_result_t res = {-1, -1, WTP_REASON_NONE};
  claim_state_t cs = {0, 0, 0, 0, 0};
  int32_t tid = 0;
  int have_tid = 0;

  /* Closed (terminateAll, on any thread): decline before touching a slot. */
  if (is_closed(pool)) {
    res.reason = WTP_REASON_TERMINATED;
    return res;
  }

  for (;;) {
    wtp_reason_t reason = WTP_REASON_NONE;
    int dispatch = 0;
    int32_t slot = claim(sp, &cs, &reason, &dispatch);
    if (slot < 0) {
      if (reason == WTP_REASON_POOL_EXHAUSTED)
        increment_statistic(pool, WTP_H_DECLINED);
      res.reason = reason;
      return res;
    }
    uint32_t s = (uint32_t)slot;

    if (!have_tid) {
      int tid_taken = take_tid(pool, s, &tid);
      have_tid = 1;
      if (!tid_taken) {
        res.reason = WTP_REASON_TID_EXHAUSTED;
        return res;
      }
    }

    if (!publish(pool, s, tid, start_arg)) continue;

    res.reason = dispatch_thread(sp, s, tid, start_arg, dispatch, cs.waited);
    if (res.reason != WTP_REASON_NONE) return res;
    res.tid = tid;
    res.slot = slot;
    return res;
  }
}

/* ------------------------------------------------------------------------ */
/* Serving (SDK-CONTRACT 1.6)                                                */

int wtp_serve(const wtp_pool_t* pool, uint32_t slot, int32_t os_thread_id,
              wtp_run_cb run, wtp_interrupted_cb interrupted, void* ctx) {
  if (slot >= pool->max_slots || run == NULL) return WTP_EINVAL;
  if (os_thread_id != 0) {
    /* A statistic for the report: relaxed. */
    atomic_store_explicit(slot_word(pool, slot, WTP_S_THREAD), os_thread_id,
                          memory_order_relaxed);
  }
  _Atomic int32_t* state = slot_word(pool, slot, WTP_S_STATE);
  for (;;) {
    /* Relaxed would be enough: take_assignment() acquires before anything is read
     * through the slot, and wtp__park re-checks the word with seq_cst
     * after announcing itself (W2), so a stale value here only costs one
     * more turn of the loop. seq_cst costs a plain load on x86 and one LDAR
     * on arm64, and keeps the loop's reads in the slot writers' order. */
    int32_t s = atomic_load_explicit(state, memory_order_seq_cst);
    if (s == WTP_RETIRED) return WTP_SERVE_RETIRED;
    if (s != WTP_ASSIGNED) {
      /* PENDING, IDLE, CLAIMED, RUNNING or unknown: wait for a change. No
       * deadline; wtp__park slices the wait and polls interrupted(). */
      if (wtp__park(slot_word_ptr(pool, slot, WTP_S_STATE), s, UINT64_MAX,
                    interrupted, ctx) == WTP_PARK_INTERRUPTED) {
        retire(pool, slot); /* refinement (b) */
        return WTP_SERVE_INTERRUPTED;
      }
      continue;
    }
    int32_t tid, arg;
    if (!take_assignment(pool, slot, &tid, &arg)) continue;
    int rs = run(ctx, tid, arg);
    /* The thread counted by wtp_spawn is uncounted by finish() or retire()
     * below (running_left), whichever takes the slot out of RUNNING. */
    if (rs == WTP_RUN_RETIRE) {
      retire(pool, slot);
      return WTP_SERVE_RUN_FALSE;
    }
    if (rs == WTP_RUN_ERROR) {
      retire(pool, slot); /* refinement (c) */
      return WTP_SERVE_RUN_ERROR;
    }
    finish(pool, slot);
  }
}
