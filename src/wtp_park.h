/* wtp_park.h: spin-then-park on a 32-bit word, between the pool core
 * (wtp_pool.c) and the OS wait interface (wtp_wait.h).
 *
 * What this layer adds to a bare __wtp_wait:
 *
 * 1. Bounded slices. A Node worker blocked in C cannot be terminated (see
 *    FINDINGS: worker.terminate() never resolves while a worker sits in an
 *    untimed futex wait). So no wait here lasts longer than one slice; between
 *    slices the embedder's interrupted() callback is polled and may end the
 *    wait.
 *
 * 2. Wake skipping. A process-wide table of parked-waiter counters, hashed by
 *    address, lets __wtp_unpark_one/all skip the wake system call when no
 *    thread can be blocked on the word (the common case: a spawner bumps the
 *    generation with nobody waiting on it).
 *
 * 3. Spinning, only when it can pay. A waiter first re-reads the word a
 *    bounded number of times with a cpu-relax instruction between reads, but
 *    only while fewer than ncpus-1 threads of the process spin, so a spinner
 *    never takes the last CPU from the thread that would change the word.
 *
 * Internal to the package: nothing here is exported by the addon.
 */
#ifndef WTP_PARK_H
#define WTP_PARK_H

#include <stdint.h>

#include "wtp.h" /* wtp_interrupted_cb */

#ifdef __cplusplus
extern "C" {
#endif

/* Longest single blocking wait, in milliseconds.
 *
 * Two bounds meet here:
 * - latency: worker.terminate() must resolve within 100 ms. A worker parked
 *   in C notices its termination only when a slice ends and the binding's
 *   interrupted() says so; then it unwinds (serve retires its slot and
 *   returns) and Node finishes tearing the worker down. A 40 ms slice leaves
 *   60 ms of that budget for the unwinding and the teardown, and the slice's
 *   worst case (a full 40 ms) still fits with room for a late timer.
 * - idle cost: an idle pool of 64 parked workers must cost < 1% of one core.
 *   Each slice end is a timer expiry, a context switch in and out and one
 *   interrupted() poll. Measured on the project's 2-vCPU VM
 *   (test/c/bench_idle.c, `make -C test/c idle`): 64 threads parked in
 *   40 ms slices use about 0.3-0.5% of one core (1600 wake-ups/s at about
 *   2-3 us each). 20 ms slices would double that, close to the budget;
 *   80 ms would break the terminate bound.
 */
#ifndef WTP_PARK_SLICE_MS
#define WTP_PARK_SLICE_MS 40
#endif

/* Re-reads of the word before a waiter parks, each followed by one
 * cpu-relax instruction (x86 pause, arm64 yield).
 *
 * Why this number: a blocking wake round trip costs about 43 us on this
 * VM when the two threads are on different CPUs (FINDINGS), and a spin that
 * catches the change hands off in well under 1 us. But a spin that does not
 * catch it is pure loss, and when the waker needs the spinner's CPU it is
 * worse than loss. So the spin should cover the short handoffs (a spawner
 * assigning a slot a worker is about to park on, a thread finishing while a
 * spawner looks for a slot) and give up long before it costs what a park
 * costs. A pause takes about 30-40 ns on current x86 (measured here: 30 ns
 * on the AMD EPYC VM; Skylake and later Intel parts are ~140 cycles), so
 * 200 relaxes are 6-8 us: a fifth of one blocking round trip. On parts with
 * a short pause (older Intel, arm64 yield) the spin is shorter, never
 * longer. test/c/test_threads.c prints the handoff latency with the spin
 * off and on (`make -C test/c check`, "handoff latency").
 */
#ifndef WTP_PARK_SPIN_LIMIT
#define WTP_PARK_SPIN_LIMIT 200
#endif

/* Upper bound of concurrent spinners: ncpus - 1 (0 on one CPU), read once
 * (sysconf / GetSystemInfo). Spinning with every CPU busy only delays the
 * thread the spinner waits for, which FINDINGS measured at ~100 us a
 * handoff when both share one CPU. This cap can be lowered (never raised)
 * at build time; 0 disables spinning. */
#ifndef WTP_PARK_MAX_SPINNERS
#define WTP_PARK_MAX_SPINNERS 64
#endif

/* Parked-waiter counter buckets (a power of two). 256 cache lines = 16 KiB
 * of static memory. A collision only costs a wake system call that finds
 * nobody, never a lost wake-up. */
#ifndef WTP_PARK_BUCKETS
#define WTP_PARK_BUCKETS 256
#endif

enum wtp_park_result {
  WTP_PARK_CHANGED = 0,     /* the value differed, or a wake (maybe spurious)
                               arrived: the caller re-reads the word */
  WTP_PARK_TIMEOUT = 1,     /* deadline_ns passed with the value unchanged */
  WTP_PARK_INTERRUPTED = 2  /* interrupted() returned nonzero between slices */
};

/* Waits while *addr == expected, until the monotonic clock (__wtp_now_ns)
 * reaches deadline_ns (UINT64_MAX: never). Blocks in slices of at most
 * WTP_PARK_SLICE_MS; calls interrupted(ctx), if not NULL, after each slice
 * that ended without a change and before the deadline.
 *
 * The caller must make every change of *addr that a waiter waits for with a
 * seq_cst atomic write (store, RMW) before calling __wtp_unpark_*: that is
 * the waker's half of the invariant in wtp_park.c. */
int __wtp_park(int32_t* addr, int32_t expected, uint64_t deadline_ns,
               wtp_interrupted_cb interrupted, void* ctx);

/* Wakes one / every thread parked on addr; no system call at all when the
 * counter of addr's bucket is 0. */
void __wtp_unpark_one(int32_t* addr);
void __wtp_unpark_all(int32_t* addr);

/* Tests and benchmarks only: override the spin limit (-1 restores the
 * default). Not thread-safe against concurrent parks' choice of limit, but
 * any value read is a valid limit. */
void __wtp_park_set_spin_limit(int limit);

#ifdef __cplusplus
}
#endif
#endif /* WTP_PARK_H */
