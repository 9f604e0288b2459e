/* wtp_park.h: spin-then-park on a 32-bit word, between the pool core
 * (wtp_pool.c) and the OS wait interface (wtp_wait.h).
 *
 * What this layer adds to a bare wtp__wait:
 *
 * 1. Bounded slices. A runtime cannot interrupt a thread blocked in C (a
 *    Node worker in an untimed futex wait never finishes terminating), so no
 *    wait here lasts longer than one slice; between slices the embedder's
 *    interrupted() callback is polled and may end the wait.
 *
 * 2. Wake skipping. A process-wide table of parked-waiter counters, hashed by
 *    address, lets wtp__unpark_one/all skip the wake system call when no
 *    thread can be blocked on the word (the common case: a spawner bumps the
 *    generation with nobody waiting on it).
 *
 * 3. Spinning, only when it can pay. A waiter first re-reads the word a
 *    bounded number of times with a cpu-relax instruction between reads:
 *    long when a CPU is idle besides the waker's, short when two are left
 *    to the rest, not at all otherwise (see WTP_PARK_MAX_SPINNERS).
 *
 * The measurements behind each constant below are in docs/design.md ("The
 * park layer's constants") and bench/analysis.md.
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
 * A slice end is only a backstop: a stop sent through a wait token
 * (wtp_interrupt.c) ends a wait at once, whatever the slice. What remains
 * for the slice end is a termination that bypassed the embedder's hooks, for
 * which the token's backstop check runs at each slice end. So the slice
 * bounds that rare case's latency, and sets the idle cost of a parked pool
 * (each slice end is a timer expiry, a context switch in and out and that
 * check): longer slices cost less CPU when idle and stop a bypassing
 * termination later. Slices end on a process-wide grid (see wtp_park.c),
 * so the parked threads share their timer expiries. Override with
 * -DWTP_PARK_SLICE_MS=n.
 */
#ifndef WTP_PARK_SLICE_MS
#define WTP_PARK_SLICE_MS 250
#endif

/* Re-reads of the word before a waiter parks (the short spin), each
 * followed by one cpu-relax instruction (x86 pause, arm64 yield).
 *
 * The spin should catch a change made by a thread running on another CPU,
 * and give up before it costs what it can save when the thread it waits for
 * shares its CPU (then every iteration delays that thread). 100 takes nearly
 * all of the cross-CPU gain while a spin that cannot succeed costs less than
 * one same-CPU blocking handoff (test/c/bench_spin.c, `make -C test/c
 * spin`, measures both). On parts with a shorter pause the spin is shorter
 * in time, never longer.
 */
#ifndef WTP_PARK_SPIN_LIMIT
#define WTP_PARK_SPIN_LIMIT 100
#endif

/* A long spin, for a waiter whose spin delays nobody: while the spinners,
 * the guest threads assigned and not yet finished (counted by wtp_spawn and
 * wtp_serve) and the other threads of the process parked here (the next
 * wave's spawns wake them, and they need CPUs too) leave a CPU free besides
 * the one the waker needs. On 2 CPUs: a lone waiter only. Long enough to
 * catch the next thread of a join loop and the next wave's first spawn,
 * short enough that an idle worker parks within a tenth of a millisecond.
 */
#ifndef WTP_PARK_IDLE_SPIN_LIMIT
#define WTP_PARK_IDLE_SPIN_LIMIT 2000
#endif

/* Upper bound of concurrent spinners: ncpus - 1, read once (Linux: the CPU
 * affinity mask of the first thread that parks, so taskset and cgroup
 * cpusets count; else sysconf / GetSystemInfo). A waiter with a ticket then
 * spins WTP_PARK_IDLE_SPIN_LIMIT when a CPU is idle besides the waker's (see
 * above), WTP_PARK_SPIN_LIMIT when the other spinners leave two CPUs free,
 * and not at all otherwise: on two CPUs, only the long spin of a waiter
 * with nothing else running.
 *
 * The short spin needs two CPUs left free because it helps only while the
 * thread it waits for runs on another CPU, and in a guest there is nearly
 * always a third runnable party (the joining main thread, another worker
 * finishing); spinning with every CPU busy only delays the thread the
 * spinner waits for. This cap can be lowered (never raised) at build time;
 * 0 disables spinning.
 */
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
  WTP_PARK_CHANGED = 0,    /* the value differed, or a wake (maybe spurious)
                               arrived: the caller re-reads the word */
  WTP_PARK_TIMEOUT = 1,    /* deadline_ns passed with the value unchanged */
  WTP_PARK_INTERRUPTED = 2 /* interrupted() returned nonzero between slices */
};

/* Waits while *addr == expected, until the monotonic clock (wtp__now_ns)
 * reaches deadline_ns (UINT64_MAX: never). Blocks in slices of at most
 * WTP_PARK_SLICE_MS; calls interrupted(ctx), if not NULL: with slice_end 0
 * on entry when the word is unchanged (before any spin), once after
 * announcing itself and finding the word unchanged, before it first sleeps,
 * and after a wake that left the word unchanged; with
 * slice_end 1 after each slice that ended without a change and before the
 * deadline. So an embedder stops a waiter at once by storing its flag
 * (seq_cst, read seq_cst by interrupted()), then making a seq_cst change of
 * *addr the waiter's caller tolerates and wtp__unpark_all(addr): see
 * "Stopping a waiter" in wtp_park.c for why the word must change (a bare
 * wake can be lost).
 *
 * The caller must make every change of *addr that a waiter waits for with a
 * seq_cst atomic write (store, RMW) before calling wtp__unpark_*: that is
 * the waker's half of the invariant in wtp_park.c. */
int wtp__park(int32_t* addr, int32_t expected, uint64_t deadline_ns,
              wtp_interrupted_cb interrupted, void* ctx);

/* Wakes one / every thread parked on addr; no system call at all when the
 * counter of addr's bucket is 0. */
void wtp__unpark_one(int32_t* addr);
void wtp__unpark_all(int32_t* addr);

/* The count of guest threads assigned and not yet done (a spin heuristic
 * input): +1 just before wtp_spawn's CAS CLAIMED -> ASSIGNED (-1 if it
 * fails), -1 from the one RMW that takes the slot out of ASSIGNED/RUNNING
 * (finish, release, retire). Exact on every protocol path; only hostile
 * plain stores to a state word can skew it (readers clamp it at 0). */
void wtp__park_note_running(int delta);
/* The count itself (relaxed), for tests: the binding exports it as
 * internal.runningThreads(). */
int wtp__park_running(void);

/* Tests and benchmarks only: override the spin limit (-1 restores
 * WTP_PARK_SPIN_LIMIT). Any value a concurrent park reads is a valid
 * limit. */
void wtp__park_set_spin_limit(int limit);

#ifdef __cplusplus
}
#endif
#endif /* WTP_PARK_H */
