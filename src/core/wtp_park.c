/* wtp_park.c: spin-then-park with wake skipping. See wtp_park.h.
 *
 * ## Atomics on plain int32_t words
 *
 * Callers pass int32_t* into a SharedArrayBuffer (or into ordinary memory in
 * the C tests) and this file accesses them through _Atomic int32_t*. C11 does
 * not promise that _Atomic int32_t has the size, alignment and representation
 * of int32_t, but every compiler and target we build for (gcc, clang and
 * MSVC on x86, x86-64, arm64, with 4-byte aligned words) implements
 * _Atomic int32_t as a plain, lock-free 32-bit integer accessed with the
 * native atomic instructions; that is the same assumption libuv and V8 make
 * about shared 32-bit words, and the one JavaScript's Atomics rely on over
 * the very same memory. wtp_wait.h asserts at compile time the size,
 * alignment and lock-freedom this relies on, for every file that casts.
 *
 * ## The parked-waiter counters and the lost wake-up
 *
 * parked[h(addr)] counts threads that are between "announce" and "gone" in
 * the waiter's sequence below. It lives in static memory of this process,
 * never in the shared buffer: JavaScript can write any value into the buffer,
 * and a corrupted counter that read 0 while a thread sleeps would lose its
 * wake-up for good.
 *
 *   waiter                                  waker
 *   W1 fetch_add(parked[h], 1)  seq_cst     K1 change *addr         seq_cst
 *   W2 load(*addr) == expected? seq_cst     K2 load(parked[h])      seq_cst
 *   W3 sleep while *addr == expected        K3 if nonzero: wake syscall
 *      (checked again by the OS under its
 *       own lock against concurrent wakes)
 *   W4 fetch_sub(parked[h], 1)  relaxed
 *
 * Invariant (Dekker): W1, W2, K1, K2 are all seq_cst, so they lie in one
 * total order S consistent with program order. If K2 reads a count that does
 * not include W1, then K2 precedes W1 in S, so K1 precedes W2, and W2 reads
 * the changed value: the waiter does not sleep. Otherwise the waker makes the
 * system call, and the OS's own check-and-sleep (futex, WaitOnAddress,
 * __ulock, or the portable bucket mutex) orders W3 against K3, so the waiter
 * either sees the change or is woken. Either way no wake-up is lost.
 *
 * W4 is relaxed: a decrement seen late only makes a waker issue one wake
 * that finds nobody; as an RMW it never loses another thread's increment.
 *
 * Several addresses share a bucket (the table is small and hashed), so a
 * count is "threads parked on some word of this bucket": a collision costs a
 * spurious system call, never a missed one.
 *
 * ## Stopping a waiter (the embedder's stop flag in the same pairing)
 *
 * An embedder that wants a waiter to leave (a Worker being terminated, the
 * process exiting: the wait tokens of wtp_interrupt.c, which the binding
 * uses) cannot rely on a wake alone: a wake that
 * arrives while the waiter spins, or between W2 and W3, finds nobody in the
 * kernel and is lost, and the word, unchanged, lets W3 sleep to the slice
 * end. So the stop is a flag plus a word change, in the same order as K1/K2:
 *
 *   waiter                                  stopper
 *   W1  fetch_add(parked[h], 1) seq_cst     S1  store(stop, 1)        seq_cst
 *   W2  load(*addr) == expected seq_cst     K1  a seq_cst change of *addr
 *   W2' interrupted(ctx, 0): load(stop)         the waiter tolerates (retire
 *       seq_cst, then W3 as above                its slot; bump generation)
 *                                           K2, K3 as above
 *
 * If W2' misses S1, then W2' precedes S1 in S, so W2 precedes K1: the word
 * changes after the waiter read it, and the argument above (K2 sees W1, the
 * OS orders W3 against K3) makes the waiter see the change or be woken. A
 * waiter still spinning (before W1) sees the change in its spin. Either way
 * it returns at once; the caller re-reads and parks again, and that park's
 * first check (before it spins) or its W2' sees S1. So a stop never waits
 * for a slice end, nor for a spin.
 *
 * ## Spinning
 *
 * Before announcing itself, a waiter may spin: re-read the word with a
 * cpu-relax between reads. It only does so after taking one of
 * max_spinners tickets (ncpus - 1), so spinners never hold every CPU while
 * a thread the pool cannot count (the owner's guest thread, another
 * process) waits for one. How long it spins is decided per wait from
 * evidence (wtp__spin_decide), in this order:
 *
 * 1. Nobody will change the word soon: a spawner awaiting a slot while no
 *    guest thread is assigned (WTP_PARK_AWAITS_FINISH with running == 0)
 *    does not spin; the slot it awaits is held by something that is not
 *    running (another spawner's claim, a retiring worker).
 * 2. Our own demand: the spinners (this one included) and the guest
 *    threads assigned and not yet done want a CPU each, and for a worker
 *    awaiting a spawn (WTP_PARK_AWAITS_ANY) so do the threads parked here:
 *    the spawns that end its wait come in a wave that wakes them. While
 *    the demand exceeds the CPUs, a spin takes a CPU from one of our own
 *    threads: no spin. A spinner re-reads the demand every SPIN_RECHECK
 *    reads and stops when it exceeds the CPUs (a wave's threads assigned
 *    meanwhile). On 2 CPUs: a spawner awaiting the one running thread
 *    spins (1 + 1), and so does the worker that finished it, awaiting the
 *    next spawn while the spawner is woken (1 + 1 parked); a wave's last
 *    finisher, with the wave's other workers parked, does not (measured:
 *    it spun for the next wave and caught 70% of the time, but the warm
 *    14,000-thread call took 215 against 169 ms of CPU).
 * 3. The word's record (history[], below): a word whose last spins ran
 *    out (score <= -WTP_PARK_SCORE_GIVE_UP) spins only on every
 *    WTP_PARK_PROBE_EVERY-th wait; otherwise the spin lasts twice the
 *    word's typical catch plus WTP_PARK_SHORT_SPIN_NS, at most
 *    WTP_PARK_LONG_SPIN_NS.
 * 4. The machine: while, on average, at least WTP_PARK_CONTENDED_PERMILLE
 *    of the machine's runnable threads find no CPU (the OS's count,
 *    wtp__os_cpu_wait_permille, sampled once per WTP_PARK_SAMPLE_MS in the
 *    process and averaged), other work holds the CPUs: a failed spin takes
 *    a time slice someone needs. Then a word spins only while its record
 *    is not negative (at least one catch in WTP_PARK_SCORE_CATCH + 1
 *    recently; else on probes only), at most WTP_PARK_CONTENDED_SPIN_NS. (Not the thread's own
 *    run delay: on a virtual machine it counts the wake-up of a halted
 *    virtual CPU, and an idle machine whose pool parks looked
 *    oversubscribed.)
 *
 * None of this touches the lost wake-up argument above: a spin only
 * decides whether the waiter returns before W1; every input is a heuristic
 * read with relaxed order, and any value of any of them yields some valid
 * limit (the decision clamps them). The record lives in this process's
 * memory, never in the shared buffer, so a hostile buffer can at worst
 * make spins run out (bounded by WTP_PARK_LONG_SPIN_NS per wait).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "wtp_park.h"

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../os/wtp_wait.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <time.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

#define SLICE_NS ((uint64_t)WTP_PARK_SLICE_MS * 1000000u)

#if defined(_MSC_VER) && !defined(__clang__)
#define CACHE_ALIGNED __declspec(align(64))
#else
#define CACHE_ALIGNED __attribute__((aligned(64)))
#endif

/* One counter per cache line: waiters on unrelated words (each pool slot's
 * state word, the generation word) then never bounce each other's line. */
typedef struct CACHE_ALIGNED bucket {
  _Atomic int32_t parked;
} bucket_t;

static bucket_t buckets[WTP_PARK_BUCKETS];

/* Spinner tickets in use, and the cap. spinners is a heuristic gate: it
 * orders no other memory, so relaxed RMWs suffice (an RMW never loses an
 * update, which is all the cap needs). max_spinners is -1 until first use;
 * a racing first use computes the same value twice, so relaxed suffices. */
static _Atomic int spinners;
static _Atomic int max_spinners = -1;
static _Atomic int cpu_count = -1; /* online_cpus(), cached; as max_spinners */
/* Guest threads of the process assigned and not yet done: wtp_spawn counts
 * one just before it assigns a slot, and whichever RMW takes the slot out of
 * ASSIGNED/RUNNING uncounts it (finish, release, retire: see running_left in
 * wtp_pool.c), so the count is exact on every protocol path. Like spinners
 * a heuristic input of the spin policy, ordering nothing: relaxed. */
static _Atomic int running;
/* Threads of this process inside wtp__park past W1 and before W4: parked
 * (or about to park) on any word. Incremented at W1, decremented at W4.
 * A heuristic input of the spin policy like running, ordering nothing:
 * relaxed RMWs (never lose an update); a stale read only changes one
 * decision. */
static _Atomic int parked_total;
/* -1: the policy decides. Written only by tests; relaxed (any value read
 * is a valid limit). */
static _Atomic int spin_limit_override = -1;

/* The spin record of the words of one bucket (hashed by address like the
 * parked counters, in its own table so that recording a spin never touches
 * the line a waker reads at K2). Written by the waiters of those words after
 * each spin, read by the next waiters' decisions: relaxed loads, stores and
 * RMWs, because the record orders nothing (the decision is a heuristic, and
 * the lost wake-up argument does not involve it); two waiters recording at
 * once may lose one update to score or typical, which only shifts one later
 * spin's length. Words sharing a bucket share a record: a collision mixes
 * two words' histories, never more than that. Any value read is clamped by
 * wtp__spin_decide, so even a torn-by-design history is a valid input. */
typedef struct CACHE_ALIGNED spin_record {
  _Atomic int32_t score;   /* catches - misses, in [-SCORE_MAX, SCORE_MAX] */
  _Atomic int32_t typical; /* reads a catch took, moving average; 0: none */
  _Atomic uint32_t waits;  /* decisions on the bucket (probe timing) */
} spin_record_t;

static spin_record_t history[WTP_PARK_BUCKETS];

/* The machine's oversubscription (wtp__os_cpu_wait_permille), averaged over
 * samples; -1 until a sample says something. next_sample_ns: the earliest
 * time another sample may be taken; the waiter whose CAS moves it takes the
 * sample, so at most one sample per WTP_PARK_SAMPLE_MS in the process.
 * Both relaxed: heuristic inputs ordering nothing; a lost average update
 * only delays the next change of the answer by one sample. */
static _Atomic int cpu_wait_permille = -1;
static _Atomic uint64_t next_sample_ns;
/* -2: sample the OS; else the signal tests impose (wtp__park_set_cpu_wait).
 * Written only by tests; relaxed like the signal itself. */
static _Atomic int cpu_wait_forced = -2;

#define SAMPLE_NS ((uint64_t)WTP_PARK_SAMPLE_MS * 1000000u)
/* A spinner re-reads the demand (rule 2) every SPIN_RECHECK reads. */
#define SPIN_RECHECK 64

static inline _Atomic int32_t* as_atomic(int32_t* addr) {
  return (_Atomic int32_t*)addr; /* see "Atomics on plain int32_t words" */
}

static inline bucket_t* bucket_of(const void* addr) {
  return &buckets[wtp__hash_word(addr) & (WTP_PARK_BUCKETS - 1)];
}

/* The one monotonic clock (see wtp_wait.h for why each platform's). */
#if defined(_WIN32)
/* Ticks per second of QueryPerformanceCounter; fixed at boot. A racing
 * first use writes the same value, so relaxed suffices. */
static _Atomic int64_t qpc_frequency;

uint64_t wtp__now_ns(void) {
  int64_t f = atomic_load_explicit(&qpc_frequency, memory_order_relaxed);
  if (f == 0) {
    LARGE_INTEGER li;
    QueryPerformanceFrequency(&li); /* never fails on XP and later */
    f = li.QuadPart;
    atomic_store_explicit(&qpc_frequency, f, memory_order_relaxed);
  }
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  uint64_t ticks = (uint64_t)c.QuadPart, freq = (uint64_t)f;
  /* Split to avoid overflowing ticks * 1e9. */
  return ticks / freq * 1000000000u + ticks % freq * 1000000000u / freq;
}
#elif defined(__APPLE__)
uint64_t wtp__now_ns(void) { return clock_gettime_nsec_np(CLOCK_UPTIME_RAW); }
#else
uint64_t wtp__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static inline void cpu_relax(void) {
#if defined(_MSC_VER) && !defined(__clang__)
  YieldProcessor();
#elif defined(__i386__) || defined(__x86_64__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  /* No relax instruction: a compiler barrier keeps the load in the loop. */
  __asm__ __volatile__("" ::: "memory");
#endif
}

static int online_cpus(void) {
#if defined(_WIN32)
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return (int)info.dwNumberOfProcessors;
#elif defined(__linux__)
  /* The CPUs this process may run on (taskset, cgroup cpusets), which can
   * be fewer than the machine's; sysconf if that fails. */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 && n < INT_MAX ? (int)n : 1;
#else
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 && n < INT_MAX ? (int)n : 1;
#endif
}

static int cpus(void) {
  int n = atomic_load_explicit(&cpu_count, memory_order_relaxed);
  if (n < 0) {
    n = online_cpus();
    atomic_store_explicit(&cpu_count, n, memory_order_relaxed);
  }
  return n;
}

/* Tickets: at most ncpus - 1 threads spin at once, so one CPU is always left
 * to the thread that would change the word. */
static int spinner_cap(void) {
  int cap = atomic_load_explicit(&max_spinners, memory_order_relaxed);
  if (cap < 0) {
    cap = cpus() - 1;
    if (cap < 0) cap = 0;
    if (cap > WTP_PARK_MAX_SPINNERS) cap = WTP_PARK_MAX_SPINNERS;
    atomic_store_explicit(&max_spinners, cap, memory_order_relaxed);
  }
  return cap;
}

void wtp__park_note_running(int delta) {
  atomic_fetch_add_explicit(&running, delta, memory_order_relaxed);
}

int wtp__park_running(void) {
  return atomic_load_explicit(&running, memory_order_relaxed);
}

void wtp__park_set_spin_limit(int limit) {
  atomic_store_explicit(&spin_limit_override, limit < 0 ? -1 : limit,
                        memory_order_relaxed);
}

static spin_record_t* record_of(const void* addr) {
  return &history[wtp__hash_word(addr) & (WTP_PARK_BUCKETS - 1)];
}

void wtp__park_spin_record(const int32_t* addr, int* score, int* typical) {
  spin_record_t* rec = record_of(addr);
  *score = atomic_load_explicit(&rec->score, memory_order_relaxed);
  *typical = atomic_load_explicit(&rec->typical, memory_order_relaxed);
}

void wtp__park_set_cpu_wait(int permille) {
  atomic_store_explicit(&cpu_wait_forced, permille < -1 ? -2 : permille,
                        memory_order_relaxed);
}

static int clamp(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

int wtp__spin_decide(const wtp__spin_evidence_t* e) {
  int cpus = e->cpus;
  /* Rule 1: the awaited thread's end can only come from a running thread. */
  if (e->awaits == WTP_PARK_AWAITS_FINISH && e->running <= 0) return 0;
  /* Rule 2: our own threads' demand, this spinner included. */
  if (cpus < 2 || e->spinning < 1) return 0;
  long demand = (long)e->spinning + (e->running > 0 ? e->running : 0);
  /* A worker awaiting a spawn: the spawn that ends its wait comes with the
   * others of its wave, which wake the parked threads; they want the CPUs
   * then. (A spawner awaiting a finish: the parked threads wait for it.) */
  if (e->awaits != WTP_PARK_AWAITS_FINISH && e->parked > 0) demand += e->parked;
  if (demand > cpus) return 0;
  /* Rule 3 and 4: the word's record, and the machine. A word whose record
   * is at its floor (given up; on an oversubscribed machine, any negative
   * record) spins only on every WTP_PARK_PROBE_EVERY-th wait. */
  int contended = e->cpu_wait_permille >= WTP_PARK_CONTENDED_PERMILLE;
  int score = clamp(e->score, -WTP_PARK_SCORE_MAX, WTP_PARK_SCORE_MAX);
  int floor = contended ? -1 : -WTP_PARK_SCORE_GIVE_UP;
  if (score <= floor && e->waits % WTP_PARK_PROBE_EVERY != 0) return 0;
  int typical = clamp(e->typical, 0, WTP_PARK_LONG_SPIN_NS);
  int limit = WTP_PARK_LONG_SPIN_NS;
  if (typical > 0 && 2 * typical + WTP_PARK_SHORT_SPIN_NS < limit)
    limit = 2 * typical + WTP_PARK_SHORT_SPIN_NS;
  if (contended && limit > WTP_PARK_CONTENDED_SPIN_NS)
    limit = WTP_PARK_CONTENDED_SPIN_NS;
  return limit;
}

int wtp__spin_score_after(int score, int caught) {
  score = clamp(score, -WTP_PARK_SCORE_MAX, WTP_PARK_SCORE_MAX);
  return clamp(score + (caught ? WTP_PARK_SCORE_CATCH : -1),
               -WTP_PARK_SCORE_MAX, WTP_PARK_SCORE_MAX);
}

int wtp__spin_typical_after(int typical, int caught, int ns) {
  typical = clamp(typical, 0, WTP_PARK_LONG_SPIN_NS);
  ns = clamp(ns, 1, WTP_PARK_LONG_SPIN_NS);
  /* A miss says the change takes longer than the spin that ran out: that
   * length becomes the typical figure, so a word's spin doubles (2 x typical
   * + the short spin) with each miss until it reaches the long spin. A
   * catch moves the figure a quarter of the way (the first is taken whole),
   * so one odd catch does not shorten the spin much. */
  if (!caught) return ns > typical ? ns : typical;
  return typical == 0 ? ns : typical + (ns - typical) / 4;
}

/* The averaged oversubscription signal (rule 4), refreshed by at most one
 * waiter per WTP_PARK_SAMPLE_MS. */
static int machine_cpu_wait(void) {
  int forced = atomic_load_explicit(&cpu_wait_forced, memory_order_relaxed);
  if (forced != -2) return forced;
  uint64_t now = wtp__now_ns();
  uint64_t next = atomic_load_explicit(&next_sample_ns, memory_order_relaxed);
  int avg = atomic_load_explicit(&cpu_wait_permille, memory_order_relaxed);
  if (now < next || !atomic_compare_exchange_strong_explicit(
                        &next_sample_ns, &next, now + SAMPLE_NS,
                        memory_order_relaxed, memory_order_relaxed))
    return avg;
  int sample = wtp__os_cpu_wait_permille();
  if (sample < 0) return avg;
  sample = clamp(sample, 0, 1000);
  avg = avg < 0 ? sample : (3 * avg + sample) / 4;
  atomic_store_explicit(&cpu_wait_permille, avg, memory_order_relaxed);
  return avg;
}

#ifdef WTP_PARK_STATS
/* Build-time counters (-DWTP_PARK_STATS, bench/lib/cc-addon.js's defines):
 * what the decisions were and how the spins ended; printed to stderr at
 * exit. */
#include <stdio.h>
#include <stdlib.h>
static _Atomic long stat_no_ticket, stat_none, stat_caught, stat_out, stat_cut,
    stat_short, stat_long;
static void stat_print(void) {
  fprintf(stderr,
          "SPINSTATS decided-none %ld no-ticket %ld; spun: caught %ld out "
          "%ld cut %ld (short %ld long %ld); cpu-wait %d permille\n",
          (long)stat_none, (long)stat_no_ticket, (long)stat_caught,
          (long)stat_out, (long)stat_cut, (long)stat_short, (long)stat_long,
          atomic_load_explicit(&cpu_wait_permille, memory_order_relaxed));
}
__attribute__((constructor)) static void stat_init(void) { atexit(stat_print); }
#define STAT(name) \
  atomic_fetch_add_explicit(&stat_##name, 1, memory_order_relaxed)
#else
#define STAT(name) ((void)0)
#endif

/* Rule 2 again, while spinning: whether the spinners and the guest threads
 * assigned (a wave's, assigned meanwhile) still leave this spinner a CPU. */
static int demand_fits(void) {
  int n = atomic_load_explicit(&spinners, memory_order_relaxed);
  int r = atomic_load_explicit(&running, memory_order_relaxed);
  return (long)n + (r > 0 ? r : 0) <= cpus();
}

/* How a spin ended. */
enum { SPIN_OUT = 0, SPIN_CAUGHT = 1, SPIN_CUT = 2 };

/* The policy's spin: until *word changes (SPIN_CAUGHT, *took_ns its
 * duration), limit_ns passes (SPIN_OUT), or our threads' demand exceeds the
 * CPUs (SPIN_CUT, rule 2). The clock and the demand are read every
 * SPIN_RECHECK reads. */
static int spin_for(_Atomic int32_t* word, int32_t expected, int limit_ns,
                    int* took_ns) {
  uint64_t start = wtp__now_ns();
  for (unsigned i = 1;; i++) {
    /* Relaxed: the spin only decides whether to return early; the caller
     * re-reads the word with the order its protocol needs. */
    if (atomic_load_explicit(word, memory_order_relaxed) != expected) {
      uint64_t took = wtp__now_ns() - start; /* long if preempted */
      *took_ns = took > (uint64_t)INT_MAX ? INT_MAX : (int)took;
      return SPIN_CAUGHT;
    }
    if (i % SPIN_RECHECK == 0) {
      uint64_t now = wtp__now_ns();
      if (now - start >= (uint64_t)limit_ns) return SPIN_OUT;
      if (!demand_fits()) return SPIN_CUT;
    }
    cpu_relax();
  }
}

/* The tests' fixed spin (wtp__park_set_spin_limit): reads, no clock. */
static int spin_reads(_Atomic int32_t* word, int32_t expected, int reads) {
  for (int i = 0; i < reads; i++) {
    if (atomic_load_explicit(word, memory_order_relaxed) != expected)
      return SPIN_CAUGHT; /* relaxed: as in spin_for */
    cpu_relax();
  }
  return SPIN_OUT;
}

/* The word's record after a spin that caught the change after took_ns
 * (caught) or ran out at limit_ns. */
static void record(spin_record_t* rec, int caught, int took_ns) {
  int score = atomic_load_explicit(&rec->score, memory_order_relaxed);
  atomic_store_explicit(&rec->score, wtp__spin_score_after(score, caught),
                        memory_order_relaxed);
  int typical = atomic_load_explicit(&rec->typical, memory_order_relaxed);
  atomic_store_explicit(&rec->typical,
                        wtp__spin_typical_after(typical, caught, took_ns),
                        memory_order_relaxed);
}

/* The evidence of rule 1-4 for a waiter holding a ticket, `spinning`
 * threads spinning (itself included), and the decision. */
static int decide(spin_record_t* rec, int spinning, int awaits) {
  wtp__spin_evidence_t e = {
      .cpus = cpus(),
      .spinning = spinning,
      .running = atomic_load_explicit(&running, memory_order_relaxed),
      .parked = atomic_load_explicit(&parked_total, memory_order_relaxed),
      .awaits = awaits,
      .score = atomic_load_explicit(&rec->score, memory_order_relaxed),
      .typical = atomic_load_explicit(&rec->typical, memory_order_relaxed),
      .waits = atomic_fetch_add_explicit(&rec->waits, 1, memory_order_relaxed),
      .cpu_wait_permille = machine_cpu_wait(),
  };
  return wtp__spin_decide(&e);
}

/* Returns 1 if *addr changed while spinning. Spins only with a ticket. */
static int spin(int32_t* addr, _Atomic int32_t* word, int32_t expected,
                int awaits) {
  int forced = atomic_load_explicit(&spin_limit_override, memory_order_relaxed);
  if (forced == 0) return 0;

  int cap = spinner_cap();
  int n = atomic_load_explicit(&spinners, memory_order_relaxed);
  do {
    if (n >= cap) {
      STAT(no_ticket);
      return 0;
    }
  } while (!atomic_compare_exchange_weak_explicit(
      &spinners, &n, n + 1, memory_order_relaxed, memory_order_relaxed));

  if (forced > 0) {
    int end = spin_reads(word, expected, forced);
    atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
    return end == SPIN_CAUGHT;
  }
  spin_record_t* rec = record_of(addr);
  int limit_ns = decide(rec, n + 1, awaits);
  int took_ns = 0;
  int end = limit_ns > 0 ? spin_for(word, expected, limit_ns, &took_ns) : -1;
  atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
  if (end < 0) {
    STAT(none);
    return 0;
  }
  if (limit_ns > WTP_PARK_SHORT_SPIN_NS)
    STAT(long);
  else
    STAT(short);
  if (end == SPIN_CUT) {
    STAT(cut); /* the demand grew: says nothing about the word */
    return 0;
  }
  record(rec, end == SPIN_CAUGHT, end == SPIN_CAUGHT ? took_ns : limit_ns);
  if (end == SPIN_CAUGHT)
    STAT(caught);
  else
    STAT(out);
  return end == SPIN_CAUGHT;
}

/* Whether the waiter's stop is visible while *word still holds expected:
 * the embedder's stop flag (interrupted(ctx, 0)), asked only then. Relaxed
 * word read: it only decides whether to ask; the callers say what orders. */
static int stop_visible(_Atomic int32_t* word, int32_t expected,
                        wtp_interrupted_cb interrupted, void* ctx) {
  return interrupted != NULL &&
         atomic_load_explicit(word, memory_order_relaxed) == expected &&
         interrupted(ctx, 0);
}

/* The end of the slice that starts at now, never past deadline_ns. */
static uint64_t slice_end(uint64_t now, uint64_t deadline_ns) {
  /* Slices end on a process-wide grid of the monotonic clock (multiples
   * of SLICE_NS), not at now + SLICE_NS: every parked thread of the
   * process then has the same timer expiry, which the kernel (and a
   * hypervisor's timer emulation) serves with one interrupt instead of
   * one per thread (measured: docs/design.md, "The park layer's
   * constants"). A thread's first slice is shorter than SLICE_NS; none is longer. */
  uint64_t grid = (now / SLICE_NS + 1) * SLICE_NS;
  uint64_t until = grid < deadline_ns ? grid : deadline_ns;
  return until;
}

/* W1 (see the top of the file): this waiter is about to sleep on a word of
 * bucket b. */
static void announce(bucket_t* b) {
  atomic_fetch_add_explicit(&b->parked, 1, memory_order_seq_cst);
  atomic_fetch_add_explicit(&parked_total, 1, memory_order_relaxed);
}

/* W4: relaxed, see the top of the file. */
static void withdraw(bucket_t* b) {
  atomic_fetch_sub_explicit(&b->parked, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&parked_total, 1, memory_order_relaxed);
}

/* The announced waiter's sleep, slice by slice, until *word changes, the
 * deadline passes or the waiter is stopped: a WTP_PARK_* result. */
static int sleep_slices(int32_t* addr, _Atomic int32_t* word, int32_t expected,
                        uint64_t deadline_ns, wtp_interrupted_cb interrupted,
                        void* ctx) {
  int result;
  int first = 1;
  for (;;) {
    /* W2: pairs with the waker's seq_cst change (K1) and counter read (K2). */
    if (atomic_load_explicit(word, memory_order_seq_cst) != expected) {
      result = WTP_PARK_CHANGED;
      break;
    }
    uint64_t now = wtp__now_ns();
    if (now >= deadline_ns) {
      result = WTP_PARK_TIMEOUT;
      break;
    }
    /* W2': the embedder's stop flag, read (seq_cst, by the callback) after
     * W1 and W2 and before the first sleep. See "Stopping a waiter" at the
     * top of the file. */
    if (first && interrupted != NULL && interrupted(ctx, 0)) {
      result = WTP_PARK_INTERRUPTED;
      break;
    }
    first = 0;
    uint64_t until = slice_end(now, deadline_ns);
    if (wtp__wait(addr, expected, until)) {
      /* Woken, changed, or spurious: the caller re-reads. A wake that left
       * the word as it was may be an embedder's nudge (it set its own
       * "stop" flag, then unparked the word): poll interrupted() now rather
       * than at the end of the next slice. Relaxed: only decides whether to
       * poll; a missed nudge is caught at the next slice end. */
      if (stop_visible(word, expected, interrupted, ctx)) {
        result = WTP_PARK_INTERRUPTED;
        break;
      }
      result = WTP_PARK_CHANGED;
      break;
    }
    if (until == deadline_ns) {
      result = WTP_PARK_TIMEOUT;
      break;
    }
    if (interrupted != NULL && interrupted(ctx, 1)) {
      result = WTP_PARK_INTERRUPTED;
      break;
    }
  }
  return result;
}

/* A park in steps: the stop check (stop_visible), the spin (spin), the
 * announcement (announce, W1), the sleep in slices with its change,
 * deadline and stop checks (sleep_slices), the withdrawal (withdraw, W4). */
int wtp__park(int32_t* addr, int32_t expected, uint64_t deadline_ns,
              wtp_interrupted_cb interrupted, void* ctx) {
  return wtp__park_awaiting(addr, expected, deadline_ns, interrupted, ctx,
                            WTP_PARK_AWAITS_ANY);
}

int wtp__park_awaiting(int32_t* addr, int32_t expected, uint64_t deadline_ns,
                       wtp_interrupted_cb interrupted, void* ctx,
                       enum wtp_park_awaits awaits) {
  _Atomic int32_t* word = as_atomic(addr);

  /* A waiter whose stop is already visible neither spins nor sleeps (a
   * stopped caller that re-parks after the stopper's word change would
   * otherwise spin out its limit first). Relaxed word read: it only decides
   * whether to ask; W2 and W2' (sleep_slices) are the checks that order. */
  if (stop_visible(word, expected, interrupted, ctx))
    return WTP_PARK_INTERRUPTED;

  if (spin(addr, word, expected, (int)awaits)) return WTP_PARK_CHANGED;

  bucket_t* b = bucket_of(addr);
  announce(b);
  int result =
      sleep_slices(addr, word, expected, deadline_ns, interrupted, ctx);
  withdraw(b);
  return result;
}

/* K2 + K3. The caller has made K1 (a seq_cst change of *addr). */
void wtp__unpark_one(int32_t* addr) {
  if (atomic_load_explicit(&bucket_of(addr)->parked, memory_order_seq_cst) != 0)
    wtp__wake_one(addr);
}

void wtp__unpark_all(int32_t* addr) {
  if (atomic_load_explicit(&bucket_of(addr)->parked, memory_order_seq_cst) != 0)
    wtp__wake_all(addr);
}
