/* test_pool.c: the pool core on one thread: every transition of wtp.h's
 * table, the spawn algorithm's rules and hostile header values.
 *
 * Every pool lives in a malloc'd block of exactly 8 + 8*capacity words, so
 * under AddressSanitizer any read or write outside the buffer fails the
 * run. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/core/wtp.h"
#include "../../src/core/wtp_park.h"
#include "../../src/os/wtp_wait.h"
#include "harness.h"

/* ---- helpers ----------------------------------------------------------- */

typedef struct tpool {
  int32_t* words;
  size_t nwords;
  wtp_pool_t pool;
} tpool_t;

static tpool_t make_pool(uint32_t capacity) {
  tpool_t t;
  t.nwords = WTP_HEADER_WORDS + (size_t)WTP_SLOT_WORDS * capacity;
  t.words = calloc(t.nwords, sizeof(int32_t));
  CHECK(t.words != NULL);
  CHECK_EQ(wtp_pool_init(&t.pool, t.words, t.nwords), WTP_OK);
  CHECK_EQ(wtp_pool_format(&t.pool, capacity, WTP_IMPL_NATIVE), WTP_OK);
  return t;
}

static void free_pool(tpool_t* t) { free(t->words); }

static int32_t H(tpool_t* t, int w) {
  return __atomic_load_n(&t->words[w], __ATOMIC_SEQ_CST);
}
static void set_h(tpool_t* t, int w, int32_t v) {
  __atomic_store_n(&t->words[w], v, __ATOMIC_SEQ_CST);
}
static int32_t S(tpool_t* t, uint32_t slot, int w) {
  return __atomic_load_n(&t->words[8 + 8 * slot + w], __ATOMIC_SEQ_CST);
}
static void set_s(tpool_t* t, uint32_t slot, int w, int32_t v) {
  __atomic_store_n(&t->words[8 + 8 * slot + w], v, __ATOMIC_SEQ_CST);
}

static double ms_since(uint64_t t0) { return (wtp__now_ns() - t0) / 1e6; }

/* A browser-like pool: n slots opened and armed (no growth). */
static tpool_t armed_pool(uint32_t n) {
  tpool_t t = make_pool(n);
  wtp_pool_open_slots(&t.pool, (int32_t)n);
  for (uint32_t i = 0; i < n; i++) wtp_slot_arm(&t.pool, i, 0);
  return t;
}

/* grow callback: records the slots it was asked for; fails if told to. */
typedef struct grow_log {
  int calls;
  uint32_t slots[16];
  int fail;
} grow_log_t;

static int grow_cb(void* ctx, uint32_t slot) {
  grow_log_t* g = ctx;
  if (g->calls < 16) g->slots[g->calls] = slot;
  g->calls++;
  return g->fail ? -1 : 0;
}

typedef struct dispatch_log {
  int calls;
  uint32_t slot;
  int32_t tid, arg;
  int fail;
} dispatch_log_t;

static int dispatch_cb(void* ctx, uint32_t slot, int32_t tid, int32_t arg) {
  dispatch_log_t* d = ctx;
  d->calls++;
  d->slot = slot;
  d->tid = tid;
  d->arg = arg;
  return d->fail ? -1 : 0;
}

/* ---- init / format ----------------------------------------------------- */

static void test_init_format(void) {
  int32_t w[8 + 8 * 3 + 5] = {0};
  wtp_pool_t p;
  CHECK_EQ(wtp_pool_init(&p, NULL, 64), WTP_EINVAL);
  CHECK_EQ(wtp_pool_init(&p, w, 7), WTP_EINVAL);
  CHECK_EQ(wtp_pool_init(&p, w, 8), WTP_OK);
  CHECK_EQ(p.max_slots, 0);
  CHECK_EQ(wtp_pool_init(&p, w, sizeof w / sizeof w[0]), WTP_OK);
  CHECK_EQ(p.max_slots, 3); /* floor((37 - 8) / 8) */
  CHECK_EQ(wtp_pool_format(&p, 4, WTP_IMPL_NATIVE), WTP_EINVAL);
  CHECK_EQ(w[WTP_H_NEXT_TID], 0); /* EINVAL touched nothing */
  CHECK_EQ(wtp_pool_format(&p, 3, WTP_IMPL_NATIVE), WTP_OK);
  CHECK_EQ(w[WTP_H_NEXT_TID], 1);
  CHECK_EQ(w[WTP_H_CAPACITY], 3);
  CHECK_EQ(w[WTP_H_IMPL], WTP_IMPL_NATIVE);
  CHECK_EQ(w[WTP_H_GENERATION], 0);
  CHECK_EQ(w[WTP_H_SLOTS], 0);
  CHECK_EQ(wtp_pool_capacity(&p), 3);
  CHECK_EQ(wtp_pool_slots(&p), 0);
  wtp_pool_open_slots(&p, 2);
  CHECK_EQ(wtp_pool_slots(&p), 2);
  /* Out-of-range slot indices are refused and touch nothing. */
  int32_t v = 42;
  int flag = 7;
  CHECK_EQ(wtp_slot_arm(&p, 3, 0), WTP_EINVAL);
  CHECK_EQ(wtp_slot_retire(&p, 3), WTP_EINVAL);
  CHECK_EQ(wtp_slot_state(&p, 3, &v), WTP_EINVAL);
  CHECK_EQ(wtp_slot_last_tid(&p, UINT32_MAX, &v), WTP_EINVAL);
  CHECK_EQ(wtp_slot_running_tid(&p, 3, &v), WTP_EINVAL);
  CHECK_EQ(wtp_slot_release_if_running(&p, 3, 1, &flag), WTP_EINVAL);
  CHECK_EQ(wtp_slot_take(&p, 3, &flag, &v, &v), WTP_EINVAL);
  CHECK_EQ(wtp_slot_finish(&p, 3), WTP_EINVAL);
  CHECK_EQ(v, 42);
  CHECK_EQ(flag, 7);
  CHECK_EQ(w[8 + 8 * 3], 0); /* the 5 spare words after slot 2 */
}

/* ---- the state table --------------------------------------------------- */

static void test_transitions(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  wtp_pool_open_slots(p, 2);
  int32_t st;

  /* PENDING -> IDLE: arm stores flags, IDLE, bumps. */
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_PENDING);
  CHECK_EQ(wtp_slot_arm(p, 0, 0), WTP_OK);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  CHECK_EQ(S(&t, 0, WTP_S_FLAGS), 0);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 1);
  CHECK_EQ(wtp_slot_arm(p, 1, 1), WTP_OK);
  CHECK_EQ(S(&t, 1, WTP_S_FLAGS), WTP_FLAG_MESSAGE_DISPATCH);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 2);

  /* IDLE -> CLAIMED -> ASSIGNED: a non-owner spawn takes slot 0. */
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 0);
  CHECK_EQ(sp.capacity, 2);
  CHECK_EQ(sp.can_block, 1);
  wtp_spawn_result_t r = wtp_spawn(&sp, 1234);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.tid, 1);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(S(&t, 0, WTP_S_TID), 1);
  CHECK_EQ(S(&t, 0, WTP_S_ARG), 1234);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 2); /* no bump on assign */
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 2);
  CHECK_EQ(H(&t, WTP_H_SPAWNED), 1);
  CHECK_EQ(wtp_slot_running_tid(p, 0, &st), WTP_OK);
  CHECK_EQ(st, 1);

  /* ASSIGNED -> RUNNING: take. A second take fails. */
  int taken;
  int32_t tid = 0, arg = 0;
  CHECK_EQ(wtp_slot_take(p, 0, &taken, &tid, &arg), WTP_OK);
  CHECK_EQ(taken, 1);
  CHECK_EQ(tid, 1);
  CHECK_EQ(arg, 1234);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RUNNING);
  CHECK_EQ(wtp_slot_take(p, 0, &taken, &tid, &arg), WTP_OK);
  CHECK_EQ(taken, 0);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 2);
  CHECK_EQ(wtp_slot_running_tid(p, 0, &st), WTP_OK);
  CHECK_EQ(st, 1);

  /* RUNNING -> IDLE: finish bumps; finish again (not RUNNING) does not. */
  CHECK_EQ(wtp_slot_finish(p, 0), WTP_OK);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 3);
  CHECK_EQ(wtp_slot_finish(p, 0), WTP_OK);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 3);
  CHECK_EQ(wtp_slot_running_tid(p, 0, &st), WTP_OK);
  CHECK_EQ(st, 0);
  CHECK_EQ(wtp_slot_last_tid(p, 0, &st), WTP_OK);
  CHECK_EQ(st, 1); /* S_TID persists */
  /* take on IDLE fails. */
  CHECK_EQ(wtp_slot_take(p, 0, &taken, &tid, &arg), WTP_OK);
  CHECK_EQ(taken, 0);

  /* RUNNING retired stays RETIRED after finish (no bump by finish). */
  r = wtp_spawn(&sp, 5);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(r.tid, 2);
  CHECK_EQ(wtp_slot_take(p, 0, &taken, &tid, &arg), WTP_OK);
  CHECK_EQ(wtp_slot_retire(p, 0), WTP_OK); /* any -> RETIRED, bumps */
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 4);
  CHECK_EQ(wtp_slot_finish(p, 0), WTP_OK);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 4);
  /* Nothing moves a slot out of RETIRED: take, release, arm-less spawn. */
  int released;
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 2, &released), WTP_OK);
  CHECK_EQ(released, 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  free_pool(&t);
}

/* Arm moves PENDING -> IDLE only (a CAS). It never brings back a RETIRED
 * slot (closed pool included), never touches an active slot (which would
 * skew the running count), and stores no flags on a slot it does not arm. */
static void test_arm_only_pending(void) {
  tpool_t t = armed_pool(2);
  wtp_pool_t* p = &t.pool;
  /* RETIRED stays RETIRED: no bump, no flags. */
  CHECK_EQ(wtp_slot_retire(p, 0), WTP_OK);
  int32_t gen = H(&t, WTP_H_GENERATION);
  CHECK_EQ(wtp_slot_arm(p, 0, 1), WTP_OK);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(S(&t, 0, WTP_S_FLAGS), 0);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen);
  /* ASSIGNED stays ASSIGNED, and the running count is left exact. */
  int before = wtp__park_running();
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 0);
  wtp_spawn_result_t r = wtp_spawn(&sp, 7);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(wtp__park_running(), before + 1);
  CHECK_EQ(wtp_slot_arm(p, 1, 0), WTP_OK);
  CHECK_EQ(S(&t, 1, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(wtp_slot_retire(p, 1), WTP_OK);
  CHECK_EQ(wtp__park_running(), before);
  free_pool(&t);

  /* After close, arming a slot in service does not make it claimable. */
  t = armed_pool(1);
  p = &t.pool;
  CHECK_EQ(wtp_pool_close(p), 1);
  CHECK_EQ(wtp_slot_arm(p, 0, 0), WTP_OK);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  wtp_spawner_init(&sp, p, 0, 0);
  CHECK_EQ(wtp_spawn(&sp, 1).reason, WTP_REASON_TERMINATED);
  free_pool(&t);
}

/* release: owner side, tid-guarded; a late release for an old tid never frees
 * a recycled slot. */
static void test_release_tid_guard(void) {
  tpool_t t = armed_pool(1);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 1);
  int released, taken;
  int32_t tid, arg;

  wtp_spawn_result_t r1 = wtp_spawn(&sp, 10);
  CHECK_EQ(r1.tid, 1);
  /* ASSIGNED -> IDLE by release with the right tid. */
  int32_t gen = H(&t, WTP_H_GENERATION);
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 999, &released), WTP_OK);
  CHECK_EQ(released, 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 1, &released), WTP_OK);
  CHECK_EQ(released, 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen + 1);
  /* A duplicate release does nothing. */
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 1, &released), WTP_OK);
  CHECK_EQ(released, 0);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen + 1);

  /* The slot is recycled for tid 2 (RUNNING); a late release of tid 1
   * leaves it alone; tid 2's release frees it (RUNNING -> IDLE). */
  wtp_spawn_result_t r2 = wtp_spawn(&sp, 20);
  CHECK_EQ(r2.tid, 2);
  CHECK_EQ(r2.slot, 0);
  wtp_slot_take(p, 0, &taken, &tid, &arg);
  CHECK_EQ(taken, 1);
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 1, &released), WTP_OK);
  CHECK_EQ(released, 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RUNNING);
  CHECK_EQ(wtp_slot_release_if_running(p, 0, 2, &released), WTP_OK);
  CHECK_EQ(released, 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  /* The worker's late finish then fails its CAS and does not bump. */
  gen = H(&t, WTP_H_GENERATION);
  wtp_slot_finish(p, 0);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  free_pool(&t);
}

static void test_report(void) {
  tpool_t t = make_pool(6);
  wtp_pool_t* p = &t.pool;
  wtp_pool_open_slots(p, 5);
  /* slot 0 PENDING, 1 IDLE, 2 CLAIMED, 3 ASSIGNED, 4 RUNNING, 5 unopened */
  set_s(&t, 1, WTP_S_STATE, WTP_IDLE);
  set_s(&t, 2, WTP_S_STATE, WTP_CLAIMED);
  set_s(&t, 3, WTP_S_STATE, WTP_ASSIGNED);
  set_s(&t, 4, WTP_S_STATE, WTP_RUNNING);
  set_s(&t, 5, WTP_S_STATE, WTP_IDLE);
  set_s(&t, 0, WTP_S_THREAD, 77);
  set_s(&t, 5, WTP_S_THREAD, 78); /* beyond H_SLOTS: not counted */
  set_h(&t, WTP_H_SPAWNED, 11);
  set_h(&t, WTP_H_WAITED, 3);
  set_h(&t, WTP_H_DECLINED, 4);
  wtp_report_t rep;
  wtp_pool_report(p, &rep);
  CHECK_EQ(rep.spawned, 11);
  CHECK_EQ(rep.waited, 3);
  CHECK_EQ(rep.declined, 4);
  CHECK_EQ(rep.slots, 5);
  CHECK_EQ(rep.active, 3);
  CHECK_EQ(rep.idle, 1);
  CHECK_EQ(rep.workers, 1);
  /* Retired slots keep their worker in the count. */
  wtp_slot_retire(p, 0);
  wtp_slot_retire(p, 4);
  wtp_pool_report(p, &rep);
  CHECK_EQ(rep.active, 2);
  CHECK_EQ(rep.workers, 1);
  free_pool(&t);
}

/* ---- message-dispatch slots -------------------------------------------- */

static void test_message_dispatch(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  wtp_pool_open_slots(p, 2);
  wtp_slot_arm(p, 0, 1); /* legacy worker */
  wtp_slot_arm(p, 1, 0);

  dispatch_log_t d = {0};
  wtp_spawner_t guest, owner;
  wtp_spawner_init(&guest, p, 0, 0);
  wtp_spawner_init(&owner, p, 0, 1);
  owner.dispatch = dispatch_cb;
  owner.ctx = &d;

  /* A non-owner skips slot 0. */
  wtp_spawn_result_t r = wtp_spawn(&guest, 1);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(r.tid, 1);
  /* Now only slot 0 is free, and the non-owner may not claim it: slot 1 is
   * live (ASSIGNED), spawn_wait_ms 0: declined at once. */
  r = wtp_spawn(&guest, 2);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(r.slot, -1);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 1);

  /* The owner gets slot 0 by dispatch: no take needed, state ASSIGNED. */
  r = wtp_spawn(&owner, 77);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(r.tid, 2);
  CHECK_EQ(d.calls, 1);
  CHECK_EQ(d.slot, 0);
  CHECK_EQ(d.tid, 2);
  CHECK_EQ(d.arg, 77);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(H(&t, WTP_H_SPAWNED), 2);
  /* The worker's {t:"exit", tid} comes back through release. */
  int released;
  wtp_slot_release_if_running(p, 0, 2, &released);
  CHECK_EQ(released, 1);

  /* A non-owner facing only dispatch slots (slot 1 retired): nothing live,
   * declined at once however long it may wait. */
  wtp_slot_retire(p, 1);
  wtp_spawner_t patient;
  wtp_spawner_init(&patient, p, 1e9, 0);
  uint64_t t0 = wtp__now_ns();
  r = wtp_spawn(&patient, 3);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < SLACK_MS);

  /* Dispatch failure: released back to IDLE, not counted as spawned nor
   * declined; the tid is used up. */
  d.fail = 1;
  int32_t declined = H(&t, WTP_H_DECLINED);
  int32_t gen = H(&t, WTP_H_GENERATION);
  r = wtp_spawn(&owner, 9);
  CHECK_EQ(r.reason, WTP_REASON_DISPATCH_FAILED);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(r.slot, -1);
  CHECK_EQ(d.calls, 2);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen + 1);
  CHECK_EQ(H(&t, WTP_H_SPAWNED), 2);
  CHECK_EQ(H(&t, WTP_H_DECLINED), declined);
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 4);

  /* An owner without a dispatch callback fails the same way. */
  owner.dispatch = NULL;
  r = wtp_spawn(&owner, 9);
  CHECK_EQ(r.reason, WTP_REASON_DISPATCH_FAILED);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);
  free_pool(&t);
}

/* ---- growth ------------------------------------------------------------ */

/* The spawn wait of test_grow's first two spawns: far longer than any
 * delay a loaded machine adds, so that "grew without waiting it" is told
 * apart from "waited it" by a bound (a quarter of it) that a thread held off
 * the CPU for seconds still meets. */
#define GROW_TEST_WAIT_MS 20000

static void test_grow(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  grow_log_t g = {0};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, GROW_TEST_WAIT_MS, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;

  /* No slots at all: grows at once (live == 0), no wait. */
  uint64_t t0 = wtp__now_ns();
  wtp_spawn_result_t r = wtp_spawn(&sp, 100);
  CHECK(ms_since(t0) < GROW_TEST_WAIT_MS / 4);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(r.tid, 1);
  CHECK_EQ(g.calls, 1);
  CHECK_EQ(g.slots[0], 0);
  CHECK_EQ(H(&t, WTP_H_SLOTS), 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(H(&t, WTP_H_WAITED), 0);

  /* Busy pool with room: waits GROW_AFTER_MS, not the spawn wait, then
   * grows slot 1; waited. */
  t0 = wtp__now_ns();
  r = wtp_spawn(&sp, 101);
  double took = ms_since(t0);
  CHECK(took >= WTP_GROW_AFTER_MS - 0.01);
  CHECK(took < GROW_TEST_WAIT_MS / 4);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(r.tid, 2);
  CHECK_EQ(g.calls, 2);
  CHECK_EQ(g.slots[1], 1);
  CHECK_EQ(H(&t, WTP_H_SLOTS), 2);
  CHECK_EQ(H(&t, WTP_H_WAITED), 1);
  CHECK_EQ(H(&t, WTP_H_SPAWNED), 2);

  /* Full: waits the whole spawn_wait_ms (40), then declines (the upper
   * bound only says that the wait ends: test_spawn_wait_bound holds it to
   * one wait). */
  wtp_spawner_init(&sp, p, 40, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;
  t0 = wtp__now_ns();
  r = wtp_spawn(&sp, 102);
  took = ms_since(t0);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(took >= 40 - 0.01);
  CHECK(took < 40 + GROW_TEST_WAIT_MS / 4);
  CHECK_EQ(g.calls, 2);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 1);
  free_pool(&t);

  /* spawn_wait_ms 0 with room and a busy pool: grows at once. */
  t = make_pool(2);
  p = &t.pool;
  g = (grow_log_t){0};
  wtp_spawner_init(&sp, p, 0, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;
  CHECK_EQ(wtp_spawn(&sp, 1).slot, 0);
  t0 = wtp__now_ns();
  r = wtp_spawn(&sp, 2);
  CHECK(ms_since(t0) < SLACK_MS);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(H(&t, WTP_H_WAITED), 0);
  free_pool(&t);
}

/* A stopped spawner (its interrupted() answers 1) declines "interrupted"
 * before it reserves a slot or grows a worker, with room and nothing to
 * wait for (rule 1 would grow at once). */
typedef struct stop_ctx {
  grow_log_t grow; /* first: grow_cb reads the context as a grow_log_t */
  int stop;
  int asked; /* interrupted() calls */
} stop_ctx_t;

static int stop_cb(void* ctx, int slice_end) {
  (void)slice_end;
  stop_ctx_t* c = ctx;
  c->asked++;
  return c->stop;
}

static void test_stopped_spawner_does_not_grow(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  stop_ctx_t c = {{0}, 1, 0};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 1e12, 1);
  sp.grow = grow_cb;
  sp.interrupted = stop_cb;
  sp.ctx = &c;
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_INTERRUPTED);
  CHECK_EQ(r.slot, -1);
  CHECK_EQ(c.grow.calls, 0);
  CHECK_EQ(H(&t, WTP_H_SLOTS), 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_PENDING);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 0); /* interrupted is not counted */
  /* Not stopped: the same spawner grows as before. */
  c.stop = 0;
  r = wtp_spawn(&sp, 2);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(c.grow.calls, 1);
  free_pool(&t);
}

static void test_grow_failure(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  grow_log_t g = {.fail = 1};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 250, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_WORKER_CREATE_FAILED);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(r.slot, -1);
  CHECK_EQ(H(&t, WTP_H_SLOTS), 1); /* the capacity slot is used up */
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(H(&t, WTP_H_GENERATION), 1); /* retire bumped */
  CHECK_EQ(H(&t, WTP_H_DECLINED), 0);   /* not a pool-exhausted decline */
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 1);   /* no tid allocated */
  /* The next spawn grows slot 1 (the retired slot 0 is not live). */
  g.fail = 0;
  r = wtp_spawn(&sp, 2);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(r.tid, 1);
  /* Fail the last room: slot 1 busy, grow fails on... no room left, so the
   * spawn waits for slot 1 and declines. */
  g.fail = 1;
  wtp_spawner_init(&sp, p, 5, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;
  r = wtp_spawn(&sp, 3);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  /* Capacity all retired, growable but full: a dead pool, declined at once. */
  wtp_slot_retire(p, 1);
  wtp_spawner_init(&sp, p, 1e9, 1);
  sp.grow = grow_cb;
  sp.ctx = &g;
  uint64_t t0 = wtp__now_ns();
  r = wtp_spawn(&sp, 4);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < SLACK_MS);
  free_pool(&t);
}

/* ---- tids -------------------------------------------------------------- */

static void test_tid_overflow(void) {
  tpool_t t = armed_pool(1);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 1);
  int released;

  set_h(&t, WTP_H_NEXT_TID, WTP_MAX_TID);
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.tid, WTP_MAX_TID);
  wtp_slot_release_if_running(p, 0, WTP_MAX_TID, &released);
  CHECK_EQ(released, 1);

  int32_t gen = H(&t, WTP_H_GENERATION);
  r = wtp_spawn(&sp, 2);
  CHECK_EQ(r.reason, WTP_REASON_TID_EXHAUSTED);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(r.slot, -1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE); /* CLAIMED -> IDLE */
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen + 1);
  /* Sticky: the word stays at MAX_TID + 1, however often spawns retry (the
   * SDK's fetch_add would keep counting and wrap to tid 1 after 2^32). */
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), WTP_MAX_TID + 1);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 0);
  CHECK_EQ(H(&t, WTP_H_SPAWNED), 1);
  CHECK_EQ(S(&t, 0, WTP_S_TID), WTP_MAX_TID); /* untouched */
  for (int i = 0; i < 1000; i++) {
    r = wtp_spawn(&sp, 3);
    CHECK_EQ(r.reason, WTP_REASON_TID_EXHAUSTED);
  }
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), WTP_MAX_TID + 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_IDLE);

  /* Hostile values outside 1..MAX_TID are exhausted and never written: no
   * wrap from INT32_MAX to INT32_MIN, no walk from -1 through 0 to 1. */
  const int32_t bad[] = {INT32_MAX, INT32_MIN, -1, 0};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    set_h(&t, WTP_H_NEXT_TID, bad[k]);
    for (int i = 0; i < 3; i++)
      CHECK_EQ(wtp_spawn(&sp, 4).reason, WTP_REASON_TID_EXHAUSTED);
    CHECK_EQ(H(&t, WTP_H_NEXT_TID), bad[k]);
  }
  /* A valid value written back is used again. */
  set_h(&t, WTP_H_NEXT_TID, 1);
  r = wtp_spawn(&sp, 8);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.tid, 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(S(&t, 0, WTP_S_ARG), 8);
  free_pool(&t);
}

/* ---- closing (terminateAll) -------------------------------------------- */

/* The old reserve bumped H_SLOTS and then stored CLAIMED unconditionally:
 * a retire of the new slot landing in between (wtp_pool_close having read
 * the new H_SLOTS) was overwritten, and the spawn assigned a thread after
 * terminateAll. The hook lands exactly that close in the window. */
static tpool_t* hook_pool;
static int hook_closes;
static void close_in_window(const wtp_pool_t* pool, uint32_t slot) {
  (void)slot;
  if (hook_closes-- > 0) wtp_pool_close(pool);
}
static void retire_in_window(const wtp_pool_t* pool, uint32_t slot) {
  if (hook_closes-- > 0) wtp_slot_retire(pool, slot);
}

static void test_close_races_reserve(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  grow_log_t g = {0};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 40, 0); /* a guest thread's spawner */
  sp.grow = grow_cb;
  sp.ctx = &g;
  hook_pool = &t;
  hook_closes = 1;
  wtp__test_after_reserve = close_in_window;
  wtp_spawn_result_t r = wtp_spawn(&sp, 7);
  wtp__test_after_reserve = NULL;
  CHECK_EQ(r.reason, WTP_REASON_TERMINATED);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(g.calls, 0); /* no worker grown */
  CHECK_EQ(H(&t, WTP_H_SLOTS), 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED); /* the retire stayed */
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 1);           /* no tid taken */
  CHECK_EQ(H(&t, WTP_H_DECLINED), 0);           /* not "pool-exhausted" */
  CHECK(wtp_pool_closed(p));
  free_pool(&t);

  /* A bare retire in the window (not a close): the slot stays RETIRED and
   * the spawner reserves the next one. */
  t = make_pool(2);
  p = &t.pool;
  g = (grow_log_t){0};
  wtp_spawner_init(&sp, p, 40, 0);
  sp.grow = grow_cb;
  sp.ctx = &g;
  hook_closes = 1;
  wtp__test_after_reserve = retire_in_window;
  r = wtp_spawn(&sp, 8);
  wtp__test_after_reserve = NULL;
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(S(&t, 1, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(g.calls, 1);
  CHECK_EQ(g.slots[0], 1);
  free_pool(&t);
}

/* After wtp_pool_close every spawner, owner or not, with or without grow,
 * declines "terminated" at once and touches nothing. */
/* The pool closed while grow() starts its worker (the closer ran between
 * the grower's closed check and the end of grow()): the spawn declines
 * "terminated" without taking a tid, and the worker grow() started finds its
 * slot RETIRED and ends without running anything. */
typedef struct close_in_grow {
  wtp_pool_t pool;
  int runs;
  int serve_status;
} close_in_grow_t;

static int count_run(void* ctx, int32_t tid, int32_t arg) {
  (void)tid;
  (void)arg;
  ((close_in_grow_t*)ctx)->runs++;
  return WTP_RUN_DONE;
}

static int close_then_serve(void* ctx, uint32_t slot) {
  close_in_grow_t* c = ctx;
  wtp_pool_close(&c->pool);
  /* The new worker, played on this thread: its serve loop. */
  c->serve_status = wtp_serve(&c->pool, slot, 0, count_run, NULL, c);
  return 0;
}

static void test_close_during_grow(void) {
  tpool_t t = make_pool(2);
  close_in_grow_t c = {t.pool, 0, -1};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &t.pool, 0, 1);
  sp.grow = close_then_serve;
  sp.ctx = &c;
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_TERMINATED);
  CHECK_EQ(r.tid, -1);
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 1); /* no tid taken, so none lost */
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(c.serve_status, WTP_SERVE_RETIRED);
  CHECK_EQ(c.runs, 0);
  CHECK_EQ(H(&t, WTP_H_SLOTS), 1);
  free_pool(&t);
}

static void test_close(void) {
  tpool_t t = armed_pool(3);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t owner, guest, grower;
  grow_log_t g = {0};
  wtp_spawner_init(&owner, p, 1000, 1);
  wtp_spawner_init(&guest, p, 1000, 0);
  wtp_spawner_init(&grower, p, 1000, 0);
  grower.grow = grow_cb;
  grower.ctx = &g;
  int base = wtp__park_running();
  CHECK_EQ(wtp_spawn(&owner, 1).slot, 0);
  CHECK_EQ(wtp__park_running(), base + 1);
  CHECK(!wtp_pool_closed(p));
  int32_t impl = H(&t, WTP_H_IMPL);
  CHECK_EQ(wtp_pool_close(p), 3);
  CHECK_EQ(H(&t, WTP_H_IMPL), impl | WTP_IMPL_CLOSED);
  CHECK_EQ(H(&t, WTP_H_IMPL) & WTP_IMPL_MASK, WTP_IMPL_NATIVE);
  for (uint32_t i = 0; i < 3; i++) CHECK_EQ(S(&t, i, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(wtp__park_running(),
           base + 0); /* the assigned thread was uncounted */
  int32_t before[8 + 8 * 3];
  for (int i = 0; i < 8 + 8 * 3; i++) before[i] = t.words[i];
  wtp_spawner_t* all[] = {&owner, &guest, &grower};
  for (int k = 0; k < 3; k++) {
    uint64_t t0 = wtp__now_ns();
    wtp_spawn_result_t r = wtp_spawn(all[k], 2);
    CHECK(ms_since(t0) < SLACK_MS);
    CHECK_EQ(r.reason, WTP_REASON_TERMINATED);
    CHECK_EQ(r.tid, -1);
    CHECK_EQ(r.slot, -1);
  }
  CHECK_EQ(g.calls, 0);
  for (int i = 0; i < 8 + 8 * 3; i++) CHECK_EQ(t.words[i], before[i]);
  /* Idempotent. */
  CHECK_EQ(wtp_pool_close(p), 3);
  free_pool(&t);
}

/* ---- the running count (spin heuristic) -------------------------------- */

/* Every path that takes a slot out of ASSIGNED/RUNNING uncounts it exactly
 * once; before, only wtp_serve's run did, so a retire or a release before
 * the take, or take/finish outside wtp_serve, left +1 for good. */
static void test_running_count(void) {
  tpool_t t = armed_pool(2);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 1);
  /* Earlier tests free pools with threads still assigned: count from
   * here. */
  int base = wtp__park_running();
  int taken, released;
  int32_t tid, arg;

  /* spawn, take, finish (what a serve loop does) */
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(wtp__park_running(), base + 1);
  wtp_slot_take(p, (uint32_t)r.slot, &taken, &tid, &arg);
  CHECK_EQ(taken, 1);
  CHECK_EQ(wtp__park_running(), base + 1);
  wtp_slot_finish(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);
  wtp_slot_finish(p, (uint32_t)r.slot); /* a second finish: no-op */
  CHECK_EQ(wtp__park_running(), base + 0);

  /* spawn, release before the take */
  r = wtp_spawn(&sp, 2);
  CHECK_EQ(wtp__park_running(), base + 1);
  wtp_slot_release_if_running(p, (uint32_t)r.slot, r.tid, &released);
  CHECK_EQ(released, 1);
  CHECK_EQ(wtp__park_running(), base + 0);

  /* spawn, take, release while RUNNING */
  r = wtp_spawn(&sp, 3);
  wtp_slot_take(p, (uint32_t)r.slot, &taken, &tid, &arg);
  wtp_slot_release_if_running(p, (uint32_t)r.slot, r.tid, &released);
  CHECK_EQ(released, 1);
  CHECK_EQ(wtp__park_running(), base + 0);
  /* the worker's finish after that release: no-op */
  wtp_slot_finish(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);

  /* spawn, retire before the take; retire again */
  r = wtp_spawn(&sp, 4);
  CHECK_EQ(wtp__park_running(), base + 1);
  wtp_slot_retire(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);
  wtp_slot_retire(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);

  /* spawn, take, retire while RUNNING, then the worker's finish */
  r = wtp_spawn(&sp, 5);
  CHECK(r.slot >= 0);
  wtp_slot_take(p, (uint32_t)r.slot, &taken, &tid, &arg);
  wtp_slot_retire(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);
  wtp_slot_finish(p, (uint32_t)r.slot);
  CHECK_EQ(wtp__park_running(), base + 0);

  /* a message-dispatch slot whose dispatch fails: released, uncounted */
  free_pool(&t);
  t = make_pool(1);
  p = &t.pool;
  wtp_pool_open_slots(p, 1);
  wtp_slot_arm(p, 0, 1);
  dispatch_log_t d = {0};
  d.fail = 1;
  wtp_spawner_init(&sp, p, 0, 1);
  sp.dispatch = dispatch_cb;
  sp.ctx = &d;
  r = wtp_spawn(&sp, 6);
  CHECK_EQ(r.reason, WTP_REASON_DISPATCH_FAILED);
  CHECK_EQ(wtp__park_running(), base + 0);
  free_pool(&t);
}

/* ---- S_FLAGS is read once, at the claim ---------------------------------- */

/* grow() runs embedder code (JavaScript) between the claim of a new slot and
 * its assignment; one that writes the slot's flags must not turn the
 * worker-served slot into a message-dispatch one. */
static int grow_sets_flags(void* ctx, uint32_t slot) {
  tpool_t* t = ctx;
  set_s(t, slot, WTP_S_FLAGS, WTP_FLAG_MESSAGE_DISPATCH);
  return 0;
}

static void test_flags_read_at_claim(void) {
  tpool_t t = make_pool(1);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &t.pool, 0, 1);
  sp.grow = grow_sets_flags;
  sp.ctx = &t;
  wtp_spawn_result_t r = wtp_spawn(&sp, 1); /* no dispatch callback */
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.slot, 0);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_ASSIGNED);
  wtp_slot_retire(&t.pool, 0);
  free_pool(&t);
}

/* ---- waiting rules ----------------------------------------------------- */

static void test_dead_pool(void) {
  /* 0 slots, no grow. */
  tpool_t t = make_pool(0);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &t.pool, 1e12, 1);
  uint64_t t0 = wtp__now_ns();
  wtp_spawn_result_t r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 1);
  free_pool(&t);
  /* All retired. */
  t = armed_pool(3);
  for (uint32_t i = 0; i < 3; i++) wtp_slot_retire(&t.pool, i);
  wtp_spawner_init(&sp, &t.pool, 1e12, 1);
  r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  r = wtp_spawn(&sp, 1);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 2);
  CHECK(ms_since(t0) < SLACK_MS);
  free_pool(&t);
}

/* test_spawn_wait_bound's spawn wait: one wait is told from two (2 x it)
 * and "at once" from one (less than half of it) with room for a thread held
 * off the CPU for most of a second on a loaded machine (300 ms and 150 ms of
 * slack were not enough at a load average of 45). */
#define BOUND_TEST_WAIT_MS 1000
#define BOUND_TEST_AT_ONCE_MS (BOUND_TEST_WAIT_MS / 2)

static void test_spawn_wait_bound(void) {
  tpool_t t = armed_pool(2);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, BOUND_TEST_WAIT_MS, 1);
  CHECK_EQ(wtp_spawn(&sp, 1).slot, 0);
  CHECK_EQ(wtp_spawn(&sp, 2).slot, 1);

  /* One full wait, measured from the start of the claim. */
  uint64_t t0 = wtp__now_ns();
  wtp_spawn_result_t r = wtp_spawn(&sp, 3);
  double took = ms_since(t0);
  CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(took >= BOUND_TEST_WAIT_MS - 0.01);
  CHECK(took < 2 * BOUND_TEST_WAIT_MS);
  CHECK_EQ(sp.starved, 1);
  CHECK_EQ(sp.starved_at, H(&t, WTP_H_GENERATION));

  /* The no-second-wait rule: same generation, declined at once. */
  t0 = wtp__now_ns();
  for (int i = 0; i < 5; i++)
    CHECK_EQ(wtp_spawn(&sp, 4).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < BOUND_TEST_AT_ONCE_MS);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 6);

  /* Another closure has its own starved state and waits. */
  wtp_spawner_t other;
  wtp_spawner_init(&other, p, 10, 1);
  t0 = wtp__now_ns();
  CHECK_EQ(wtp_spawn(&other, 5).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) >= 10 - 0.01);

  /* A generation change (slot 1 retired; slot 0 still live) allows one
   * more full wait. */
  wtp_slot_retire(p, 1);
  t0 = wtp__now_ns();
  CHECK_EQ(wtp_spawn(&sp, 6).reason, WTP_REASON_POOL_EXHAUSTED);
  took = ms_since(t0);
  CHECK(took >= BOUND_TEST_WAIT_MS - 0.01);
  CHECK(took < 2 * BOUND_TEST_WAIT_MS);
  t0 = wtp__now_ns();
  CHECK_EQ(wtp_spawn(&sp, 7).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < BOUND_TEST_AT_ONCE_MS);

  /* A slot coming free ends starvation by plain success (scan first). */
  int released;
  wtp_slot_release_if_running(p, 0, 1, &released);
  CHECK_EQ(released, 1);
  wtp_spawn_result_t ok = wtp_spawn(&sp, 8);
  CHECK_EQ(ok.slot, 0);
  CHECK_EQ(H(&t, WTP_H_WAITED), 0); /* no successful spawn ever slept */
  free_pool(&t);

  /* spawn_wait_ms 0: a busy pool without room declines at once. */
  t = armed_pool(1);
  wtp_spawner_init(&sp, &t.pool, 0, 1);
  CHECK_EQ(wtp_spawn(&sp, 1).slot, 0);
  t0 = wtp__now_ns();
  CHECK_EQ(wtp_spawn(&sp, 2).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK_EQ(wtp_spawn(&sp, 3).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < BOUND_TEST_AT_ONCE_MS);
  CHECK_EQ(H(&t, WTP_H_DECLINED), 2);
  CHECK_EQ(sp.starved, 1);

  /* can_block 0 (an agent that may not block): no wait either. */
  wtp_spawner_init(&sp, &t.pool, BOUND_TEST_WAIT_MS, 1);
  sp.can_block = 0;
  t0 = wtp__now_ns();
  CHECK_EQ(wtp_spawn(&sp, 4).reason, WTP_REASON_POOL_EXHAUSTED);
  CHECK(ms_since(t0) < BOUND_TEST_AT_ONCE_MS);
  free_pool(&t);
}

/* A slot retired while claimed stays RETIRED; the spawner keeps its tid and
 * claims another slot (refinement (a)). Driven from the grow callback, which
 * runs while the new slot is CLAIMED. */
typedef struct retire_ctx {
  wtp_pool_t* pool;
} retire_ctx_t;

static int grow_then_retire(void* ctx, uint32_t slot) {
  retire_ctx_t* rc = ctx;
  if (slot == 0) wtp_slot_retire(rc->pool, slot);
  return 0;
}

static void test_retired_while_claimed(void) {
  tpool_t t = make_pool(2);
  wtp_pool_t* p = &t.pool;
  retire_ctx_t rc = {p};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 100, 1);
  sp.grow = grow_then_retire;
  sp.ctx = &rc;
  wtp_spawn_result_t r = wtp_spawn(&sp, 55);
  CHECK_EQ(r.reason, WTP_REASON_NONE);
  CHECK_EQ(r.slot, 1);
  CHECK_EQ(r.tid, 1); /* the tid was kept, not re-allocated */
  CHECK_EQ(H(&t, WTP_H_NEXT_TID), 2);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(S(&t, 0, WTP_S_TID), 0); /* the previous last tid, restored */
  CHECK_EQ(S(&t, 1, WTP_S_STATE), WTP_ASSIGNED);
  CHECK_EQ(S(&t, 1, WTP_S_TID), 1);
  CHECK_EQ(S(&t, 1, WTP_S_ARG), 55);
  free_pool(&t);
}

/* ---- serve on one thread ----------------------------------------------- */

typedef struct serve_ctx {
  wtp_pool_t* pool;
  uint32_t slot;
  int runs;
  int32_t tid, arg;
  int result;      /* what run() returns */
  int retire_self; /* run() retires its own slot */
  int polls;
} serve_ctx_t;

static int run_cb(void* ctx, int32_t tid, int32_t arg) {
  serve_ctx_t* s = ctx;
  s->runs++;
  s->tid = tid;
  s->arg = arg;
  if (s->retire_self) wtp_slot_retire(s->pool, s->slot);
  return s->result;
}

static int interrupt_now(void* ctx, int slice_end) {
  (void)slice_end;
  serve_ctx_t* s = ctx;
  s->polls++;
  return 1;
}

static void test_serve_single(void) {
  tpool_t t = armed_pool(1);
  wtp_pool_t* p = &t.pool;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, p, 0, 1);
  serve_ctx_t s = {p, 0, 0, 0, 0, WTP_RUN_DONE, 1, 0};

  CHECK_EQ(wtp_serve(p, 1, 0, run_cb, NULL, &s), WTP_EINVAL);
  CHECK_EQ(wtp_serve(p, 0, 0, NULL, NULL, &s), WTP_EINVAL);

  /* run() retires its own slot: finish fails, the loop sees RETIRED. */
  CHECK_EQ(wtp_spawn(&sp, 31).tid, 1);
  CHECK_EQ(wtp_serve(p, 0, 4242, run_cb, NULL, &s), WTP_SERVE_RETIRED);
  CHECK_EQ(s.runs, 1);
  CHECK_EQ(s.tid, 1);
  CHECK_EQ(s.arg, 31);
  CHECK_EQ(S(&t, 0, WTP_S_THREAD), 4242);
  wtp_report_t rep;
  wtp_pool_report(p, &rep);
  CHECK_EQ(rep.workers, 1);
  /* A retired slot returns at once. */
  CHECK_EQ(wtp_serve(p, 0, 0, run_cb, NULL, &s), WTP_SERVE_RETIRED);
  CHECK_EQ(s.runs, 1);
  free_pool(&t);

  /* run() == RETIRE: the slot is retired, RUN_FALSE. */
  t = armed_pool(1);
  p = &t.pool;
  wtp_spawner_init(&sp, p, 0, 1);
  s = (serve_ctx_t){p, 0, 0, 0, 0, WTP_RUN_RETIRE, 0, 0};
  wtp_spawn(&sp, 1);
  int32_t gen = H(&t, WTP_H_GENERATION);
  CHECK_EQ(wtp_serve(p, 0, 0, run_cb, NULL, &s), WTP_SERVE_RUN_FALSE);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  CHECK_EQ(H(&t, WTP_H_GENERATION), gen + 1);
  CHECK_EQ(S(&t, 0, WTP_S_THREAD), 0); /* os_thread_id 0 not stored */
  free_pool(&t);

  /* run() == ERROR: retired too (refinement (c)). */
  t = armed_pool(1);
  p = &t.pool;
  wtp_spawner_init(&sp, p, 0, 1);
  s = (serve_ctx_t){p, 0, 0, 0, 0, WTP_RUN_ERROR, 0, 0};
  wtp_spawn(&sp, 1);
  CHECK_EQ(wtp_serve(p, 0, 0, run_cb, NULL, &s), WTP_SERVE_RUN_ERROR);
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  free_pool(&t);

  /* Runs one thread, then parks on IDLE; interrupted() after one slice ends
   * it and retires the slot (refinement (b)). */
  t = armed_pool(1);
  p = &t.pool;
  wtp_spawner_init(&sp, p, 0, 1);
  s = (serve_ctx_t){p, 0, 0, 0, 0, WTP_RUN_DONE, 0, 0};
  wtp_spawn(&sp, 9);
  uint64_t t0 = wtp__now_ns();
  CHECK_EQ(wtp_serve(p, 0, 0, run_cb, interrupt_now, &s),
           WTP_SERVE_INTERRUPTED);
  double took = ms_since(t0);
  CHECK_EQ(s.runs, 1);
  CHECK_EQ(s.polls, 1);
  CHECK(took < WTP_PARK_SLICE_MS + SLACK_MS); /* within one slice */
  CHECK_EQ(S(&t, 0, WTP_S_STATE), WTP_RETIRED);
  free_pool(&t);
}

/* ---- hostile header and slot values ------------------------------------ */

static int never_grow(void* ctx, uint32_t slot) {
  (void)ctx;
  (void)slot;
  return 0;
}

static void hostile_spawns(tpool_t* t, int owner, int grow) {
  grow_log_t g = {0};
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &t->pool, 3, owner);
  if (grow) {
    sp.grow = grow == 2 ? never_grow : grow_cb;
    sp.ctx = &g;
  }
  CHECK(sp.capacity <= t->pool.max_slots);
  uint64_t t0 = wtp__now_ns();
  for (int i = 0; i < 4; i++) {
    wtp_spawn_result_t r = wtp_spawn(&sp, i);
    if (r.slot >= 0) {
      CHECK((uint32_t)r.slot < t->pool.max_slots);
      int released;
      wtp_slot_release_if_running(&t->pool, (uint32_t)r.slot, r.tid, &released);
    }
  }
  CHECK(ms_since(t0) < 500); /* bounded: at most a few 3 ms waits */
  wtp_report_t rep;
  wtp_pool_report(&t->pool, &rep);
  CHECK(rep.slots <= t->pool.max_slots);
  CHECK(rep.active + rep.idle <= rep.slots);
  CHECK(rep.workers <= rep.slots);
}

static void test_hostile(void) {
  static const int32_t values[] = {INT32_MIN, -5, -1, 0,    1,
                                   3,         4,  5,  1000, INT32_MAX};
  static const int32_t states[] = {-1, 6, 77, INT32_MIN, INT32_MAX};
  static const int32_t flags[] = {-1, (int32_t)0xfffffffe, 2, 0x7fffffff};
  size_t nv = sizeof values / sizeof values[0];
  for (size_t a = 0; a < nv; a++) {
    for (size_t b = 0; b < nv; b++) {
      tpool_t t = make_pool(4);
      wtp_pool_open_slots(&t.pool, 4);
      for (uint32_t i = 0; i < 4; i++) wtp_slot_arm(&t.pool, i, 0);
      set_h(&t, WTP_H_SLOTS, values[a]);
      set_h(&t, WTP_H_CAPACITY, values[b]);
      CHECK(wtp_pool_capacity(&t.pool) <= 4);
      CHECK(wtp_pool_slots(&t.pool) <= wtp_pool_capacity(&t.pool));
      hostile_spawns(&t, (int)(a & 1), (int)(b % 3));
      free_pool(&t);
    }
  }
  /* States outside the enum: busy, not claimable, not retired. */
  for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) {
    tpool_t t = armed_pool(3);
    set_s(&t, 0, WTP_S_STATE, states[k]);
    set_s(&t, 1, WTP_S_STATE, states[k]);
    set_s(&t, 2, WTP_S_STATE, states[k]);
    wtp_spawner_t sp;
    wtp_spawner_init(&sp, &t.pool, 5, 1);
    uint64_t t0 = wtp__now_ns();
    wtp_spawn_result_t r = wtp_spawn(&sp, 1);
    /* live (not RETIRED), so it waits the full 5 ms rather than declining
     * at once, and then declines. */
    CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
    CHECK(ms_since(t0) >= 5 - 0.01);
    int32_t v;
    int flag;
    wtp_slot_running_tid(&t.pool, 0, &v);
    CHECK_EQ(v, 0);
    wtp_slot_release_if_running(&t.pool, 0, 0, &flag);
    CHECK_EQ(flag, 0);
    wtp_slot_take(&t.pool, 0, &flag, &v, &v);
    CHECK_EQ(flag, 0);
    wtp_slot_finish(&t.pool, 0);
    CHECK_EQ(S(&t, 0, WTP_S_STATE), states[k]);
    wtp_report_t rep;
    wtp_pool_report(&t.pool, &rep);
    CHECK_EQ(rep.active, 0);
    CHECK_EQ(rep.idle, 0);
    free_pool(&t);
  }
  /* Flags: only bit 0 counts. */
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
    tpool_t t = armed_pool(1);
    set_s(&t, 0, WTP_S_FLAGS, flags[k]);
    wtp_spawner_t guest;
    wtp_spawner_init(&guest, &t.pool, 0, 0);
    wtp_spawn_result_t r = wtp_spawn(&guest, 1);
    if (flags[k] & 1) {
      CHECK_EQ(r.reason, WTP_REASON_POOL_EXHAUSTED);
    } else {
      CHECK_EQ(r.reason, WTP_REASON_NONE);
      CHECK_EQ(r.slot, 0);
    }
    free_pool(&t);
  }
  /* A pool of 0 slots with everything set to garbage. */
  tpool_t t = make_pool(0);
  for (int w = 0; w < 8; w++) set_h(&t, w, -7);
  hostile_spawns(&t, 1, 1);
  hostile_spawns(&t, 0, 0);
  free_pool(&t);
}

int main(void) {
  printf("test_pool\n");
  RUN(test_init_format);
  RUN(test_transitions);
  RUN(test_arm_only_pending);
  RUN(test_release_tid_guard);
  RUN(test_report);
  RUN(test_message_dispatch);
  RUN(test_grow);
  RUN(test_grow_failure);
  RUN(test_stopped_spawner_does_not_grow);
  RUN(test_tid_overflow);
  RUN(test_dead_pool);
  RUN(test_spawn_wait_bound);
  RUN(test_retired_while_claimed);
  RUN(test_serve_single);
  RUN(test_hostile);
  RUN(test_close_races_reserve);
  RUN(test_close);
  RUN(test_close_during_grow);
  RUN(test_running_count);
  RUN(test_flags_read_at_claim);
  return harness_summary("test_pool");
}
