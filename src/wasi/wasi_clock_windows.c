/* wasi_clock_windows.c: wasi_clock.h on Windows.
 *
 *   realtime   GetSystemTimePreciseAsFileTime (100 ns ticks since 1601)
 *   monotonic  QueryPerformanceCounter, in ns (the clock wtp__now_ns and
 *              WaitOnAddress's deadlines use too, src/os/wait_windows.c)
 *   process / thread CPU time   GetProcessTimes / GetThreadTimes, kernel
 *              plus user (100 ns units)
 * Resolutions: 100 ns for realtime and the CPU clocks (their unit; the
 * counters advance by the scheduler's tick), one counter tick for the
 * monotonic clock. Random bytes: BCryptGenRandom with the system's
 * preferred generator. Yield: SwitchToThread.
 */
#include <stdatomic.h>

#include "wasi_clock.h"
#include "wasi_windows.h"

#include <bcrypt.h>

static uint64_t qpc_frequency(void) {
  static _Atomic uint64_t cached; /* relaxed: any thread's answer is the same */
  uint64_t f = atomic_load_explicit(&cached, memory_order_relaxed);
  if (f == 0) {
    LARGE_INTEGER freq;
    QueryPerformanceFrequency(&freq); /* never fails on XP and later */
    f = (uint64_t)freq.QuadPart;
    atomic_store_explicit(&cached, f, memory_order_relaxed);
  }
  return f;
}

static uint64_t monotonic_ns(void) {
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  uint64_t f = qpc_frequency(), ticks = (uint64_t)c.QuadPart;
  /* Split so that ticks * 1e9 cannot overflow. */
  return ticks / f * 1000000000u + ticks % f * 1000000000u / f;
}

static uint64_t filetime_ticks(FILETIME t) {
  return (uint64_t)t.dwHighDateTime << 32 | t.dwLowDateTime;
}

uint32_t wtp__wasi_clock_now(uint64_t id, uint64_t *ns) {
  FILETIME created, exited, kernel, user, now;
  switch (id) {
    case WASI_CLOCK_REALTIME:
      GetSystemTimePreciseAsFileTime(&now);
      *ns = wtp__wasi_ticks_to_ns(filetime_ticks(now));
      return WASI_ESUCCESS;
    case WASI_CLOCK_MONOTONIC:
      *ns = monotonic_ns();
      return WASI_ESUCCESS;
    case WASI_CLOCK_PROCESS_CPUTIME_ID:
      if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel,
                           &user))
        return wtp__wasi_last_errno();
      *ns = (filetime_ticks(kernel) + filetime_ticks(user)) * 100u;
      return WASI_ESUCCESS;
    case WASI_CLOCK_THREAD_CPUTIME_ID:
      if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel,
                          &user))
        return wtp__wasi_last_errno();
      *ns = (filetime_ticks(kernel) + filetime_ticks(user)) * 100u;
      return WASI_ESUCCESS;
    default:
      return WASI_EINVAL;
  }
}

uint32_t wtp__wasi_clock_res(uint64_t id, uint64_t *ns) {
  switch (id) {
    case WASI_CLOCK_MONOTONIC: {
      uint64_t f = qpc_frequency();
      *ns = f >= 1000000000u ? 1 : (1000000000u + f - 1) / f;
      return WASI_ESUCCESS;
    }
    case WASI_CLOCK_REALTIME:
    case WASI_CLOCK_PROCESS_CPUTIME_ID:
    case WASI_CLOCK_THREAD_CPUTIME_ID:
      *ns = 100;
      return WASI_ESUCCESS;
    default:
      return WASI_EINVAL;
  }
}

uint32_t wtp__wasi_random(uint8_t *at, uint64_t len) {
  while (len > 0) {
    ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;
    NTSTATUS status =
        BCryptGenRandom(NULL, at, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
    if (status < 0) return wtp__wasi_nt_errno(status);
    at += n;
    len -= n;
  }
  return WASI_ESUCCESS;
}

void wtp__wasi_yield(void) { SwitchToThread(); }
