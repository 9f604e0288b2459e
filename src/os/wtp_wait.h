/* wtp_wait.h: the OS wait/wake interface, one implementation per platform.
 *
 * The room: src/os/ owns the OS's side of a wait: a monotonic clock, a wait on
 * a 32-bit word with a deadline, wake one, wake all; one file per OS behind
 * this contract. It includes the C library and the OS's headers only.
 *
 *   wait_linux.c     futex(2), FUTEX_WAIT_BITSET with an absolute
 *                    CLOCK_MONOTONIC deadline, process-private
 *   wait_darwin.c    os_sync_wait_on_address (macOS 14.4+) or __ulock_wait
 *   wait_windows.c   WaitOnAddress / WakeByAddressSingle / WakeByAddressAll
 *   wait_portable.c  a fixed table of mutex + condition variable buckets
 *                    hashed by address (any POSIX system)
 *
 * binding.gyp and test/c/Makefile pick exactly one of them. Each also
 * answers wtp__os_cpu_wait_permille (below), the one scheduler signal the
 * park layer's spin policy reads: Linux from the kernel's runnable count,
 * macOS from the load average, Windows and the portable file "unknown".
 *
 * These waits see only each other: they never wake, nor are woken by, a
 * JavaScript Atomics.wait / Atomics.notify on the same word (V8 keeps its own
 * waiter lists). See WTP_H_IMPL in wtp.h.
 */
#ifndef WTP_WAIT_H
#define WTP_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* Every file of the core reads and writes the buffer's int32_t words (and
 * the OS waits re-check them) through casts to _Atomic int32_t*. That is
 * sound only where _Atomic int32_t is a lock-free int32_t of the same size
 * and alignment (the argument: wtp_park.c, "Atomics on plain int32_t
 * words"); these assertions make a target where it is not fail to build.
 * ATOMIC_INT_LOCK_FREE speaks of int, hence the size check on int. */
_Static_assert(sizeof(_Atomic int32_t) == sizeof(int32_t),
               "_Atomic int32_t must have int32_t's size");
_Static_assert(_Alignof(_Atomic int32_t) == _Alignof(int32_t),
               "_Atomic int32_t must have int32_t's alignment");
_Static_assert(sizeof(int) == sizeof(int32_t) && ATOMIC_INT_LOCK_FREE == 2,
               "32-bit atomics must be lock-free");

/* Monotonic clock, nanoseconds from an arbitrary origin. Defined once, in
 * wtp_park.c, on the clock each platform's wait measures its deadline on:
 * CLOCK_MONOTONIC (the futex's absolute deadline, the portable condition
 * variable's clock), CLOCK_UPTIME_RAW on macOS (mach_absolute_time, the
 * os_sync timeout's clock), QueryPerformanceCounter on Windows. */
uint64_t wtp__now_ns(void);

/* The address hash of every table keyed by a word's address (the park
 * layer's waiter counters, the portable wait's buckets): Fibonacci hashing.
 * The words are 4-byte aligned and slot state words sit 32 bytes apart, so
 * the two low bits are dropped and the multiply spreads the rest; the top
 * 24 bits of the product are returned, so a caller masks the low bits of
 * the result for any table of up to 2^24 entries. */
static inline uint32_t wtp__hash_word(const void* addr) {
  uint64_t x = (uint64_t)(uintptr_t)addr >> 2;
  x *= UINT64_C(0x9E3779B97F4A7C15);
  return (uint32_t)(x >> 40);
}

/* Blocks while *addr == expected, until woken or until the monotonic clock
 * reaches deadline_ns (UINT64_MAX: no deadline).
 *
 * Contract:
 * - returns at once (true) if *addr != expected when the kernel checks it;
 * - returns false only when the deadline has passed;
 * - returns true on a wake, and may return true spuriously: the caller
 *   always re-reads the word;
 * - an interrupted system call (EINTR) is retried against the same absolute
 *   deadline, so signals neither shorten nor stretch the wait. */
int wtp__wait(int32_t* addr, int32_t expected, uint64_t deadline_ns);

/* Wakes at most one / every thread blocked in wtp__wait on addr. */
void wtp__wake_one(int32_t* addr);
void wtp__wake_all(int32_t* addr);

/* How oversubscribed the CPUs are: the share (per mille, 0..1000) of the
 * runnable threads that find no CPU, (runnable - cpus) / runnable when
 * there are more runnable threads than CPUs, else 0; -1 when the OS does
 * not say (the caller keeps what it knew, or decides without it).
 *
 *   Linux    the kernel's count of runnable tasks right now (the fourth
 *            field of /proc/loadavg) against the online CPUs: one noisy
 *            sample, which the caller averages
 *   macOS    the same from the 1-minute load average (slower to follow)
 *   Windows, portable   -1 (no cheap signal)
 *
 * Costs a few system calls (an open, a read, a close on Linux): the park
 * layer calls it at most once per WTP_PARK_SAMPLE_MS in the process. */
int wtp__os_cpu_wait_permille(void);

#endif /* WTP_WAIT_H */
