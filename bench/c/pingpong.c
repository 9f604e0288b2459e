/* pingpong.c: the floor a pool handoff cannot beat on this machine.
 *
 * Two threads hand a token back and forth through one 32-bit word each way.
 *
 *   --mode spin    spin up to --spin loads, then park in futex(FUTEX_WAIT);
 *                  the signaller skips FUTEX_WAKE when the peer is not parked
 *                  (a "parked" flag, Dekker-style with seq_cst atomics)
 *   --mode futex   park at once; always FUTEX_WAKE (what a JS
 *                  Atomics.wait/notify pair does)
 *
 *   --gap-us G     the pinger busy-waits G microseconds between handoffs (a
 *                  pool handoff after a join arrives 20-50 us after the
 *                  previous thread finished, so a short spin has run out)
 *   --pin same|diff|none   pin both threads to CPU 0, to CPUs 0 and 1, or not
 *
 * Figures, nanoseconds: round trip (ping -> pong seen by the pinger), one way
 * (the pinger's clock stamp before its signal -> the ponger's stamp after its
 * wait returns: the same quantity the pool handoff benchmark measures), and
 * the time one spin load costs, and how long the pinger's signal took when it
 * made a FUTEX_WAKE system call (the waker's own cost of a wake). Output: one
 * JSON line.
 *
 * Build: cc -O2 -pthread -o pingpong pingpong.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  _Atomic int32_t seq;
  char pad1[60];
  _Atomic int32_t parked;
  char pad2[60];
} event_t;

static event_t ping, pong;
static _Atomic uint64_t sent_at;
static int mode_spin = 1;
static long spin_limit = 2000;
static long iters = 20000;
static long warmup = 1000;
static long gap_ns = 0;
static int pin = 0; /* 0 none, 1 same, 2 diff */
static uint64_t *rt, *ow, *wk;
static long nwk;
static _Atomic long wakes, parks;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic int32_t* addr, int32_t expected) {
  syscall(SYS_futex, (int32_t*)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL,
          0);
}
static void futex_wake(_Atomic int32_t* addr) {
  syscall(SYS_futex, (int32_t*)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void signal_event(event_t* ev) {
  atomic_fetch_add(&ev->seq, 1);
  if (!mode_spin || atomic_load(&ev->parked)) {
    atomic_fetch_add_explicit(&wakes, 1, memory_order_relaxed);
    futex_wake(&ev->seq);
  }
}

static void wait_event(event_t* ev, int32_t old) {
  if (mode_spin) {
    for (long i = 0; i < spin_limit; i++) {
      if (atomic_load_explicit(&ev->seq, memory_order_acquire) != old) return;
      __builtin_ia32_pause();
    }
  }
  atomic_store(&ev->parked, 1);
  while (atomic_load(&ev->seq) == old) {
    atomic_fetch_add_explicit(&parks, 1, memory_order_relaxed);
    futex_wait(&ev->seq, old);
  }
  atomic_store(&ev->parked, 0);
}

static void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void* ponger(void* unused) {
  (void)unused;
  if (pin == 1) pin_to(0);
  if (pin == 2) pin_to(1);
  long total = warmup + iters;
  for (long i = 0; i < total; i++) {
    wait_event(&ping, (int32_t)i);
    uint64_t t = now_ns();
    if (i >= warmup) ow[i - warmup] = t - atomic_load(&sent_at);
    signal_event(&pong);
  }
  return NULL;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static double pct(uint64_t* v, long n, double p) {
  long i = (long)(p * (double)(n - 1) + 0.5);
  return (double)v[i];
}

static void print_stats(const char* name, uint64_t* v, long n) {
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  printf(
      "\"%s\":{\"p10\":%.0f,\"p50\":%.0f,\"p90\":%.0f,\"p99\":%.0f,\"min\":%.0f,\"max\":%.0f}",
      name, pct(v, n, 0.10), pct(v, n, 0.50), pct(v, n, 0.90), pct(v, n, 0.99),
      (double)v[0], (double)v[n - 1]);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--mode")) {
      mode_spin = !strcmp(v, "spin");
      i++;
    } else if (!strcmp(a, "--spin")) {
      spin_limit = atol(v);
      i++;
    } else if (!strcmp(a, "--iters")) {
      iters = atol(v);
      i++;
    } else if (!strcmp(a, "--warmup")) {
      warmup = atol(v);
      i++;
    } else if (!strcmp(a, "--gap-us")) {
      gap_ns = (long)(atof(v) * 1000);
      i++;
    } else if (!strcmp(a, "--pin")) {
      pin = !strcmp(v, "same") ? 1 : !strcmp(v, "diff") ? 2 : 0;
      i++;
    } else {
      fprintf(stderr, "unknown argument %s\n", a);
      return 2;
    }
  }
  if (iters < 1) iters = 1;
  rt = calloc((size_t)iters, sizeof *rt);
  ow = calloc((size_t)iters, sizeof *ow);
  wk = calloc((size_t)iters, sizeof *wk);

  /* Cost of one spin step (load + pause), for reading --spin as time. */
  uint64_t c0 = now_ns();
  for (long i = 0; i < 100000; i++) {
    (void)atomic_load_explicit(&ping.seq, memory_order_acquire);
    __builtin_ia32_pause();
  }
  double spin_step_ns = (double)(now_ns() - c0) / 100000.0;

  pthread_t t;
  pthread_create(&t, NULL, ponger, NULL);
  if (pin) pin_to(0);
  long total = warmup + iters;
  uint64_t wall0 = 0;
  for (long i = 0; i < total; i++) {
    if (i == warmup) {
      wall0 = now_ns();
      atomic_store(&wakes, 0);
      atomic_store(&parks, 0);
    }
    if (gap_ns) {
      uint64_t until = now_ns() + (uint64_t)gap_ns;
      while (now_ns() < until) __builtin_ia32_pause();
    }
    uint64_t t0 = now_ns();
    atomic_store(&sent_at, t0);
    long wakes0 = atomic_load_explicit(&wakes, memory_order_relaxed);
    signal_event(&ping);
    if (i >= warmup &&
        atomic_load_explicit(&wakes, memory_order_relaxed) != wakes0)
      wk[nwk++] = now_ns() - t0;
    wait_event(&pong, (int32_t)i);
    if (i >= warmup) rt[i - warmup] = now_ns() - t0;
  }
  uint64_t wall = now_ns() - wall0;
  pthread_join(t, NULL);
  printf(
      "{\"mode\":\"%s\",\"spin\":%ld,\"gapUs\":%.1f,\"pin\":\"%s\",\"iters\":%ld,"
      "\"spinStepNs\":%.2f,\"wallNs\":%llu,\"wakesPerIter\":%.3f,\"parksPerIter\":%.3f,",
      mode_spin ? "spin" : "futex", mode_spin ? spin_limit : 0,
      (double)gap_ns / 1000.0,
      pin == 1   ? "same"
      : pin == 2 ? "diff"
                 : "none",
      iters, spin_step_ns, (unsigned long long)wall,
      (double)atomic_load(&wakes) / (double)iters,
      (double)atomic_load(&parks) / (double)iters);
  print_stats("roundTripNs", rt, iters);
  printf(",");
  print_stats("oneWayNs", ow, iters);
  if (nwk > 0) {
    printf(",");
    print_stats("wakeCallNs", wk, nwk);
  }
  printf("}\n");
  return 0;
}
