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
 *   returns) and Node tears the worker down. A slice of at most 50 ms leaves
 *   half of the budget for the unwinding and the teardown.
 * - idle cost: an idle pool of 64 parked workers must cost < 1% of a core.
 *   Every slice end is a timer expiry plus a context switch in and out plus
 *   one interrupted() poll. On the project's 2-vCPU VM (a Firecracker
 *   guest) that costs 8-11 us of CPU per slice end, and a bare C loop of
 *   timed-out futex waits costs the same (9-15 us), so it is the VM's floor,
 *   not this layer's. `make -C test/c idle` (64 threads in wtp_serve, CPU
 *   time of the process over 3 s), at load average 11-20 from other builds:
 *
 *     slice          20 ms    40 ms      50 ms      80 ms
 *     idle cost      2.4-3.2% 1.3-1.5%   1.06-1.2%  0.75-0.9% of a core
 *     (unaligned slices, same load: 40 ms 2.0%, 50 ms 1.5%)
 *
 * 50 ms is the cheapest slice that keeps the terminate bound with a margin
 * of half the budget; on this loaded VM it sits just above the 1% idle
 * target (an 80 ms slice would meet it but leave 20 ms for teardown).
 * Slices end on a process-wide grid (see wtp_park.c), which cut the idle
 * cost by about a third. Override with -DWTP_PARK_SLICE_MS=n.
 */
#ifndef WTP_PARK_SLICE_MS
#define WTP_PARK_SLICE_MS 50
#endif

/* Re-reads of the word before a waiter parks, each followed by one
 * cpu-relax instruction (x86 pause, arm64 yield).
 *
 * Why this number: the spin should catch a change made by a thread running
 * on another CPU, and give up before it costs what it can save when the
 * thread it waits for shares its CPU (then every spin iteration delays that
 * thread). Measured with test/c/bench_spin.c (`make -C test/c spin`:
 * ping-pong through __wtp_park/__wtp_unpark_one, round trip = two
 * handoffs, threads pinned to different CPUs / the same CPU / unpinned,
 * 2-vCPU AMD EPYC VM where one pause is ~30 ns, load average 10-20 from
 * other builds), two runs:
 *
 *   spin limit      0      50     100     150     200    400     2000
 *   other CPU   43-75    3-16 1.3-1.9 0.8-0.9 0.8-0.9     ~1      1-3
 *   same CPU     7-22      11   14-15   17-18   19-21  30-33  126-220
 *   unpinned       15    7-13    7-16    2-18    1-21   5-31    4-198
 *   (us per round trip)
 *
 * (Runs at load average ~20 were far noisier: the pinned peer itself waits
 * for its CPU, and then no short spin catches it.)
 *
 * 100 takes nearly all of the cross-CPU gain (two blocking wakes of ~20-40
 * us each become ~1 us) while a spin that cannot succeed costs ~3 us
 * (100 x ~30 ns), less than one same-CPU blocking handoff (~4-8 us): the
 * worst case stays within 2x, the good case gains ~20x. Longer spins only
 * add to the same-CPU loss. On parts with a shorter pause (older Intel,
 * arm64 yield) the spin is shorter in time, never longer.
 */
#ifndef WTP_PARK_SPIN_LIMIT
#define WTP_PARK_SPIN_LIMIT 100
#endif

/* Upper bound of concurrent spinners: ncpus - 1 (0 on one CPU), read once
 * (Linux: the CPU affinity mask of the first thread that parks, so taskset
 * and cgroup cpusets count; else sysconf / GetSystemInfo). Spinning with
 * every CPU busy only delays the thread the spinner waits for, which FINDINGS measured at ~100 us a
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
 * that ended without a change and before the deadline, and after a wake
 * that left the word unchanged. So an embedder can stop a parked thread at
 * once: make its interrupted() answer yes, then __wtp_unpark_all(addr). (If
 * the wake finds the thread not yet parked it is skipped, and the thread
 * sees the flag at its next slice end instead.)
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

/* Tests and benchmarks only: override the spin limit (-1 restores
 * WTP_PARK_SPIN_LIMIT). Any value a concurrent park reads is a valid
 * limit. */
void __wtp_park_set_spin_limit(int limit);

#ifdef __cplusplus
}
#endif
#endif /* WTP_PARK_H */
