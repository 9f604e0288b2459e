/* test_wait.c: the contract of wtp_wait.h (whichever wait_*.c is linked)
 * and of the park layer (wtp_park.h) on top of it.
 *
 * Linked with -Wl,--wrap=wtp__wake_one,--wrap=wtp__wake_all so that the
 * test can count the wake system calls the park layer makes (and skips). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "../../src/core/wtp_park.h"
#include "../../src/os/wtp_wait.h"
#include "harness.h"

/* ---- wake call counting (link-time wrap) ------------------------------- */

static atomic_int wake_calls;
void __real_wtp__wake_one(int32_t* addr);
void __real_wtp__wake_all(int32_t* addr);
void __wrap_wtp__wake_one(int32_t* addr) {
  atomic_fetch_add(&wake_calls, 1);
  __real_wtp__wake_one(addr);
}
void __wrap_wtp__wake_all(int32_t* addr) {
  atomic_fetch_add(&wake_calls, 1);
  __real_wtp__wake_all(addr);
}

#ifdef WTP_TEST_PORTABLE_WAIT
/* wait_portable.c only: its condition-variable waits, counted per thread
 * (-Wl,--wrap=pthread_cond_timedwait,--wrap=pthread_cond_wait). */
static _Thread_local int cond_waits;
int __real_pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                  const struct timespec* ts);
int __real_pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m);
int __wrap_pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                  const struct timespec* ts) {
  cond_waits++;
  return __real_pthread_cond_timedwait(c, m, ts);
}
int __wrap_pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  cond_waits++;
  return __real_pthread_cond_wait(c, m);
}
#endif

/* ---- helpers ----------------------------------------------------------- */

static double ms_since(uint64_t t0) { return (wtp__now_ns() - t0) / 1e6; }
static uint64_t in_ms(double ms) {
  return wtp__now_ns() + (uint64_t)(ms * 1e6);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* ---- the wait contract ------------------------------------------------- */

static void test_immediate(void) {
  int32_t word = 5;
  uint64_t t0 = wtp__now_ns();
  CHECK_EQ(wtp__wait(&word, 4, UINT64_MAX), 1);
  CHECK_EQ(wtp__wait(&word, 4, in_ms(1000)), 1);
  /* A differing value wins over a deadline already past. */
  CHECK_EQ(wtp__wait(&word, 4, 0), 1);
  CHECK(ms_since(t0) < SLACK_MS);
  /* An equal value with a deadline already past: false at once. */
  t0 = wtp__now_ns();
  CHECK_EQ(wtp__wait(&word, 5, 0), 0);
  CHECK_EQ(wtp__wait(&word, 5, wtp__now_ns()), 0);
  CHECK(ms_since(t0) < SLACK_MS);
  /* The clock is monotonic and in nanoseconds. */
  uint64_t a = wtp__now_ns();
  sleep_ms(10);
  uint64_t b = wtp__now_ns();
  CHECK(b - a >= 10000000u);
  CHECK(b - a < 1000000000u);
}

static void test_timeout(void) {
  int32_t word = 0;
  for (int ms = 1; ms <= 25; ms *= 5) {
    uint64_t deadline = in_ms(ms);
    CHECK_EQ(wtp__wait(&word, 0, deadline), 0);
    /* Never early: false only once the deadline has passed. */
    CHECK(wtp__now_ns() >= deadline);
    CHECK(wtp__now_ns() - deadline < (uint64_t)SLACK_MS * 1000000u);
  }
}

/* EINTR: a waiting thread is hit by signals whose handler was installed
 * without SA_RESTART; the wait still lasts until its deadline. */
static atomic_int signals_seen;
static void on_sigusr1(int sig) {
  (void)sig;
  atomic_fetch_add(&signals_seen, 1);
}

typedef struct eintr_arg {
  int32_t word;
  uint64_t deadline;
  int result;
  uint64_t returned_at;
  atomic_int started;
} eintr_arg_t;

static void* eintr_waiter(void* p) {
  eintr_arg_t* a = p;
  atomic_store(&a->started, 1);
  a->result = wtp__wait(&a->word, 0, a->deadline);
  a->returned_at = wtp__now_ns();
  return NULL;
}

static void test_eintr(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigusr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART */
  CHECK_EQ(sigaction(SIGUSR1, &sa, &old), 0);

  /* Signals go out every 10 ms until five were handled or the wait is
   * nearly over; on a loaded machine fewer may land in time, so the check
   * asks for one, and that the wait still lasted to its deadline. (TSan
   * also defers handlers to its own sync points and may merge them.) */
  eintr_arg_t a = {.word = 0, .deadline = in_ms(300)};
  atomic_init(&a.started, 0);
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, eintr_waiter, &a), 0);
  while (!atomic_load(&a.started)) sleep_ms(1);
  uint64_t stop_at = a.deadline - 50 * 1000000ull;
  while (atomic_load(&signals_seen) < 5 && wtp__now_ns() < stop_at) {
    sleep_ms(10);
    pthread_kill(th, SIGUSR1);
  }
  pthread_join(th, NULL);
  CHECK_EQ(a.result, 0);
  CHECK(a.returned_at >= a.deadline);
  CHECK(atomic_load(&signals_seen) >= 1);
  sigaction(SIGUSR1, &old, NULL);
}

typedef struct wake_arg {
  int32_t* word;
  atomic_int* returned;
  int result;
} wake_arg_t;

static void* wake_waiter(void* p) {
  wake_arg_t* a = p;
  a->result = wtp__wait(a->word, 0, in_ms(5000));
  atomic_fetch_add(a->returned, 1);
  return NULL;
}

static void test_wake_one_all(void) {
  int32_t words[2] = {0, 0};
  atomic_int returned;
  atomic_init(&returned, 0);
  wake_arg_t args[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    args[i] = (wake_arg_t){&words[0], &returned, -1};
    pthread_create(&th[i], NULL, wake_waiter, &args[i]);
  }
  sleep_ms(100); /* let all three block */
  CHECK_EQ(atomic_load(&returned), 0);
  /* Wakes of another word (and of nobody) wake none of them. */
  wtp__wake_all(&words[1]);
  wtp__wake_one(&words[1]);
  sleep_ms(30);
  CHECK_EQ(atomic_load(&returned), 0);
  /* Wake one: exactly one returns (the value is unchanged). */
  wtp__wake_one(&words[0]);
  for (int i = 0; i < 2000 && atomic_load(&returned) == 0; i++) sleep_ms(1);
  sleep_ms(50); /* room for a wrong second return to show */
  CHECK_EQ(atomic_load(&returned), 1);
  /* Wake all: the other two. */
  wtp__wake_all(&words[0]);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  CHECK_EQ(atomic_load(&returned), 3);
  for (int i = 0; i < 3; i++) CHECK_EQ(args[i].result, 1);
}

#ifdef WTP_TEST_PORTABLE_WAIT
/* wait_portable.c: words of different addresses share a bucket; a wake of
 * one address must not wake (even spuriously, back to sleep) a waiter of
 * another. Thread B waits on b while thread A is woken on a, of the same
 * bucket, 40 times: B's condition-variable wait must never return early. */
typedef struct bucket_waiter {
  int32_t* word;
  int rounds; /* waits to make (each ended by a wake) */
  atomic_int waits_done;
  int cond_waits; /* its own count, read after join */
} bucket_waiter_t;

static void* bucket_waiter_main(void* p) {
  bucket_waiter_t* w = p;
  for (int i = 0; i < w->rounds; i++) {
    wtp__wait(w->word, 0, in_ms(5000));
    atomic_fetch_add(&w->waits_done, 1);
  }
  w->cond_waits = cond_waits;
  return NULL;
}

static void test_wake_only_that_address(void) {
  static int32_t words[4096];
  int32_t *a = &words[0], *b = NULL;
  for (int i = 1; i < 4096 && b == NULL; i++)
    if (((wtp__hash_word(&words[i]) ^ wtp__hash_word(a)) & 63) == 0)
      b = &words[i];
  CHECK(b != NULL);
  if (b == NULL) return;
  bucket_waiter_t wa = {a, 40, 0, 0}, wb = {b, 1, 0, 0};
  pthread_t ta, tb;
  pthread_create(&tb, NULL, bucket_waiter_main, &wb);
  pthread_create(&ta, NULL, bucket_waiter_main, &wa);
  sleep_ms(50);
  for (int i = 0; i < 40; i++) {
    int before = atomic_load(&wa.waits_done);
    for (int k = 0; k < 5000 && atomic_load(&wa.waits_done) == before; k++) {
      wtp__wake_one(a);
      sleep_ms(1);
    }
  }
  pthread_join(ta, NULL);
  wtp__wake_one(b);
  pthread_join(tb, NULL);
  CHECK_EQ(atomic_load(&wa.waits_done), 40);
  CHECK_EQ(wb.cond_waits, 1);
}
#endif

/* ---- the park layer ---------------------------------------------------- */

static atomic_int polls;       /* slice-end polls */
static atomic_int early_polls; /* slice_end 0: before the first sleep, or
                                  after a wake that left the word as it was */
static atomic_int stop_flag;
static int count_polls(void* ctx, int slice_end) {
  (void)ctx;
  atomic_fetch_add(slice_end ? &polls : &early_polls, 1);
  return atomic_load(&stop_flag);
}

static void test_park_basics(void) {
  int32_t word = 3;
  atomic_store(&polls, 0);
  atomic_store(&early_polls, 0);
  atomic_store(&stop_flag, 0);
  /* Differs: CHANGED at once, nothing polled. */
  CHECK_EQ(wtp__park(&word, 2, UINT64_MAX, count_polls, NULL),
           WTP_PARK_CHANGED);
  /* Past deadline: TIMEOUT at once. */
  CHECK_EQ(wtp__park(&word, 3, 0, count_polls, NULL), WTP_PARK_TIMEOUT);
  CHECK_EQ(atomic_load(&polls), 0);

  /* 2.5 slices: the slice ends (on the grid of WTP_PARK_SLICE_MS) before
   * the deadline are polled, 2 or 3 of them, then TIMEOUT at the deadline
   * (not early), with no poll at the deadline itself. */
  double span = WTP_PARK_SLICE_MS * 2.5;
  atomic_store(&early_polls, 0);
  uint64_t deadline = in_ms(span);
  CHECK_EQ(wtp__park(&word, 3, deadline, count_polls, NULL), WTP_PARK_TIMEOUT);
  CHECK(wtp__now_ns() >= deadline);
  CHECK(atomic_load(&polls) >= 2 && atomic_load(&polls) <= 3);

  /* Two early polls: on entry and before the first sleep (W2'). */
  CHECK_EQ(atomic_load(&early_polls), 2);

  /* Interrupted: the flag set before the park is seen on entry, before
   * any spin or sleep: at once, with no slice end. */
  atomic_store(&polls, 0);
  atomic_store(&early_polls, 0);
  atomic_store(&stop_flag, 1);
  uint64_t t0 = wtp__now_ns();
  CHECK_EQ(wtp__park(&word, 3, UINT64_MAX, count_polls, NULL),
           WTP_PARK_INTERRUPTED);
  double took = ms_since(t0);
  CHECK(took < WTP_PARK_SLICE_MS / 2.0);
  CHECK_EQ(atomic_load(&polls), 0);
  CHECK_EQ(atomic_load(&early_polls), 1);
  atomic_store(&stop_flag, 0);

  /* NULL interrupted: slices go on silently until the deadline. */
  deadline = in_ms(WTP_PARK_SLICE_MS * 1.5);
  CHECK_EQ(wtp__park(&word, 3, deadline, NULL, NULL), WTP_PARK_TIMEOUT);
  CHECK(wtp__now_ns() >= deadline);
}

/* With nobody parked, unpark makes no system call; with a thread parked on
 * the word, it makes one (and wakes it). */
typedef struct park_arg {
  int32_t word;
  atomic_int started;
  int result;
} park_arg_t;

static void* parker(void* p) {
  park_arg_t* a = p;
  atomic_store(&a->started, 1);
  a->result = wtp__park(&a->word, 0, in_ms(5000), NULL, NULL);
  return NULL;
}

/* ---- stopping a waiter (wtp_park.c, "Stopping a waiter") ---------------- */

typedef struct stop_arg {
  int32_t word;
  atomic_int stop;
  atomic_int started;
  int result;
  uint64_t returned_at;
} stop_arg_t;

static int stop_cb(void* ctx, int slice_end) {
  (void)slice_end;
  stop_arg_t* a = ctx;
  return atomic_load_explicit(&a->stop, memory_order_seq_cst);
}

/* The caller's loop of a real waiter: park on the value read, and on a
 * change read it again and park again, until interrupted. */
static void* stop_waiter(void* p) {
  stop_arg_t* a = p;
  atomic_store(&a->started, 1);
  int r;
  do {
    int32_t v = __atomic_load_n(&a->word, __ATOMIC_SEQ_CST);
    r = wtp__park(&a->word, v, UINT64_MAX, stop_cb, a);
  } while (r == WTP_PARK_CHANGED);
  a->result = r;
  a->returned_at = wtp__now_ns();
  return NULL;
}

/* A stop that lands while the waiter spins (or between its announce and its
 * sleep) must not wait for a slice end: the stopper stores the flag, changes
 * the word (a generation bump), then unparks. A long spin limit makes the
 * spin window last about a slice; the old park, which read the flag only
 * after a wake or at a slice end, returned one slice after the spin. */
static void test_stop_prompt(void) {
  wtp__park_set_spin_limit(10 * 1000 * 1000); /* ~0.3 s of pause */
  for (int round = 0; round < 5; round++) {
    stop_arg_t a;
    a.word = 0;
    atomic_init(&a.stop, 0);
    atomic_init(&a.started, 0);
    a.result = -1;
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, stop_waiter, &a), 0);
    while (!atomic_load(&a.started)) sleep_ms(1);
    sleep_ms(round * 3); /* spinning, or (later rounds) maybe parked */
    uint64_t t0 = wtp__now_ns();
    atomic_store_explicit(&a.stop, 1, memory_order_seq_cst); /* S1 */
    __atomic_fetch_add(&a.word, 1, __ATOMIC_SEQ_CST);        /* K1 */
    wtp__unpark_all(&a.word);                                /* K2, K3 */
    pthread_join(th, NULL);
    CHECK_EQ(a.result, WTP_PARK_INTERRUPTED);
    double took = (a.returned_at - t0) / 1e6;
    CHECK(took < WTP_PARK_SLICE_MS / 2.0);
  }
  wtp__park_set_spin_limit(-1);
}

static void test_unpark_skips_syscall(void) {
  int32_t word = 0;
  atomic_store(&wake_calls, 0);
  for (int i = 0; i < 1000; i++) {
    __atomic_store_n(&word, i, __ATOMIC_SEQ_CST);
    wtp__unpark_one(&word);
    wtp__unpark_all(&word);
  }
  CHECK_EQ(atomic_load(&wake_calls), 0);

  park_arg_t a = {.word = 0, .result = -1};
  atomic_init(&a.started, 0);
  pthread_t th;
  pthread_create(&th, NULL, parker, &a);
  while (!atomic_load(&a.started)) sleep_ms(1);
  sleep_ms(30); /* past any spin: parked */
  /* A wake without a change: the parker returns CHANGED (a wake), and the
   * call was not skipped. */
  wtp__unpark_one(&a.word);
  pthread_join(th, NULL);
  CHECK_EQ(a.result, WTP_PARK_CHANGED);
  CHECK_EQ(atomic_load(&wake_calls), 1);

  /* Timing print: the cost of an unpark that is skipped. */
  uint64_t t0 = wtp__now_ns();
  for (int i = 0; i < 1000000; i++) wtp__unpark_all(&word);
  double skipped = (double)(wtp__now_ns() - t0) / 1e6;
  t0 = wtp__now_ns();
  for (int i = 0; i < 100000; i++) wtp__wake_all(&word);
  double called = (double)(wtp__now_ns() - t0) / 1e5;
  printf(
      "       unpark with no waiter: %.1f ns skipped vs %.0f ns with the "
      "wake system call\n",
      skipped, called);
}

/* The Dekker invariant under load: two threads hand a token back and forth
 * through park/unpark with spinning off, so every handoff goes through the
 * counters. A lost wake-up would leave a waiter asleep with the word already
 * changed until its slice ends; interrupted() then finds the word changed.
 * Such "stale" slice ends are counted. (A wake racing a slice end can make
 * one rarely, so a couple are tolerated; a real lost wake-up makes one per
 * grid point, dozens in this run.) */
typedef struct pingpong {
  int32_t word; /* even: A's turn; odd: B's turn */
  int rounds;
} pingpong_t;

typedef struct waiting {
  int32_t* word;
  int32_t expected;
} waiting_t;

static atomic_int stale;
static int stale_poll(void* ctx, int slice_end) {
  waiting_t* w = ctx;
  /* Only slice ends count: the early polls (slice_end 0) run before the
   * waiter sleeps, where a change since its read is the normal race. */
  if (slice_end && __atomic_load_n(w->word, __ATOMIC_SEQ_CST) != w->expected)
    atomic_fetch_add(&stale, 1);
  return 0;
}

static void play(pingpong_t* pp, int parity) {
  for (int r = 0; r < pp->rounds; r++) {
    for (;;) {
      int32_t v = __atomic_load_n(&pp->word, __ATOMIC_SEQ_CST);
      if ((v & 1) == parity) break;
      waiting_t w = {&pp->word, v};
      wtp__park(&pp->word, v, UINT64_MAX, stale_poll, &w);
    }
    __atomic_fetch_add(&pp->word, 1, __ATOMIC_SEQ_CST);
    wtp__unpark_one(&pp->word);
  }
}

static void* player_b(void* p) {
  play(p, 1);
  return NULL;
}

static void test_no_lost_wakeup(void) {
  wtp__park_set_spin_limit(0);
  atomic_store(&stale, 0);
  pingpong_t pp = {0, 20000};
#ifdef WTP_SLOW_SANITIZER
  pp.rounds = 5000;
#endif
  pthread_t th;
  uint64_t t0 = wtp__now_ns();
  pthread_create(&th, NULL, player_b, &pp);
  play(&pp, 0);
  pthread_join(th, NULL);
  double took = ms_since(t0);
  CHECK_EQ(pp.word, 2 * pp.rounds);
  /* A lost wake-up holds its waiter until the next grid point, so a broken
   * invariant finds a stale waiter at nearly every grid point the run
   * crosses; a waker preempted between its store and its wake (common on a
   * loaded 2-vCPU machine) makes a few. */
  int grid_points = (int)(took / WTP_PARK_SLICE_MS) + 1;
  CHECK(atomic_load(&stale) <= 2 || atomic_load(&stale) * 2 < grid_points);
  printf(
      "       %d parked handoffs in %.0f ms, %d stale slice ends of %d "
      "grid points\n",
      2 * pp.rounds, took, atomic_load(&stale), grid_points);
  wtp__park_set_spin_limit(-1);
}

int main(void) {
  printf("test_wait\n");
  RUN(test_immediate);
  RUN(test_timeout);
  RUN(test_eintr);
  RUN(test_wake_one_all);
#ifdef WTP_TEST_PORTABLE_WAIT
  RUN(test_wake_only_that_address);
#endif
  RUN(test_park_basics);
  RUN(test_stop_prompt);
  RUN(test_unpark_skips_syscall);
  RUN(test_no_lost_wakeup);
  return harness_summary("test_wait");
}
