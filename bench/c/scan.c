/* scan.c: what one spawn's scan of a mostly busy pool costs in plain C, the
 * way the core scans (a compare-exchange IDLE -> CLAIMED on every slot, then
 * a load) against test-and-test-and-set (a plain load first; the
 * compare-exchange only on a slot that reads IDLE).
 *
 * Layout as the pool's: 8 header words, 8 words per slot; `busy` of `slots`
 * slots RUNNING (4), the rest IDLE (1). Each scan claims the first IDLE slot
 * and puts it back, so every scan walks the busy prefix. Single thread: the
 * figure is the instruction cost, without the cache-line traffic that
 * locked operations on other threads' slot lines add in a real pool.
 *
 * Build: cc -O2 -o scan scan.c     Run: ./scan [slots] [busy] [iters]
 * Output: one JSON line, nanoseconds per scan for both. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Atomic int32_t* words;

static int scan_cas_first(uint32_t slots, uint32_t* live) {
  uint32_t seen = 0;
  for (uint32_t i = 0; i < slots; i++) {
    _Atomic int32_t* st = &words[8 + 8 * i];
    int32_t expected = 1;
    if (atomic_compare_exchange_strong_explicit(
            st, &expected, 2, memory_order_acquire, memory_order_relaxed)) {
      *live = seen + 1;
      return (int)i;
    }
    if (atomic_load_explicit(st, memory_order_relaxed) != 5) seen++;
  }
  *live = seen;
  return -1;
}

static int scan_load_first(uint32_t slots, uint32_t* live) {
  uint32_t seen = 0;
  for (uint32_t i = 0; i < slots; i++) {
    _Atomic int32_t* st = &words[8 + 8 * i];
    int32_t s = atomic_load_explicit(st, memory_order_relaxed);
    if (s == 1) {
      int32_t expected = 1;
      if (atomic_compare_exchange_strong_explicit(
              st, &expected, 2, memory_order_acquire, memory_order_relaxed)) {
        *live = seen + 1;
        return (int)i;
      }
      s = expected;
    }
    if (s != 5) seen++;
  }
  *live = seen;
  return -1;
}

int main(int argc, char** argv) {
  uint32_t slots = argc > 1 ? (uint32_t)atoi(argv[1]) : 1024;
  uint32_t busy = argc > 2 ? (uint32_t)atoi(argv[2]) : 1020;
  long iters = argc > 3 ? atol(argv[3]) : 20000;
  words = calloc(8 + 8 * (size_t)slots, sizeof(int32_t));
  for (uint32_t i = 0; i < slots; i++) words[8 + 8 * i] = i < busy ? 4 : 1;
  double result[2];
  for (int variant = 0; variant < 2; variant++) {
    uint32_t live = 0;
    uint64_t t0 = now_ns();
    for (long k = 0; k < iters; k++) {
      int s = variant == 0 ? scan_cas_first(slots, &live)
                           : scan_load_first(slots, &live);
      if (s >= 0)
        atomic_store_explicit(&words[8 + 8 * s], 1, memory_order_release);
    }
    result[variant] = (double)(now_ns() - t0) / (double)iters;
  }
  printf(
      "{\"slots\":%u,\"busy\":%u,\"casFirstNs\":%.0f,\"loadFirstNs\":%.0f}\n",
      slots, busy, result[0], result[1]);
  return 0;
}
