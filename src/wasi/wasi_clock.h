/* wasi_clock.h: the OS layer of clocks, random bytes and yield (wasi_misc.c,
 * and poll_oneoff's deadlines in wasi_poll.c).
 *
 *   wasi_clock_posix.c     clock_gettime/clock_getres, getrandom (Linux) or
 *                          arc4random_buf, sched_yield
 *   wasi_clock_windows.c   GetSystemTimePreciseAsFileTime,
 *                          QueryPerformanceCounter, GetProcessTimes /
 *                          GetThreadTimes, RtlGenRandom, SwitchToThread
 */
#ifndef WTP_WASI_CLOCK_H
#define WTP_WASI_CLOCK_H

#include <stdint.h>

/* A WASI clock's time (ns; realtime since 1970, monotonic from an arbitrary
 * origin) and resolution (ns); WASI EINVAL for an unknown clock id. The
 * monotonic clock is the one poll_oneoff's deadlines are measured on. */
uint32_t wtp__wasi_clock_now(uint64_t id, uint64_t *ns);
uint32_t wtp__wasi_clock_res(uint64_t id, uint64_t *ns);

/* Fills [at, at + len) with random bytes from the OS's secure generator; a
 * WASI errno. */
uint32_t wtp__wasi_random(uint8_t *at, uint64_t len);

/* Gives the CPU to another ready thread, if any. */
void wtp__wasi_yield(void);

#endif /* WTP_WASI_CLOCK_H */
