/* test_interrupt.c: the interruptible wait tokens (src/core/wtp_interrupt.c),
 * which the binding uses for Worker.prototype.terminate (interruptThread)
 * and the process's exit (interruptAll): which tokens a stop marks, what it
 * does to their words, the slice-end-only backstop, that a stop ends a
 * parked serve loop or spawner at once (never at a slice end, even while
 * the waiter spins), and register/unregister racing stops (run under TSan
 * as well). wtp_interrupt_all is one-way for the process, so its test runs
 * last. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/core/wtp.h"
#include "../../src/core/wtp_park.h"
#include "../../src/os/wtp_wait.h"
#include "harness.h"

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static double ms_since(uint64_t t0) { return (wtp__now_ns() - t0) / 1e6; }

/* A pool of n slots in its own words, all opened and armed (IDLE). */
typedef struct test_pool {
  int32_t* words;
  wtp_pool_t pool;
} test_pool_t;

static test_pool_t make_pool(uint32_t n) {
  test_pool_t p;
  size_t nwords = WTP_HEADER_WORDS + (size_t)WTP_SLOT_WORDS * n;
  p.words = calloc(nwords, sizeof(int32_t));
  wtp_pool_init(&p.pool, p.words, nwords);
  wtp_pool_format(&p.pool, n, WTP_IMPL_NATIVE);
  wtp_pool_open_slots(&p.pool, (int32_t)n);
  for (uint32_t i = 0; i < n; i++) wtp_slot_arm(&p.pool, i, 0);
  return p;
}

static int32_t state_of(const test_pool_t* p, uint32_t slot) {
  int32_t v = -1;
  wtp_slot_state(&p->pool, slot, &v);
  return v;
}

static int32_t generation_of(const test_pool_t* p) {
  return __atomic_load_n(&p->words[WTP_H_GENERATION], __ATOMIC_SEQ_CST);
}

/* ---- which tokens a stop marks, and what it does to their words ------- */

static int serving_run_any(void* ctx, int32_t tid, int32_t arg) {
  (void)ctx;
  (void)tid;
  (void)arg;
  return WTP_RUN_DONE;
}

static int token_interrupted_cb(void* ctx, int slice_end) {
  return wtp_token_interrupted((wtp_wait_token_t*)ctx, slice_end);
}

typedef struct retire_later {
  test_pool_t* p;
  uint32_t slot;
  int ms;
} retire_later_t;

static void* retire_later(void* arg) {
  retire_later_t* r = arg;
  sleep_ms(r->ms);
  wtp_slot_retire(&r->p->pool, r->slot);
  return NULL;
}

static void test_stop_marks_one_thread(void) {
  test_pool_t p = make_pool(2);
  wtp_wait_token_t slot_a, slot_b, gen_a, gen_b;
  wtp_token_register(&slot_a, &p.pool, WTP_TOKEN_SLOT, 0, 101, NULL, NULL);
  wtp_token_register(&slot_b, &p.pool, WTP_TOKEN_SLOT, 1, 102, NULL, NULL);
  wtp_token_register(&gen_a, &p.pool, WTP_TOKEN_GENERATION, 0, 101, NULL, NULL);
  wtp_token_register(&gen_b, &p.pool, WTP_TOKEN_GENERATION, 0, 102, NULL, NULL);
  CHECK_EQ(wtp_token_interrupted(&slot_a, 0), 0);
  CHECK_EQ(wtp_token_interrupted(&gen_a, 1), 0);

  int32_t g0 = generation_of(&p);
  wtp_interrupt_thread(101);
  /* Thread 101's tokens, and only them. */
  CHECK_EQ(wtp_token_interrupted(&slot_a, 0), 1);
  CHECK_EQ(wtp_token_interrupted(&gen_a, 0), 1);
  CHECK_EQ(wtp_token_interrupted(&slot_b, 0), 0);
  CHECK_EQ(wtp_token_interrupted(&slot_b, 1), 0);
  CHECK_EQ(wtp_token_interrupted(&gen_b, 0), 0);
  /* A slot token's word is retired (the serve loop's own end), its
   * neighbour untouched; the generation moved (by the slot's retire and by
   * the generation token's bump). */
  CHECK_EQ(state_of(&p, 0), WTP_RETIRED);
  CHECK_EQ(state_of(&p, 1), WTP_IDLE);
  CHECK(generation_of(&p) - g0 >= 2);

  /* One-way: the flag stays after unregistering. A thread id nobody has
   * registered stops nothing now. */
  wtp_interrupt_thread(999);
  CHECK_EQ(state_of(&p, 1), WTP_IDLE);
  CHECK_EQ(wtp_token_interrupted(&slot_a, 0), 1);
  wtp_token_unregister(&slot_a);

  wtp_token_unregister(&slot_b);
  wtp_token_unregister(&gen_a);
  wtp_token_unregister(&gen_b);
  free(p.words);
}

/* A stopped thread is ending: a token it registers after the stop (its
 * call into serve or spawn raced the terminate hook's interruptThread) is
 * stopped from the start, so that wait ends at once, not at the backstop.
 * Other threads' later tokens are not. */
static void test_stop_before_register(void) {
  test_pool_t p = make_pool(2);
  wtp_interrupt_thread(111); /* nothing of thread 111 registered yet */
  wtp_interrupt_thread(999);
  wtp_wait_token_t late, other;
  wtp_token_register(&late, &p.pool, WTP_TOKEN_SLOT, 0, 111, NULL, NULL);
  wtp_token_register(&other, &p.pool, WTP_TOKEN_SLOT, 1, 112, NULL, NULL);
  CHECK_EQ(wtp_token_interrupted(&late, 0), 1);
  CHECK_EQ(wtp_token_interrupted(&other, 0), 0);
  CHECK_EQ(wtp_token_interrupted(&other, 1), 0);
  /* Its serve loop returns at once and retires the slot. (A guard thread
   * retires the slot after 1 s, so that a loop that missed the stop fails
   * the checks instead of waiting forever.) */
  pthread_t guard;
  retire_later_t later = {&p, 0, 1000};
  CHECK_EQ(pthread_create(&guard, NULL, retire_later, &later), 0);
  uint64_t t0 = wtp__now_ns();
  CHECK_EQ(
      wtp_serve(&p.pool, 0, 0, serving_run_any, token_interrupted_cb, &late),
      WTP_SERVE_INTERRUPTED);
  CHECK(ms_since(t0) < SLACK_MS);
  pthread_join(guard, NULL);
  CHECK_EQ(state_of(&p, 0), WTP_RETIRED);
  CHECK_EQ(state_of(&p, 1), WTP_IDLE);
  wtp_token_unregister(&late);
  wtp_token_unregister(&other);
  free(p.words);
}

static void test_unregistered_untouched(void) {
  test_pool_t p = make_pool(1);
  wtp_wait_token_t t, u;
  wtp_token_register(&t, &p.pool, WTP_TOKEN_SLOT, 0, 201, NULL, NULL);
  wtp_token_register(&u, &p.pool, WTP_TOKEN_GENERATION, 0, 201, NULL, NULL);
  wtp_token_unregister(&t);
  wtp_token_unregister(&u);
  int32_t g0 = generation_of(&p);
  wtp_interrupt_thread(201);
  CHECK_EQ(state_of(&p, 0), WTP_IDLE);
  CHECK_EQ(generation_of(&p), g0);
  CHECK_EQ(wtp_token_interrupted(&t, 0), 0);
  free(p.words);
}

/* ---- the backstop: asked at slice ends only ---------------------------- */

typedef struct backstop_probe {
  atomic_int calls;
  atomic_int answer;
} backstop_probe_t;

static int probe_backstop(void* ctx) {
  backstop_probe_t* b = ctx;
  atomic_fetch_add(&b->calls, 1);
  return atomic_load(&b->answer);
}

static void test_backstop_at_slice_end_only(void) {
  test_pool_t p = make_pool(1);
  backstop_probe_t b;
  atomic_init(&b.calls, 0);
  atomic_init(&b.answer, 0);
  wtp_wait_token_t t;
  wtp_token_register(&t, &p.pool, WTP_TOKEN_SLOT, 0, 301, probe_backstop, &b);
  CHECK_EQ(wtp_token_interrupted(&t, 0), 0);
  CHECK_EQ(atomic_load(&b.calls), 0);
  CHECK_EQ(wtp_token_interrupted(&t, 1), 0);
  CHECK_EQ(atomic_load(&b.calls), 1);
  atomic_store(&b.answer, 1);
  CHECK_EQ(wtp_token_interrupted(&t, 0), 0); /* not asked after a wake */
  CHECK_EQ(wtp_token_interrupted(&t, 1), 1);
  CHECK_EQ(atomic_load(&b.calls), 2);
  /* A stopped token answers without asking. */
  atomic_store(&b.answer, 0);
  wtp_interrupt_thread(301);
  CHECK_EQ(wtp_token_interrupted(&t, 1), 1);
  CHECK_EQ(atomic_load(&b.calls), 2);
  wtp_token_unregister(&t);
  free(p.words);
}

/* A serve loop whose backstop says yes leaves at its first slice end (the
 * binding's path for a Worker terminated without the hook). */
typedef struct serving {
  test_pool_t* p;
  uint32_t slot;
  int32_t thread_id;
  wtp_wait_token_t token;
  wtp_backstop_cb backstop;
  void* backstop_ctx;
  atomic_int registered;
  int status;
  uint64_t returned_at;
} serving_t;

static int serving_run(void* ctx, int32_t tid, int32_t arg) {
  (void)ctx;
  (void)tid;
  (void)arg;
  return WTP_RUN_DONE;
}

static int serving_interrupted(void* ctx, int slice_end) {
  return wtp_token_interrupted(&((serving_t*)ctx)->token, slice_end);
}

static void* serving_main(void* arg) {
  serving_t* s = arg;
  wtp_token_register(&s->token, &s->p->pool, WTP_TOKEN_SLOT, s->slot,
                     s->thread_id, s->backstop, s->backstop_ctx);
  atomic_store(&s->registered, 1);
  s->status =
      wtp_serve(&s->p->pool, s->slot, 0, serving_run, serving_interrupted, s);
  s->returned_at = wtp__now_ns();
  wtp_token_unregister(&s->token);
  return NULL;
}

static void start_serving(serving_t* s, test_pool_t* p, uint32_t slot,
                          int32_t thread_id, pthread_t* th) {
  s->p = p;
  s->slot = slot;
  s->thread_id = thread_id;
  atomic_init(&s->registered, 0);
  s->status = -1;
  CHECK_EQ(pthread_create(th, NULL, serving_main, s), 0);
  while (!atomic_load(&s->registered)) sleep_ms(1);
}

static void test_backstop_ends_serve(void) {
  test_pool_t p = make_pool(1);
  backstop_probe_t b;
  atomic_init(&b.calls, 0);
  atomic_init(&b.answer, 1);
  serving_t s = {.backstop = probe_backstop, .backstop_ctx = &b};
  pthread_t th;
  uint64_t t0 = wtp__now_ns();
  start_serving(&s, &p, 0, 401, &th);
  pthread_join(th, NULL);
  CHECK_EQ(s.status, WTP_SERVE_INTERRUPTED);
  CHECK_EQ(state_of(&p, 0), WTP_RETIRED);
  CHECK(atomic_load(&b.calls) >= 1);
  CHECK(ms_since(t0) <= WTP_PARK_SLICE_MS + SLACK_MS);
  free(p.words);
}

/* ---- a stop ends a wait at once ---------------------------------------- */

/* A serve loop parked (or, with the long spin limit, still spinning: the
 * window where a bare wake is lost) is stopped by wtp_interrupt_thread well
 * before a slice end. */
static void test_stop_ends_serve_promptly(void) {
  wtp__park_set_spin_limit(10 * 1000 * 1000); /* ~0.3 s of pause */
  for (int round = 0; round < 4; round++) {
    test_pool_t p = make_pool(2);
    serving_t mine = {0}, other = {0};
    pthread_t th_mine, th_other;
    /* Fresh ids each round: a stopped thread id stays stopped. */
    start_serving(&mine, &p, 0, 501 + 2 * round, &th_mine);
    start_serving(&other, &p, 1, 502 + 2 * round, &th_other);
    sleep_ms(round * 5); /* spinning, or (later rounds) maybe parked */
    uint64_t t0 = wtp__now_ns();
    wtp_interrupt_thread(501 + 2 * round);
    pthread_join(th_mine, NULL);
    /* The stop retires the slot: a loop that sees the retire first ends
     * RETIRED, one that sees its flag first INTERRUPTED. */
    CHECK(mine.status == WTP_SERVE_INTERRUPTED ||
          mine.status == WTP_SERVE_RETIRED);
    CHECK_EQ(state_of(&p, 0), WTP_RETIRED);
    CHECK((mine.returned_at - t0) / 1e6 < WTP_PARK_SLICE_MS / 2.0);
    /* The other thread's loop still serves. */
    CHECK_EQ(state_of(&p, 1), WTP_IDLE);
    wtp_slot_retire(&p.pool, 1);
    pthread_join(th_other, NULL);
    CHECK_EQ(other.status, WTP_SERVE_RETIRED);
    free(p.words);
  }
  wtp__park_set_spin_limit(-1);
}

/* A spawner parked on the generation of a busy pool. */
typedef struct waiting_spawner {
  test_pool_t* p;
  int32_t thread_id;
  wtp_wait_token_t token;
  atomic_int registered;
  wtp_spawn_result_t result;
  uint64_t returned_at;
} waiting_spawner_t;

static int spawner_interrupted(void* ctx, int slice_end) {
  return wtp_token_interrupted(&((waiting_spawner_t*)ctx)->token, slice_end);
}

static void* spawner_main(void* arg) {
  waiting_spawner_t* ws = arg;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &ws->p->pool, 60000, 0);
  sp.interrupted = spawner_interrupted;
  sp.ctx = ws;
  wtp_token_register(&ws->token, &ws->p->pool, WTP_TOKEN_GENERATION, 0,
                     ws->thread_id, NULL, NULL);
  atomic_store(&ws->registered, 1);
  ws->result = wtp_spawn(&sp, 7);
  ws->returned_at = wtp__now_ns();
  wtp_token_unregister(&ws->token);
  return NULL;
}

static void test_stop_ends_spawn_promptly(void) {
  /* Long spins again: the stop lands while the spawner spins on the
   * generation, where a bare wake would be lost. */
  wtp__park_set_spin_limit(10 * 1000 * 1000);
  test_pool_t p = make_pool(1);
  /* Take the only slot: the spawner below waits for it. */
  wtp_spawner_t owner;
  wtp_spawner_init(&owner, &p.pool, 0, 0);
  CHECK_EQ(wtp_spawn(&owner, 1).tid, 1);
  waiting_spawner_t ws = {.p = &p, .thread_id = 601};
  atomic_init(&ws.registered, 0);
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, spawner_main, &ws), 0);
  while (!atomic_load(&ws.registered)) sleep_ms(1);
  sleep_ms(20);
  int32_t declined =
      __atomic_load_n(&p.words[WTP_H_DECLINED], __ATOMIC_SEQ_CST);
  uint64_t t0 = wtp__now_ns();
  wtp_interrupt_thread(601);
  pthread_join(th, NULL);
  CHECK_EQ(ws.result.reason, WTP_REASON_INTERRUPTED);
  CHECK_EQ(ws.result.tid, -1);
  CHECK((ws.returned_at - t0) / 1e6 < WTP_PARK_SLICE_MS / 2.0);
  /* Not a decline, and the slot it waited for is untouched. */
  CHECK_EQ(__atomic_load_n(&p.words[WTP_H_DECLINED], __ATOMIC_SEQ_CST),
           declined);
  CHECK_EQ(state_of(&p, 0), WTP_ASSIGNED);
  free(p.words);
  wtp__park_set_spin_limit(-1);
}

/* ---- registering and unregistering race stops -------------------------- */

#define CHURNERS 3
#define CHURN_ROUNDS 2000

typedef struct churner {
  int32_t thread_id;
  atomic_int* done;
} churner_t;

static void* churn_main(void* arg) {
  churner_t* c = arg;
  test_pool_t p = make_pool(2);
  for (int i = 0; i < CHURN_ROUNDS; i++) {
    wtp_wait_token_t a, b;
    wtp_token_register(&a, &p.pool, WTP_TOKEN_SLOT, (uint32_t)(i & 1),
                       c->thread_id, NULL, NULL);
    wtp_token_register(&b, &p.pool, WTP_TOKEN_GENERATION, 0, c->thread_id, NULL,
                       NULL);
    (void)wtp_token_interrupted(&a, 0);
    wtp_token_unregister(&a);
    (void)wtp_token_interrupted(&b, 0);
    wtp_token_unregister(&b);
  }
  atomic_fetch_add(c->done, 1);
  free(p.words);
  return NULL;
}

static void test_register_races_stop(void) {
  atomic_int done;
  atomic_init(&done, 0);
  churner_t c[CHURNERS];
  pthread_t th[CHURNERS];
  for (int i = 0; i < CHURNERS; i++) {
    c[i].thread_id = 700 + i;
    c[i].done = &done;
    CHECK_EQ(pthread_create(&th[i], NULL, churn_main, &c[i]), 0);
  }
  /* At least one stop, even when the churners finish before this thread
   * gets a CPU (seen under tsan on the loaded 2-vCPU machine). */
  int stops = 0;
  do {
    wtp_interrupt_thread(700 + stops % CHURNERS);
    stops++;
  } while (atomic_load(&done) < CHURNERS);
  for (int i = 0; i < CHURNERS; i++) pthread_join(th[i], NULL);
  CHECK(stops > 0);
}

/* ---- interruptAll: every token, and every later one (runs last) -------- */

static void test_interrupt_all(void) {
  test_pool_t p = make_pool(2);
  serving_t a = {0}, b = {0};
  pthread_t th_a, th_b;
  start_serving(&a, &p, 0, 801, &th_a);
  start_serving(&b, &p, 1, 802, &th_b);
  sleep_ms(10);
  uint64_t t0 = wtp__now_ns();
  wtp_interrupt_all();
  pthread_join(th_a, NULL);
  pthread_join(th_b, NULL);
  CHECK(a.status == WTP_SERVE_INTERRUPTED || a.status == WTP_SERVE_RETIRED);
  CHECK(b.status == WTP_SERVE_INTERRUPTED || b.status == WTP_SERVE_RETIRED);
  CHECK_EQ(state_of(&p, 0), WTP_RETIRED);
  CHECK_EQ(state_of(&p, 1), WTP_RETIRED);
  CHECK(ms_since(t0) < WTP_PARK_SLICE_MS / 2.0);
  /* A token registered afterwards is stopped from the start. */
  wtp_wait_token_t late;
  wtp_token_register(&late, &p.pool, WTP_TOKEN_GENERATION, 0, 803, NULL, NULL);
  CHECK_EQ(wtp_token_interrupted(&late, 0), 1);
  wtp_token_unregister(&late);
  free(p.words);
}

int main(void) {
  RUN(test_stop_marks_one_thread);
  RUN(test_stop_before_register);
  RUN(test_unregistered_untouched);
  RUN(test_backstop_at_slice_end_only);
  RUN(test_backstop_ends_serve);
  RUN(test_stop_ends_serve_promptly);
  RUN(test_stop_ends_spawn_promptly);
  RUN(test_register_races_stop);
  RUN(test_interrupt_all); /* one-way: last */
  return harness_summary("test_interrupt");
}
