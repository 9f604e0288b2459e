/* test_threads.c: the pool core under real concurrency (POSIX threads, no
 * Node): spawners and serve loops on separate threads, growth that starts
 * serving threads, retire and interrupt ending parked loops, a stress run
 * (plain build only: `test_threads --stress`) and a timing print of the hot
 * handoff with and without spinning. */
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

static double ms_since(uint64_t t0) { return (wtp__now_ns() - t0) / 1e6; }

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int32_t load_word(const wtp_pool_t* p, size_t i) {
  return __atomic_load_n(&p->words[i], __ATOMIC_SEQ_CST);
}
static int32_t slot_state(const wtp_pool_t* p, uint32_t slot) {
  int32_t v;
  wtp_slot_state(p, slot, &v);
  return v;
}

/* ---- a test pool with serving threads ---------------------------------- */

#define MAX_SERVERS 16

typedef struct world world_t;

typedef struct server {
  world_t* w;
  uint32_t slot;
  pthread_t thread;
  int started;
  int status;
} server_t;

struct world {
  int32_t* words;
  wtp_pool_t pool;
  uint32_t capacity;
  /* per-tid records, indexed by tid */
  int32_t max_tid;
  atomic_int* runs;        /* times each tid ran */
  atomic_int* run_arg;     /* the arg it ran with */
  int32_t* spawned_arg;    /* the arg its spawner passed (spawner writes) */
  atomic_int bad_tid;      /* runs with a tid out of range */
  atomic_int run_sleep_us; /* each run sleeps this long */
  atomic_int stop;         /* interrupted() returns this */
  server_t servers[MAX_SERVERS];
  pthread_mutex_t grow_lock; /* grow callbacks run on spawner threads */
  atomic_int grow_fail;
};

static int run_cb(void* ctx, int32_t tid, int32_t arg) {
  server_t* s = ctx;
  world_t* w = s->w;
  if (tid < 1 || tid > w->max_tid) {
    atomic_fetch_add(&w->bad_tid, 1);
    return WTP_RUN_DONE;
  }
  atomic_fetch_add(&w->runs[tid], 1);
  atomic_store(&w->run_arg[tid], arg);
  int us = atomic_load(&w->run_sleep_us);
  if (us > 0) {
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000L};
    nanosleep(&ts, NULL);
  }
  return WTP_RUN_DONE;
}

static int interrupted_cb(void* ctx, int slice_end) {
  server_t* s = ctx;
  (void)slice_end;
  return atomic_load(&s->w->stop);
}

static void* serve_main(void* p) {
  server_t* s = p;
  s->status = wtp_serve(&s->w->pool, s->slot, (int32_t)(1000 + s->slot), run_cb,
                        interrupted_cb, s);
  return NULL;
}

static void start_server(world_t* w, uint32_t slot) {
  server_t* s = &w->servers[slot];
  s->w = w;
  s->slot = slot;
  s->status = -100;
  s->started = pthread_create(&s->thread, NULL, serve_main, s) == 0;
  CHECK(s->started);
}

static world_t* make_world(uint32_t capacity, int32_t max_tid) {
  world_t* w = calloc(1, sizeof *w);
  size_t n = WTP_HEADER_WORDS + (size_t)WTP_SLOT_WORDS * capacity;
  w->words = calloc(n, sizeof(int32_t));
  w->capacity = capacity;
  wtp_pool_init(&w->pool, w->words, n);
  wtp_pool_format(&w->pool, capacity, WTP_IMPL_NATIVE);
  w->max_tid = max_tid;
  w->runs = calloc((size_t)max_tid + 1, sizeof(atomic_int));
  w->run_arg = calloc((size_t)max_tid + 1, sizeof(atomic_int));
  w->spawned_arg = calloc((size_t)max_tid + 1, sizeof(int32_t));
  pthread_mutex_init(&w->grow_lock, NULL);
  return w;
}

/* Browser-like: all slots opened, armed, and served from the start. */
static world_t* armed_world(uint32_t n, int32_t max_tid) {
  world_t* w = make_world(n, max_tid);
  wtp_pool_open_slots(&w->pool, (int32_t)n);
  for (uint32_t i = 0; i < n; i++) {
    start_server(w, i);
    wtp_slot_arm(&w->pool, i, 0);
  }
  return w;
}

/* Retire every slot, join every server, check they ended by retirement. */
static void end_world(world_t* w, int expect_status) {
  uint32_t slots = wtp_pool_slots(&w->pool);
  for (uint32_t i = 0; i < slots; i++) wtp_slot_retire(&w->pool, i);
  for (uint32_t i = 0; i < MAX_SERVERS; i++) {
    if (!w->servers[i].started) continue;
    pthread_join(w->servers[i].thread, NULL);
    if (expect_status >= 0) CHECK_EQ(w->servers[i].status, expect_status);
  }
  free(w->runs);
  free(w->run_arg);
  free(w->spawned_arg);
  free(w->words);
  pthread_mutex_destroy(&w->grow_lock);
  free(w);
}

/* Node-like growth: grow() starts a serving thread for the new slot. */
static int grow_cb(void* ctx, uint32_t slot) {
  world_t* w = ctx;
  if (atomic_load(&w->grow_fail)) return -1;
  if (slot >= MAX_SERVERS) return -1;
  pthread_mutex_lock(&w->grow_lock);
  start_server(w, slot);
  pthread_mutex_unlock(&w->grow_lock);
  return 0;
}

/* ---- spawner threads --------------------------------------------------- */

typedef struct spawner_job {
  world_t* w;
  int id;
  int count;
  double wait_ms;
  int grow;
  int ok, declined, other;
} spawner_job_t;

static void* spawner_main(void* p) {
  spawner_job_t* j = p;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &j->w->pool, j->wait_ms, 0);
  if (j->grow) {
    sp.grow = grow_cb;
    sp.ctx = j->w;
  }
  for (int i = 0; i < j->count; i++) {
    int32_t arg = j->id * 1000000 + i;
    wtp_spawn_result_t r = wtp_spawn(&sp, arg);
    if (r.tid > 0) {
      j->ok++;
      if (r.tid <= j->w->max_tid) j->w->spawned_arg[r.tid] = arg;
    } else if (r.reason == WTP_REASON_POOL_EXHAUSTED) {
      j->declined++;
    } else {
      j->other++;
    }
  }
  return NULL;
}

/* Runs `nspawners` x `per` spawns and checks every tid 1..total ran exactly
 * once with its own start argument. */
static void run_spawners(world_t* w, int nspawners, int per, int grow) {
  spawner_job_t jobs[8];
  pthread_t th[8];
  for (int i = 0; i < nspawners; i++) {
    jobs[i] = (spawner_job_t){w, i + 1, per, 60000, grow, 0, 0, 0};
    pthread_create(&th[i], NULL, spawner_main, &jobs[i]);
  }
  int ok = 0;
  for (int i = 0; i < nspawners; i++) {
    pthread_join(th[i], NULL);
    ok += jobs[i].ok;
    CHECK_EQ(jobs[i].declined, 0);
    CHECK_EQ(jobs[i].other, 0);
  }
  int total = nspawners * per;
  CHECK_EQ(ok, total);
  /* Wait until every run has finished (the last ones may still run). */
  uint64_t t0 = wtp__now_ns();
  wtp_report_t rep;
  do {
    wtp_pool_report(&w->pool, &rep);
    if (rep.active == 0) break;
    sleep_ms(1);
  } while (ms_since(t0) < 10000);
  CHECK_EQ(rep.active, 0);
  CHECK_EQ(rep.spawned, total);
  CHECK_EQ(rep.declined, 0);
  int mismatched = 0, wrong_count = 0;
  for (int32_t tid = 1; tid <= total; tid++) {
    if (atomic_load(&w->runs[tid]) != 1) wrong_count++;
    if (atomic_load(&w->run_arg[tid]) != w->spawned_arg[tid]) mismatched++;
  }
  CHECK_EQ(wrong_count, 0);
  CHECK_EQ(mismatched, 0);
  CHECK_EQ(atomic_load(&w->bad_tid), 0);
  CHECK_EQ(load_word(&w->pool, WTP_H_NEXT_TID), total + 1);
}

static void test_spawn_serve(void) {
  world_t* w = armed_world(4, 600);
  run_spawners(w, 3, 200, 0);
  wtp_report_t rep;
  wtp_pool_report(&w->pool, &rep);
  CHECK_EQ(rep.workers, 4);
  CHECK_EQ(rep.idle, 4);
  end_world(w, WTP_SERVE_RETIRED);
}

static void test_spawn_serve_grow(void) {
  world_t* w = make_world(4, 600);
  atomic_store(&w->run_sleep_us, 20);
  run_spawners(w, 3, 200, 1);
  CHECK(wtp_pool_slots(&w->pool) >= 1);
  CHECK(wtp_pool_slots(&w->pool) <= 4);
  end_world(w, WTP_SERVE_RETIRED);
}

/* A spawn that blocks until a thread finishes on another thread counts as
 * waited. */
static void* spawn_one_patient(void* p) {
  spawner_job_t* j = p;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &j->w->pool, j->wait_ms, 0);
  wtp_spawn_result_t r = wtp_spawn(&sp, 7);
  j->ok = r.tid;
  j->other = (int)r.reason;
  return NULL;
}

static void test_waited(void) {
  world_t* w = armed_world(1, 10);
  atomic_store(&w->run_sleep_us, 40000);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &w->pool, 0, 0);
  CHECK_EQ(wtp_spawn(&sp, 1).tid, 1); /* runs 40 ms on the server */
  spawner_job_t j = {w, 2, 1, 5000, 0, 0, 0, 0};
  pthread_t th;
  uint64_t t0 = wtp__now_ns();
  pthread_create(&th, NULL, spawn_one_patient, &j);
  pthread_join(th, NULL);
  double took = ms_since(t0);
  CHECK_EQ(j.ok, 2);
  CHECK_EQ(j.other, WTP_REASON_NONE);
  CHECK(took >= 20);  /* it did wait for the first thread */
  CHECK(took < 2000); /* woken by the finish, not by its deadline */
  CHECK_EQ(load_word(&w->pool, WTP_H_WAITED), 1);
  CHECK_EQ(load_word(&w->pool, WTP_H_SPAWNED), 2);
  atomic_store(&w->run_sleep_us, 0);
  sleep_ms(60);
  end_world(w, WTP_SERVE_RETIRED);
}

/* Retire ends a serve loop parked on its slot, at once (a wake, not a
 * slice). */
static void test_retire_ends_serve(void) {
  world_t* w = armed_world(2, 10);
  sleep_ms(WTP_PARK_SLICE_MS / 2); /* both parked on IDLE */
  uint64_t t0 = wtp__now_ns();
  wtp_slot_retire(&w->pool, 1);
  pthread_join(w->servers[1].thread, NULL);
  w->servers[1].started = 0;
  double took = ms_since(t0);
  CHECK_EQ(w->servers[1].status, WTP_SERVE_RETIRED);
  CHECK(took < 1000);
  printf("       retire ended a parked serve loop in %.2f ms\n", took);
  /* A PENDING (never armed) slot's loop ends by retirement too. */
  world_t* v = make_world(1, 10);
  wtp_pool_open_slots(&v->pool, 1);
  start_server(v, 0);
  sleep_ms(10);
  CHECK_EQ(slot_state(&v->pool, 0), WTP_PENDING);
  end_world(v, WTP_SERVE_RETIRED);
  end_world(w, WTP_SERVE_RETIRED);
}

/* interrupted() ends a parked serve loop within one slice and retires its
 * slot, and ends a waiting spawner. */
static int spawner_interrupted(void* ctx, int slice_end) {
  (void)slice_end;
  return atomic_load((atomic_int*)ctx);
}

typedef struct waiting_spawner {
  world_t* w;
  atomic_int* stop;
  wtp_spawn_result_t r;
  uint64_t returned_at;
} waiting_spawner_t;

static void* spawn_until_interrupted(void* p) {
  waiting_spawner_t* ws = p;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &ws->w->pool, 60000, 0);
  sp.interrupted = spawner_interrupted;
  sp.ctx = ws->stop;
  ws->r = wtp_spawn(&sp, 1);
  ws->returned_at = wtp__now_ns();
  return NULL;
}

static void test_interrupt(void) {
  world_t* w = armed_world(2, 10);
  atomic_store(&w->run_sleep_us, 0);
  sleep_ms(10);
  uint64_t t0 = wtp__now_ns();
  atomic_store(&w->stop, 1);
  for (int i = 0; i < 2; i++) {
    pthread_join(w->servers[i].thread, NULL);
    w->servers[i].started = 0;
    CHECK_EQ(w->servers[i].status, WTP_SERVE_INTERRUPTED);
    CHECK_EQ(slot_state(&w->pool, (uint32_t)i), WTP_RETIRED);
  }
  double took = ms_since(t0);
  CHECK(took <= WTP_PARK_SLICE_MS + SLACK_MS);
  printf("       parked serve loops interrupted in %.1f ms (slice %d ms)\n",
         took, WTP_PARK_SLICE_MS);
  end_world(w, -1);

  /* A spawner waiting on a busy pool: 1 slot, RUNNING a long thread (we
   * play the worker by hand). */
  world_t* v = make_world(1, 10);
  wtp_pool_open_slots(&v->pool, 1);
  wtp_slot_arm(&v->pool, 0, 0);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &v->pool, 0, 0);
  CHECK_EQ(wtp_spawn(&sp, 1).tid, 1);
  atomic_int stop;
  atomic_init(&stop, 0);
  waiting_spawner_t ws = {v, &stop, {0, 0, 0}, 0};
  pthread_t th;
  pthread_create(&th, NULL, spawn_until_interrupted, &ws);
  sleep_ms(WTP_PARK_SLICE_MS + 10);
  uint64_t t1 = wtp__now_ns();
  atomic_store(&stop, 1);
  pthread_join(th, NULL);
  CHECK_EQ(ws.r.reason, WTP_REASON_INTERRUPTED);
  CHECK_EQ(ws.r.tid, -1);
  CHECK((ws.returned_at - t1) / 1e6 <= WTP_PARK_SLICE_MS + SLACK_MS);
  CHECK_EQ(load_word(&v->pool, WTP_H_DECLINED), 0); /* not pool-exhausted */
  end_world(v, -1);
}

/* A stop, as a wait token sends it (src/core/wtp_interrupt.c, "Stopping"):
 * interrupted() made to answer yes (S1), then a change of the slot word the
 * serve loop tolerates (retire: K1), then the unpark (K2, K3). It is sent
 * just after a slice boundary (slices end on a grid of WTP_PARK_SLICE_MS),
 * where the loop has just woken from its slice and re-checks before it
 * sleeps again: the window in which a bare nudge (flag + unpark, no word
 * change) was lost (seen under TSan), and a loop that only noticed at the
 * slice end would take at least 0.95 slice. */
static void test_nudge(void) {
  world_t* w = armed_world(1, 10);
  sleep_ms(20); /* parked on IDLE */
  const uint64_t slice = (uint64_t)WTP_PARK_SLICE_MS * 1000000u;
  while (wtp__now_ns() % slice > slice / 20) sleep_ms(1);
  uint64_t t0 = wtp__now_ns();
  atomic_store_explicit(&w->stop, 1, memory_order_seq_cst);
  wtp_slot_retire(&w->pool, 0);
  pthread_join(w->servers[0].thread, NULL);
  w->servers[0].started = 0;
  uint64_t t1 = wtp__now_ns();
  CHECK(w->servers[0].status == WTP_SERVE_RETIRED ||
        w->servers[0].status == WTP_SERVE_INTERRUPTED);
  CHECK(t1 - t0 < slice / 2);
  printf("       stopped serve loop left in %.2f ms\n", (t1 - t0) / 1e6);
  end_world(w, -1);
}

/* The backstop's bound holds however the generation moves: a spawner
 * waiting on a busy pool whose interrupted() answers "stopping" only as a
 * backstop (slice_end = 1: a termination that bypassed the hooks), while
 * another thread bumps the generation every 20 us, so that its waits keep
 * ending with the word changed and never at a quiet slice end. With the
 * long spin (what a machine with more than 2 CPUs picks) it would not even
 * sleep in the kernel. It must leave within a slice or so, not at its
 * spawn wait (3 s). */
typedef struct bumper {
  wtp_pool_t pool;
  atomic_int done;
  atomic_int bumps;
} bumper_t;

static void* bump_every_20us(void* p) {
  bumper_t* b = p;
  struct timespec ts = {0, 20000};
  while (!atomic_load(&b->done)) {
    wtp_pool_wake_spawners(&b->pool);
    atomic_fetch_add(&b->bumps, 1);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

static int backstop_stopping(void* ctx, int slice_end) {
  if (slice_end) atomic_fetch_add((atomic_int*)ctx, 1);
  return slice_end;
}

static void moving_generation_case(int spin_limit) {
  world_t* w = make_world(1, 10);
  wtp_pool_open_slots(&w->pool, 1);
  wtp_slot_arm(&w->pool, 0, 0);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &w->pool, 0, 0);
  CHECK_EQ(wtp_spawn(&sp, 1).tid, 1); /* the one slot is busy from now on */
  wtp__park_set_spin_limit(spin_limit);
  bumper_t b = {w->pool, 0, 0};
  pthread_t th;
  pthread_create(&th, NULL, bump_every_20us, &b);
  atomic_int asked;
  atomic_init(&asked, 0);
  wtp_spawner_init(&sp, &w->pool, 3000, 0);
  sp.interrupted = backstop_stopping;
  sp.ctx = &asked;
  uint64_t t0 = wtp__now_ns();
  wtp_spawn_result_t r = wtp_spawn(&sp, 2);
  double took = ms_since(t0);
  atomic_store(&b.done, 1);
  pthread_join(th, NULL);
  wtp__park_set_spin_limit(-1);
  CHECK_EQ(r.reason, WTP_REASON_INTERRUPTED);
  CHECK(atomic_load(&asked) >= 1);
  CHECK(took <= 2 * WTP_PARK_SLICE_MS + SLACK_MS);
  printf("       spin %d: left after %.0f ms, %d bumps, backstop asked %d\n",
         spin_limit, took, atomic_load(&b.bumps), atomic_load(&asked));
  end_world(w, -1);
}

static void test_backstop_moving_generation(void) {
  moving_generation_case(0);
  moving_generation_case(2000); /* a long spin, in reads */
}

/* ---- closing races growth (wtp.h, "Closing a pool") -------------------- */

/* Growing spawners on several threads race wtp_pool_close. A spawn that
 * starts after close has returned must decline "terminated" and grow
 * nothing, and once everything has stopped every slot in service must be
 * RETIRED (a reservation the closer missed is retired by its grower). The
 * slots are never served: each success takes a fresh slot, so the spawners
 * keep growing right up to the close. Run under TSan as well. */
typedef struct close_race {
  wtp_pool_t pool;
  atomic_int closed_returned;
  atomic_int grows_after;
  atomic_int late_success;
  atomic_int spawned;
} close_race_t;

static _Thread_local close_race_t* race_tls;
static _Thread_local int race_after;

static int race_grow(void* ctx, uint32_t slot) {
  (void)ctx;
  (void)slot;
  if (race_after) atomic_fetch_add(&race_tls->grows_after, 1);
  return 0;
}

static void* race_spawner(void* p) {
  close_race_t* r = p;
  race_tls = r;
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &r->pool, 0, 0);
  sp.grow = race_grow;
  for (;;) {
    race_after = atomic_load(&r->closed_returned);
    wtp_spawn_result_t res = wtp_spawn(&sp, 1);
    if (res.reason == WTP_REASON_NONE) {
      atomic_fetch_add(&r->spawned, 1);
      if (race_after) atomic_fetch_add(&r->late_success, 1);
    } else if (res.reason == WTP_REASON_TERMINATED) {
      if (race_after) break;
    } else if (res.reason == WTP_REASON_POOL_EXHAUSTED && race_after) {
      break; /* capacity reached before the close: nothing left to race */
    }
  }
  return NULL;
}

static void test_close_races_growth(void) {
  enum { CAP = 4096, THREADS = 3 };
#ifdef WTP_SLOW_SANITIZER
  int rounds = 5;
#else
  int rounds = 40;
#endif
  for (int round = 0; round < rounds; round++) {
    size_t nwords = WTP_HEADER_WORDS + (size_t)WTP_SLOT_WORDS * CAP;
    int32_t* words = calloc(nwords, sizeof(int32_t));
    CHECK(words != NULL);
    close_race_t r;
    CHECK_EQ(wtp_pool_init(&r.pool, words, nwords), WTP_OK);
    CHECK_EQ(wtp_pool_format(&r.pool, CAP, WTP_IMPL_NATIVE), WTP_OK);
    atomic_init(&r.closed_returned, 0);
    atomic_init(&r.grows_after, 0);
    atomic_init(&r.late_success, 0);
    atomic_init(&r.spawned, 0);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
      CHECK_EQ(pthread_create(&th[i], NULL, race_spawner, &r), 0);
    /* Let them grow a little (a different amount each round). */
    while (atomic_load(&r.spawned) < 20 + round * 10) sleep_ms(0);
    wtp_pool_close(&r.pool);
    atomic_store(&r.closed_returned, 1);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    CHECK_EQ(atomic_load(&r.late_success), 0);
    CHECK_EQ(atomic_load(&r.grows_after), 0);
    uint32_t slots = wtp_pool_slots(&r.pool);
    for (uint32_t i = 0; i < slots; i++)
      CHECK_EQ(slot_state(&r.pool, i), WTP_RETIRED);
    free(words);
  }
}

/* Large stress, plain build only. */
static void test_stress(void) {
  int per = 20000;
  world_t* w = armed_world(4, 3 * per);
  uint64_t t0 = wtp__now_ns();
  run_spawners(w, 3, per, 0);
  double took = ms_since(t0);
  wtp_report_t rep;
  wtp_pool_report(&w->pool, &rep);
  printf(
      "       3 x %d spawns through 4 servers: %.0f ms (%.1f us/spawn), "
      "%d waited\n",
      per, took, took * 1000 / (3 * per), rep.waited);
  end_world(w, WTP_SERVE_RETIRED);

  w = make_world(8, 3 * per);
  t0 = wtp__now_ns();
  run_spawners(w, 3, per, 1);
  took = ms_since(t0);
  printf("       3 x %d spawns, growing to %u servers: %.0f ms\n", per,
         wtp_pool_slots(&w->pool), took);
  end_world(w, WTP_SERVE_RETIRED);
}

/* Handoff latency: one spawner, one server, one slot. Each spawn must wait
 * for the previous thread to finish, so an iteration is two handoffs:
 * spawner -> server (assign) and server -> spawner (finish). */
static double handoff_us(int spin_limit, int rounds) {
  wtp__park_set_spin_limit(spin_limit);
  world_t* w = armed_world(1, rounds + 1);
  wtp_spawner_t sp;
  wtp_spawner_init(&sp, &w->pool, 60000, 0);
  uint64_t t0 = wtp__now_ns();
  for (int i = 0; i < rounds; i++) {
    wtp_spawn_result_t r = wtp_spawn(&sp, i);
    if (r.tid < 0) break;
  }
  double us = (double)(wtp__now_ns() - t0) / 1e3 / rounds;
  end_world(w, WTP_SERVE_RETIRED);
  wtp__park_set_spin_limit(-1);
  return us;
}

static void test_handoff_timing(void) {
  int rounds = 5000;
#ifdef WTP_SLOW_SANITIZER
  rounds = 500;
#endif
  double off = handoff_us(0, rounds);
  double on = handoff_us(-1, rounds);
  double big = handoff_us(1000, rounds);
  printf(
      "       handoff latency (spawn -> run -> finish -> next spawn): "
      "spin off %.1f us, the policy %.1f us, 1000 reads %.1f us\n",
      off, on, big);
}

int main(int argc, char** argv) {
  int stress = argc > 1 && strcmp(argv[1], "--stress") == 0;
  printf("test_threads\n");
  RUN(test_spawn_serve);
  RUN(test_spawn_serve_grow);
  RUN(test_waited);
  RUN(test_retire_ends_serve);
  RUN(test_interrupt);
  RUN(test_nudge);
  RUN(test_backstop_moving_generation);
  RUN(test_close_races_growth);
  if (stress) RUN(test_stress);
  RUN(test_handoff_timing);
  return harness_summary("test_threads");
}
