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
 *    bounded number of times with a cpu-relax instruction between reads.
 *    How long is decided per wait from evidence (wtp__spin_decide): the
 *    word's own record of recent spins (did they catch the change, after
 *    how many reads), whether the party that will change it is plausibly
 *    on a CPU, our threads' demand for the CPUs, and whether the machine
 *    is oversubscribed (the OS's runnable count, wtp_wait.h).
 *
 * What each constant below is for is in docs/design.md ("The park
 * layer's constants").
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

/* Spins are measured in time, not in reads: the pause of a cpu-relax
 * instruction lasts from about 10 ns (this project's 2-vCPU Xeon) to about
 * 40 ns (Skylake-era parts), and what a spin must outlast is the awaited
 * thread's work, which is time. A spinner reads the clock every 64 reads.
 *
 * The short spin, in nanoseconds: the margin a word's spin gets over twice
 * its typical catch (so a word whose changes come within a microsecond
 * still spins about 3 us), and the spin a word without a record gets on an
 * oversubscribed machine is WTP_PARK_CONTENDED_SPIN_NS. 3 us is what 100
 * reads took on the AMD EPYC the first rule was measured on, where 100
 * reads caught nearly every cross-CPU change (docs/design.md). */
#ifndef WTP_PARK_SHORT_SPIN_NS
#define WTP_PARK_SHORT_SPIN_NS 3000
#endif

/* The longest spin, in nanoseconds: a waiter whose spin delays none of our
 * threads, on a machine that is not oversubscribed, spins at most this long:
 * long enough to catch the next thread of a loop whose threads arrive 20-50
 * us apart (the hot-handoff row), a slot-waiting spawner's running thread,
 * or the spawn that a worker's finish lets the spawner make; short enough
 * that an idle worker parks within a tenth of a millisecond. A word whose
 * recent spins caught their change sooner spins less: twice its typical
 * catch plus WTP_PARK_SHORT_SPIN_NS. */
#ifndef WTP_PARK_LONG_SPIN_NS
#define WTP_PARK_LONG_SPIN_NS 60000
#endif

/* A word's spin record (wtp__spin_decide): +WTP_PARK_SCORE_CATCH per spin
 * that caught the change, -1 per spin that ran out, clamped to
 * [-WTP_PARK_SCORE_MAX, WTP_PARK_SCORE_MAX]. So the record rises while more
 * than 1 in (WTP_PARK_SCORE_CATCH + 1) spins catch: a caught spin saves a
 * wake's latency (tens of microseconds here) and both sides' system calls,
 * a missed one costs its length in CPU and nothing in latency. At or below
 * -WTP_PARK_SCORE_GIVE_UP the word spins only on every
 * WTP_PARK_PROBE_EVERY-th wait (a probe, so that a word whose waits become
 * short again is found out). */
#ifndef WTP_PARK_SCORE_CATCH
#define WTP_PARK_SCORE_CATCH 4
#endif
#ifndef WTP_PARK_SCORE_MAX
#define WTP_PARK_SCORE_MAX 16
#endif
#ifndef WTP_PARK_SCORE_GIVE_UP
#define WTP_PARK_SCORE_GIVE_UP 8
#endif
#ifndef WTP_PARK_PROBE_EVERY
#define WTP_PARK_PROBE_EVERY 16
#endif

/* The machine counts as oversubscribed while, on average, at least this
 * share (per mille) of its runnable threads find no CPU
 * (wtp__os_cpu_wait_permille: on 2 CPUs, 3 runnable threads are 333).
 * Then a word spins only while its record is not negative (else on
 * probes, as a word given up), and at most
 * WTP_PARK_CONTENDED_SPIN_NS: enough for a handoff whose partner runs
 * (a hot handoff beside 2 busy processes: 1.9 us with a spin, 19 us
 * without), and a word whose spins fail there stops after a few. Sampled
 * at most once per WTP_PARK_SAMPLE_MS in the process, averaged (each
 * sample a quarter of the average). */
#ifndef WTP_PARK_CONTENDED_PERMILLE
#define WTP_PARK_CONTENDED_PERMILLE 250
#endif
#ifndef WTP_PARK_CONTENDED_SPIN_NS
#define WTP_PARK_CONTENDED_SPIN_NS 20000
#endif
#ifndef WTP_PARK_SAMPLE_MS
#define WTP_PARK_SAMPLE_MS 10
#endif

/* Upper bound of concurrent spinners: ncpus - 1, read once (Linux: the CPU
 * affinity mask of the first thread that parks, so taskset and cgroup
 * cpusets count; else sysconf / GetSystemInfo), so one CPU is always left
 * to a thread the pool cannot count (the owner's guest thread, the thread
 * that will change the word). This cap can be lowered (never raised) at
 * build time; 0 disables spinning.
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

/* What the waiter awaits, for the spin policy. */
enum wtp_park_awaits {
  WTP_PARK_AWAITS_ANY = 0,   /* no knowledge (a worker awaiting a spawn) */
  WTP_PARK_AWAITS_FINISH = 1 /* a guest thread's end (a spawner awaiting a
                                slot): plausible only while one is assigned */
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
/* The same, saying what the waiter awaits (wtp__park: WTP_PARK_AWAITS_ANY). */
int wtp__park_awaiting(int32_t* addr, int32_t expected, uint64_t deadline_ns,
                       wtp_interrupted_cb interrupted, void* ctx,
                       enum wtp_park_awaits awaits);

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

/* The evidence one spin decision reads (wtp_park.c gathers it; tests
 * give it synthetic values). */
typedef struct wtp__spin_evidence {
  int cpus;       /* CPUs the process may run on */
  int spinning;   /* threads spinning now, the deciding one included */
  int running;    /* guest threads assigned and not yet done (>= 0) */
  int parked;     /* threads of the process parked in this layer */
  int awaits;     /* enum wtp_park_awaits */
  int score;      /* the word's record: catches - misses, clamped */
  int typical;    /* ns a recent catch took on the word (average); 0: none */
  unsigned waits; /* the word's decisions so far (probe timing) */
  int cpu_wait_permille; /* wtp__os_cpu_wait_permille, averaged; -1 unknown */
} wtp__spin_evidence_t;

/* The spin policy: how long to spin, in ns, 0 for not at all. Pure: a
 * function of the evidence only (see "Spinning" in wtp_park.c). */
int wtp__spin_decide(const wtp__spin_evidence_t* e);

/* A word's record after one spin: caught (1) after `ns`, or ran out (0)
 * after `ns` (its limit). Pure; the park layer stores the results. */
int wtp__spin_score_after(int score, int caught);
int wtp__spin_typical_after(int typical, int caught, int ns);

/* Tests and benchmarks only: spin exactly `limit` reads (cpu-relax
 * instructions) whenever a ticket is free, without the policy or its
 * record; 0 never spins; -1 restores the policy. Any value a concurrent
 * park reads is a valid limit. */
void wtp__park_set_spin_limit(int limit);

/* Tests only: the spin record of addr's bucket (score and typical catch in
 * ns), and a fixed machine signal in place of the OS's (per mille as
 * wtp__os_cpu_wait_permille; -2 restores sampling). Relaxed, as the
 * record and the signal themselves. */
void wtp__park_spin_record(const int32_t* addr, int* score, int* typical);
void wtp__park_set_cpu_wait(int permille);

#ifdef __cplusplus
}
#endif
#endif /* WTP_PARK_H */
