/* bench_idle.c: the CPU cost of an idle pool. 64 threads sit in wtp_serve on
 * armed, idle slots (parked in slices of WTP_PARK_SLICE_MS, polling an
 * interrupted() callback between slices) for a few seconds; the process CPU
 * time over that span, as a share of one core, is the idle cost. Then the
 * threads are interrupted and the time until the last one has returned is
 * the "terminate" latency. `make -C test/c idle` builds it for several
 * slice lengths. Not a test. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/core/wtp.h"
#include "../../src/core/wtp_park.h"
#include "../../src/os/wtp_wait.h"

#define THREADS 64

static atomic_int stop;
static atomic_int polls;
static wtp_pool_t pool;

static int interrupted(void* ctx, int slice_end) {
  (void)ctx, (void)slice_end;
  atomic_fetch_add_explicit(&polls, 1, memory_order_relaxed);
  return atomic_load(&stop);
}

static int run(void* ctx, int32_t tid, int32_t arg) {
  (void)ctx, (void)tid, (void)arg;
  return WTP_RUN_DONE;
}

static void* serve(void* p) {
  wtp_serve(&pool, (uint32_t)(uintptr_t)p, 0, run, interrupted, NULL);
  return NULL;
}

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 3;
  static int32_t words[WTP_HEADER_WORDS + WTP_SLOT_WORDS * THREADS];
  wtp_pool_init(&pool, words, sizeof words / sizeof words[0]);
  wtp_pool_format(&pool, THREADS, WTP_IMPL_NATIVE);
  wtp_pool_open_slots(&pool, THREADS);
  pthread_t th[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++) {
    wtp_slot_arm(&pool, (uint32_t)i, 0);
    pthread_create(&th[i], NULL, serve, (void*)i);
  }
  struct timespec settle = {0, 200000000};
  nanosleep(&settle, NULL);
  double c0 = cpu_s();
  uint64_t t0 = wtp__now_ns();
  atomic_store(&polls, 0);
  struct timespec span = {(time_t)seconds,
                          (long)((seconds - (time_t)seconds) * 1e9)};
  nanosleep(&span, NULL);
  double cpu = cpu_s() - c0;
  double wall = (double)(wtp__now_ns() - t0) / 1e9;
  int n = atomic_load(&polls);
  uint64_t s0 = wtp__now_ns();
  atomic_store(&stop, 1);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  double stop_ms = (double)(wtp__now_ns() - s0) / 1e6;
  printf(
      "slice %3d ms: %d idle threads cost %.2f%% of a core "
      "(%.0f slice ends/s, %.1f us CPU each); all interrupted in %.1f ms\n",
      WTP_PARK_SLICE_MS, THREADS, 100 * cpu / wall, n / wall,
      n ? cpu / n * 1e6 : 0.0, stop_ms);
  return 0;
}
