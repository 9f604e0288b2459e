/* fuzz_pool.c: a libFuzzer harness for the pool core (src/core/wtp_pool.c).
 *
 * The input bytes choose a buffer length (well-formed, 8 + 8*capacity words,
 * or any length from 0 to 95 words), then a sequence of operations on it:
 * format, open, arm, retire, the slot reads, release, take, finish, report,
 * spawn (owner or not, with or without grow and dispatch callbacks that fail
 * or succeed by input byte, spawn_wait_ms 0 so that nothing blocks), fresh
 * spawners, wait tokens stopped by thread id (src/core/wtp_interrupt.c), and raw
 * writes of hostile values into header and slot words.
 *
 * Checked on every step:
 *   - every status, spawn result and report is one the contract allows
 *     (tid in 1..WTP_MAX_TID with a slot < max_slots and no reason, or
 *     tid -1, slot -1 and a reason; slot indices >= max_slots are refused
 *     with WTP_EINVAL and touch nothing; report counts within slots);
 *   - ASan/UBSan see no error (the buffer is an exact-size heap block);
 *   - a shadow model of the protocol, written here from SDK-CONTRACT 1 and
 *     the clamping rules of src/core/wtp.h, holds exactly the same words as the
 *     real buffer after each step, and predicted the same results.
 *
 * The blocking surface (wtp_serve, a spawn that parks) is not fuzzed here:
 * single-threaded, a park can only time out. test/model covers the waits.
 *
 * Build: test/fuzz/Makefile. Replay a crash: out/fuzz_pool <file>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wtp.h"

#define MAX_WORDS 96
#define MAX_OPS 200
#define NSPAWNERS 3

/* ------------------------------------------------------------------------ */
/* Input reader                                                              */

typedef struct reader {
  const uint8_t* p;
  size_t n;
} reader_t;

static int more(const reader_t* r) { return r->n > 0; }

static uint8_t byte(reader_t* r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}

static const int32_t interesting[] = {
    0,          1,          -1,         2,         3,
    4,          5,          6,          7,         8,
    9,          16,         255,        1024,      0x1ffffffe,
    0x1fffffff, 0x20000000, 0x7fffffff, INT32_MIN, INT32_MIN + 1,
    0x7774706e, -8,         0x7ffffff0, -2};
#define NINTERESTING (sizeof interesting / sizeof interesting[0])

static int32_t value(reader_t* r) {
  uint8_t b = byte(r);
  if (b < 0xc0) return interesting[b % NINTERESTING];
  int32_t v = 0;
  for (int i = 0; i < 4; i++) v = (int32_t)(((uint32_t)v << 8) | byte(r));
  return v;
}

/* ------------------------------------------------------------------------ */
/* Failure                                                                   */

static int32_t* g_words;
static size_t g_nwords;

static void fail(const char* what, int op, int line) {
  fprintf(stderr, "fuzz_pool: %s (op %d, line %d)\nbuffer:", what, op, line);
  for (size_t i = 0; i < g_nwords; i++)
    fprintf(stderr, "%s%d", i % 8 == 0 ? "\n  " : " ", g_words[i]);
  fprintf(stderr, "\n");
  abort();
}
#define CHECK(cond, op)                     \
  do {                                      \
    if (!(cond)) fail(#cond, op, __LINE__); \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Shadow model: the protocol on plain ints, single-threaded.               */

typedef struct shadow {
  int32_t w[MAX_WORDS];
  uint32_t max_slots;
} shadow_t;

#define SH(s, i) ((s)->w[(i)])
#define SS(s, slot, off) \
  ((s)->w[WTP_HEADER_WORDS + WTP_SLOT_WORDS * (slot) + (off)])

static uint32_t clampu(int32_t v, uint32_t bound) {
  if (v <= 0) return 0;
  return (uint32_t)v < bound ? (uint32_t)v : bound;
}
static uint32_t sh_capacity(const shadow_t* s) {
  return clampu(SH(s, WTP_H_CAPACITY), s->max_slots);
}
static uint32_t sh_slots(const shadow_t* s, uint32_t cap) {
  return clampu(SH(s, WTP_H_SLOTS), cap);
}
/* Counters and the generation wrap like the real int32 atomics. */
static void sh_inc(shadow_t* s, int word) {
  SH(s, word) = (int32_t)((uint32_t)SH(s, word) + 1u);
}

typedef struct sh_spawner {
  uint32_t capacity;
  int owner;
} sh_spawner_t;

/* What the embedder callbacks will do, decided by input bytes before the
 * call, so the shadow and the real core see the same decisions. */
typedef struct plan {
  uint8_t grow[4];     /* per grow call: bit0 fail, bit1 retire the slot */
  uint8_t dispatch[4]; /* per dispatch call: bit0 fail */
  int ngrow, ndispatch;
} plan_t;

static void sh_release(shadow_t* s, uint32_t slot, int32_t tid, int* released) {
  int32_t st = SS(s, slot, WTP_S_STATE);
  *released = 0;
  if ((st == WTP_ASSIGNED || st == WTP_RUNNING) &&
      SS(s, slot, WTP_S_TID) == tid) {
    SS(s, slot, WTP_S_STATE) = WTP_IDLE;
    sh_inc(s, WTP_H_GENERATION);
    *released = 1;
  }
}

static void sh_retire(shadow_t* s, uint32_t slot) {
  SS(s, slot, WTP_S_STATE) = WTP_RETIRED;
  sh_inc(s, WTP_H_GENERATION);
}

static wtp_spawn_result_t sh_spawn(shadow_t* s, const sh_spawner_t* sp,
                                   int has_grow, int has_dispatch, plan_t* pl,
                                   int32_t arg) {
  wtp_spawn_result_t res = {-1, -1, WTP_REASON_NONE};
  int32_t tid = 0;
  int have_tid = 0;
  /* A closed pool declines everything, touching nothing. */
  if (SH(s, WTP_H_IMPL) & WTP_IMPL_CLOSED) {
    res.reason = WTP_REASON_TERMINATED;
    return res;
  }
  for (int round = 0; round < 64; round++) {
    /* claim */
    int32_t slot = -1;
    int disp = 0; /* the flag as read at the claim */
    uint32_t live = 0;
    uint32_t n = sh_slots(s, sp->capacity);
    for (uint32_t i = 0; i < n && slot < 0; i++) {
      int dispatch = (SS(s, i, WTP_S_FLAGS) & WTP_FLAG_MESSAGE_DISPATCH) != 0;
      if (!sp->owner && dispatch) continue;
      if (SS(s, i, WTP_S_STATE) == WTP_IDLE) {
        SS(s, i, WTP_S_STATE) = WTP_CLAIMED;
        slot = (int32_t)i;
        disp = dispatch;
        break;
      }
      if (SS(s, i, WTP_S_STATE) != WTP_RETIRED) live++;
    }
    if (slot < 0) {
      int32_t hs = SH(s, WTP_H_SLOTS);
      int room = has_grow && hs >= 0 && (uint32_t)hs < sp->capacity;
      if (room) {
        /* spawn_wait_ms 0: grow at once. The reserved slot is claimed
         * PENDING -> CLAIMED by CAS; a slot that is not PENDING (a hostile
         * state) is spent and the claim looks again. */
        SH(s, WTP_H_SLOTS) = hs + 1;
        if (SS(s, hs, WTP_S_STATE) != WTP_PENDING) continue;
        SS(s, hs, WTP_S_STATE) = WTP_CLAIMED;
        disp = 0; /* grown: worker-served, its flags never read */
        uint8_t g = pl->ngrow < 4 ? pl->grow[pl->ngrow] : 0;
        pl->ngrow++;
        if (g & 2) sh_retire(s, (uint32_t)hs);
        if (g & 1) {
          sh_retire(s, (uint32_t)hs);
          res.reason = WTP_REASON_WORKER_CREATE_FAILED;
          return res;
        }
        slot = hs;
      } else {
        sh_inc(s, WTP_H_DECLINED);
        res.reason = WTP_REASON_POOL_EXHAUSTED;
        return res;
      }
    }
    if (!have_tid) {
      tid = SH(s, WTP_H_NEXT_TID);
      /* Sticky: only a valid tid moves the counter. */
      if (tid >= 1 && tid <= WTP_MAX_TID) sh_inc(s, WTP_H_NEXT_TID);
      have_tid = 1;
      if (tid <= 0 || tid > WTP_MAX_TID) {
        if (SS(s, slot, WTP_S_STATE) == WTP_CLAIMED)
          SS(s, slot, WTP_S_STATE) = WTP_IDLE;
        sh_inc(s, WTP_H_GENERATION);
        res.reason = WTP_REASON_TID_EXHAUSTED;
        return res;
      }
    }
    int32_t old_tid = SS(s, slot, WTP_S_TID);
    SS(s, slot, WTP_S_TID) = tid;
    SS(s, slot, WTP_S_ARG) = arg;
    if (SS(s, slot, WTP_S_STATE) != WTP_CLAIMED) {
      SS(s, slot, WTP_S_TID) = old_tid; /* retired while claimed */
      continue;
    }
    SS(s, slot, WTP_S_STATE) = WTP_ASSIGNED;
    if (disp) {
      uint8_t d = 0;
      if (has_dispatch) {
        d = pl->ndispatch < 4 ? pl->dispatch[pl->ndispatch] : 0;
        pl->ndispatch++;
      }
      if (!has_dispatch || (d & 1)) {
        int released;
        sh_release(s, (uint32_t)slot, tid, &released);
        res.reason = WTP_REASON_DISPATCH_FAILED;
        return res;
      }
    }
    sh_inc(s, WTP_H_SPAWNED);
    res.tid = tid;
    res.slot = slot;
    return res;
  }
  fail("shadow spawn did not settle", -1, __LINE__);
  return res;
}

/* ------------------------------------------------------------------------ */
/* The real core's callbacks.                                                */

typedef struct ctx {
  wtp_pool_t* pool;
  plan_t plan;
  int ngrow, ndispatch;
  int op;
} ctx_t;

static int grow_cb(void* p, uint32_t slot) {
  ctx_t* c = p;
  CHECK(slot < c->pool->max_slots, c->op);
  int32_t st;
  CHECK(wtp_slot_state(c->pool, slot, &st) == WTP_OK && st == WTP_CLAIMED,
        c->op);
  uint8_t g = c->ngrow < 4 ? c->plan.grow[c->ngrow] : 0;
  c->ngrow++;
  /* A hostile embedder: the owner retires the slot while grow runs. */
  if (g & 2) CHECK(wtp_slot_retire(c->pool, slot) == WTP_OK, c->op);
  return (g & 1) ? -1 : 0;
}

static int dispatch_cb(void* p, uint32_t slot, int32_t tid, int32_t arg) {
  ctx_t* c = p;
  (void)arg;
  CHECK(slot < c->pool->max_slots, c->op);
  CHECK(tid >= 1 && tid <= WTP_MAX_TID, c->op);
  int32_t st;
  CHECK(wtp_slot_state(c->pool, slot, &st) == WTP_OK && st == WTP_ASSIGNED,
        c->op);
  uint8_t d = c->ndispatch < 4 ? c->plan.dispatch[c->ndispatch] : 0;
  c->ndispatch++;
  return (d & 1) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */

static void check_result(wtp_spawn_result_t r, const wtp_pool_t* pool, int op) {
  if (r.tid == -1) {
    CHECK(r.slot == -1, op);
    CHECK((r.reason >= WTP_REASON_POOL_EXHAUSTED &&
           r.reason <= WTP_REASON_DISPATCH_FAILED) ||
              r.reason == WTP_REASON_TERMINATED,
          op);
  } else {
    CHECK(r.tid >= 1 && r.tid <= WTP_MAX_TID, op);
    CHECK(r.slot >= 0 && (uint32_t)r.slot < pool->max_slots, op);
    CHECK(r.reason == WTP_REASON_NONE, op);
  }
}

static int same_result(wtp_spawn_result_t a, wtp_spawn_result_t b) {
  return a.tid == b.tid && a.slot == b.slot && a.reason == b.reason;
}

/* The thread ids wtp_interrupt_thread has named in this process, the last
 * WTP_STOPPED_THREAD_IDS as the core keeps them (src/core/wtp_interrupt.c): a
 * token registered with one of them starts stopped. */
static int32_t stopped_ids[WTP_STOPPED_THREAD_IDS];
static uint32_t stopped_count;

static void note_stopped(int32_t thread_id) {
  stopped_ids[stopped_count % WTP_STOPPED_THREAD_IDS] = thread_id;
  stopped_count++;
}

static int was_stopped(int32_t thread_id) {
  uint32_t n = stopped_count < WTP_STOPPED_THREAD_IDS ? stopped_count
                                                      : WTP_STOPPED_THREAD_IDS;
  for (uint32_t i = 0; i < n; i++)
    if (stopped_ids[i] == thread_id) return 1;
  return 0;
}

static uint32_t pick_slot(reader_t* r, uint32_t max_slots) {
  uint8_t b = byte(r);
  /* Mostly real slots, sometimes just beyond, sometimes huge. */
  if (b < 200) return max_slots ? b % max_slots : b % 3;
  if (b < 250) return max_slots + (b % 3);
  return 0xffffffffu - (b % 3);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  reader_t r = {data, size};

  /* Buffer length. */
  uint8_t mode = byte(&r);
  size_t nwords;
  if (mode & 1) {
    nwords =
        WTP_HEADER_WORDS + WTP_SLOT_WORDS * ((mode >> 1) % 8); /* 0..7 slots */
  } else {
    nwords = (mode >> 1) % MAX_WORDS; /* anything, including < 8 */
  }
  int32_t* words = calloc(nwords ? nwords : 1, sizeof(int32_t));
  g_words = words;
  g_nwords = nwords;

  wtp_pool_t pool;
  int rc = wtp_pool_init(&pool, words, nwords);
  if (nwords < WTP_HEADER_WORDS) {
    CHECK(rc == WTP_EINVAL, -1);
    free(words);
    return 0;
  }
  CHECK(rc == WTP_OK, -1);
  CHECK(pool.max_slots == (nwords - WTP_HEADER_WORDS) / WTP_SLOT_WORDS, -1);
  CHECK(wtp_pool_init(&pool, NULL, nwords) == WTP_EINVAL, -1);
  CHECK(wtp_pool_init(&pool, words, nwords) == WTP_OK, -1);

  shadow_t sh;
  memset(&sh, 0, sizeof sh);
  sh.max_slots = pool.max_slots;

  /* Spawners: the real ones and their shadows. */
  ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.pool = &pool;
  wtp_spawner_t sp[NSPAWNERS];
  sh_spawner_t ssp[NSPAWNERS];
  int sp_grow[NSPAWNERS], sp_dispatch[NSPAWNERS];
  int sp_ready[NSPAWNERS] = {0};

  for (int op = 0; op < MAX_OPS && more(&r); op++) {
    ctx.op = op;
    uint8_t what = byte(&r) % 16;
    switch (what) {
      case 0: { /* format */
        int32_t capv = value(&r);
        uint32_t cap = (uint32_t)capv;
        int32_t impl = (byte(&r) & 1) ? WTP_IMPL_NATIVE : WTP_IMPL_JS;
        int rc2 = wtp_pool_format(&pool, cap, impl);
        if (cap > pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL, op);
        } else {
          CHECK(rc2 == WTP_OK, op);
          SH(&sh, WTP_H_NEXT_TID) = 1;
          SH(&sh, WTP_H_CAPACITY) = (int32_t)cap;
          SH(&sh, WTP_H_IMPL) = impl;
        }
        break;
      }
      case 1: { /* open */
        int32_t count = value(&r);
        wtp_pool_open_slots(&pool, count);
        SH(&sh, WTP_H_SLOTS) = count;
        break;
      }
      case 2: { /* arm */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int md = byte(&r) & 1;
        int rc2 = wtp_slot_arm(&pool, slot, md);
        if (slot >= pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL, op);
        } else {
          CHECK(rc2 == WTP_OK, op);
          /* PENDING -> IDLE only; any other state is left as it is. */
          if (SS(&sh, slot, WTP_S_STATE) == WTP_PENDING) {
            if (md) SS(&sh, slot, WTP_S_FLAGS) = WTP_FLAG_MESSAGE_DISPATCH;
            SS(&sh, slot, WTP_S_STATE) = WTP_IDLE;
            sh_inc(&sh, WTP_H_GENERATION);
          }
        }
        break;
      }
      case 3: { /* retire */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int rc2 = wtp_slot_retire(&pool, slot);
        if (slot >= pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL, op);
        } else {
          CHECK(rc2 == WTP_OK, op);
          sh_retire(&sh, slot);
        }
        break;
      }
      case 4: { /* reads */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int32_t a = 12345, b = 12345, c = 12345;
        int r1 = wtp_slot_state(&pool, slot, &a);
        int r2 = wtp_slot_last_tid(&pool, slot, &b);
        int r3 = wtp_slot_running_tid(&pool, slot, &c);
        int32_t d = 12345;
        int r4 = wtp_slot_running(&pool, slot, &d);
        if (slot >= pool.max_slots) {
          CHECK(r1 == WTP_EINVAL && r2 == WTP_EINVAL && r3 == WTP_EINVAL, op);
          CHECK(r4 == WTP_EINVAL, op);
          CHECK(a == 12345 && b == 12345 && c == 12345 && d == 12345, op);
        } else {
          int32_t st4 = SS(&sh, slot, WTP_S_STATE);
          int busy = st4 == WTP_ASSIGNED || st4 == WTP_RUNNING;
          CHECK(r4 == busy, op);
          CHECK(d == (busy ? SS(&sh, slot, WTP_S_TID) : 12345), op);
          CHECK(r1 == WTP_OK && r2 == WTP_OK && r3 == WTP_OK, op);
          int32_t st = SS(&sh, slot, WTP_S_STATE);
          CHECK(a == st, op);
          CHECK(b == SS(&sh, slot, WTP_S_TID), op);
          CHECK(c == ((st == WTP_ASSIGNED || st == WTP_RUNNING)
                          ? SS(&sh, slot, WTP_S_TID)
                          : 0),
                op);
        }
        break;
      }
      case 5: { /* release */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int32_t tid;
        uint8_t t = byte(&r);
        if (slot < pool.max_slots && (t & 1))
          tid = SS(&sh, slot, WTP_S_TID); /* the current tid: may release */
        else
          tid = interesting[t % NINTERESTING];
        int released = 77;
        int rc2 = wtp_slot_release_if_running(&pool, slot, tid, &released);
        if (slot >= pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL && released == 77, op);
        } else {
          int expect;
          CHECK(rc2 == WTP_OK, op);
          sh_release(&sh, slot, tid, &expect);
          CHECK(released == expect, op);
        }
        break;
      }
      case 6: { /* take */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int taken = 77;
        int32_t tid = 0, arg = 0;
        int rc2 = wtp_slot_take(&pool, slot, &taken, &tid, &arg);
        if (slot >= pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL && taken == 77, op);
        } else {
          CHECK(rc2 == WTP_OK, op);
          int expect = SS(&sh, slot, WTP_S_STATE) == WTP_ASSIGNED;
          CHECK(taken == expect, op);
          if (expect) {
            SS(&sh, slot, WTP_S_STATE) = WTP_RUNNING;
            CHECK(tid == SS(&sh, slot, WTP_S_TID), op);
            CHECK(arg == SS(&sh, slot, WTP_S_ARG), op);
          }
        }
        break;
      }
      case 7: { /* finish */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        int rc2 = wtp_slot_finish(&pool, slot);
        if (slot >= pool.max_slots) {
          CHECK(rc2 == WTP_EINVAL, op);
        } else {
          CHECK(rc2 == WTP_OK, op);
          if (SS(&sh, slot, WTP_S_STATE) == WTP_RUNNING) {
            SS(&sh, slot, WTP_S_STATE) = WTP_IDLE;
            sh_inc(&sh, WTP_H_GENERATION);
          }
        }
        break;
      }
      case 8: { /* report */
        wtp_report_t rep;
        memset(&rep, 0xff, sizeof rep);
        wtp_pool_report(&pool, &rep);
        uint32_t cap = wtp_pool_capacity(&pool);
        uint32_t slots = wtp_pool_slots(&pool);
        CHECK(cap == sh_capacity(&sh) && cap <= pool.max_slots, op);
        CHECK(slots == sh_slots(&sh, cap) && slots <= cap, op);
        CHECK(rep.slots == slots, op);
        CHECK(rep.active <= rep.slots && rep.idle <= rep.slots, op);
        CHECK(rep.active + rep.idle <= rep.slots, op);
        CHECK(rep.workers <= rep.slots, op);
        uint32_t active = 0, idle = 0, workers = 0;
        for (uint32_t i = 0; i < slots; i++) {
          int32_t st = SS(&sh, i, WTP_S_STATE);
          if (st == WTP_CLAIMED || st == WTP_ASSIGNED || st == WTP_RUNNING)
            active++;
          else if (st == WTP_IDLE)
            idle++;
          if (SS(&sh, i, WTP_S_THREAD) != 0) workers++;
        }
        CHECK(
            rep.active == active && rep.idle == idle && rep.workers == workers,
            op);
        CHECK(rep.spawned == SH(&sh, WTP_H_SPAWNED), op);
        CHECK(rep.waited == SH(&sh, WTP_H_WAITED), op);
        CHECK(rep.declined == SH(&sh, WTP_H_DECLINED), op);
        break;
      }
      case 9:
      case 10:
      case 11: { /* spawn */
        int k = byte(&r) % NSPAWNERS;
        if (!sp_ready[k]) {
          uint8_t cfg = byte(&r);
          wtp_spawner_init(&sp[k], &pool, 0, cfg & 1);
          sp_grow[k] = (cfg >> 1) & 1;
          sp_dispatch[k] = (cfg >> 2) & 1;
          sp[k].grow = sp_grow[k] ? grow_cb : NULL;
          sp[k].dispatch = sp_dispatch[k] ? dispatch_cb : NULL;
          sp[k].ctx = &ctx;
          ssp[k].capacity = sh_capacity(&sh);
          ssp[k].owner = cfg & 1;
          CHECK(sp[k].capacity == ssp[k].capacity, op);
          sp_ready[k] = 1;
        }
        plan_t pl;
        memset(&pl, 0, sizeof pl);
        for (int i = 0; i < 4; i++) pl.grow[i] = byte(&r);
        for (int i = 0; i < 4; i++) pl.dispatch[i] = byte(&r);
        int32_t arg = value(&r);
        ctx.plan = pl;
        ctx.ngrow = ctx.ndispatch = 0;
        wtp_spawn_result_t got = wtp_spawn(&sp[k], arg);
        check_result(got, &pool, op);
        plan_t spl = pl;
        wtp_spawn_result_t want =
            sh_spawn(&sh, &ssp[k], sp_grow[k], sp_dispatch[k], &spl, arg);
        if (!same_result(got, want)) {
          fprintf(stderr,
                  "spawn: core {tid %d, slot %d, reason %d}, "
                  "shadow {tid %d, slot %d, reason %d}\n",
                  got.tid, got.slot, got.reason, want.tid, want.slot,
                  want.reason);
          fail("spawn result differs from the shadow model", op, __LINE__);
        }
        CHECK(ctx.ngrow == spl.ngrow && ctx.ndispatch == spl.ndispatch, op);
        break;
      }
      case 12: { /* a fresh spawner (re-reads the capacity), or a close */
        uint8_t b = byte(&r);
        if (b & 0x80) {
          uint32_t cap = sh_capacity(&sh);
          uint32_t n = sh_slots(&sh, cap);
          CHECK(wtp_pool_close(&pool) == n, op);
          SH(&sh, WTP_H_IMPL) |= WTP_IMPL_CLOSED;
          for (uint32_t i = 0; i < n; i++) sh_retire(&sh, i);
          sh_inc(&sh, WTP_H_GENERATION);
          CHECK(wtp_pool_closed(&pool) == 1, op);
          break;
        }
        if (b & 0x40) {
          /* A wait token (src/core/wtp_interrupt.c) on a slot word or the
           * generation, stopped by its thread's id: a stop of another
           * thread touches nothing; its own retires the slot or bumps the
           * generation, on whatever the words hold. */
          int generation_token = b & 1;
          uint32_t slot = pick_slot(&r, pool.max_slots);
          int32_t thread_id = value(&r);
          if (!generation_token && slot >= pool.max_slots) break;
          wtp_wait_token_t token;
          wtp_token_register(
              &token, &pool,
              generation_token ? WTP_TOKEN_GENERATION : WTP_TOKEN_SLOT, slot,
              thread_id, NULL, NULL);
          int32_t other = (int32_t)((uint32_t)thread_id + 1u);
          /* An id stopped before (in this run or an earlier one) is
           * sticky: the token starts stopped. */
          int stopped_before = was_stopped(thread_id);
          wtp_interrupt_thread(other);
          note_stopped(other);
          CHECK(wtp_token_interrupted(&token, 1) == stopped_before, op);
          for (size_t i = 0; i < nwords; i++) CHECK(words[i] == sh.w[i], op);
          wtp_interrupt_thread(thread_id);
          note_stopped(thread_id);
          CHECK(wtp_token_interrupted(&token, 0) == 1, op);
          wtp_token_unregister(&token);
          if (generation_token)
            sh_inc(&sh, WTP_H_GENERATION);
          else
            sh_retire(&sh, slot);
          break;
        }
        sp_ready[b % NSPAWNERS] = 0;
        break;
      }
      case 13:
      case 14: { /* corrupt a header or slot word */
        size_t at = byte(&r) % nwords;
        int32_t v = value(&r);
        if ((size_t)(at - WTP_HEADER_WORDS) % WTP_SLOT_WORDS == WTP_S_STATE &&
            at >= WTP_HEADER_WORDS && (byte(&r) & 1)) {
          v = (int32_t)(byte(&r) % 8) - 1; /* -1..6: the enum and its edges */
        }
        __atomic_store_n(&words[at], v, __ATOMIC_SEQ_CST);
        sh.w[at] = v;
        break;
      }
      case 15: { /* serving thread id: the report counts workers */
        uint32_t slot = pick_slot(&r, pool.max_slots);
        if (slot < pool.max_slots) {
          int32_t v = value(&r);
          __atomic_store_n(
              &words[WTP_HEADER_WORDS + WTP_SLOT_WORDS * slot + WTP_S_THREAD],
              v, __ATOMIC_SEQ_CST);
          SS(&sh, slot, WTP_S_THREAD) = v;
        }
        break;
      }
    }
    /* The whole buffer must match the shadow, word for word. */
    for (size_t i = 0; i < nwords; i++) {
      if (words[i] != sh.w[i]) {
        fprintf(stderr, "word %zu: core %d, shadow %d\n", i, words[i], sh.w[i]);
        fail("buffer differs from the shadow model", op, __LINE__);
      }
    }
  }
  free(words);
  return 0;
}
