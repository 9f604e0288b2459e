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
 * max_spinners tickets (ncpus - 1, from the CPU affinity of the first thread
 * that parks), so spinners never hold every CPU while the thread that would
 * change the word waits for one. How long it spins depends on who else
 * holds a CPU (choose_spin_limit): the other spinners and the guest
 * threads assigned and not yet finished, which wtp_spawn and wtp_serve
 * count, and the other threads of the process parked here (a wave's other
 * workers, waiting to be woken for the next wave: they need the CPU a long
 * spin would hold). None of these counts can see threads
 * the pool does not know (the owner's guest thread, other processes), so
 * the long spin is bounded too (WTP_PARK_IDLE_SPIN_LIMIT).
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
 * a heuristic input of spin(), ordering nothing: relaxed. */
static _Atomic int running;
/* Threads of this process inside wtp__park past W1 and before W4: parked
 * (or about to park) on any word. Incremented at W1, decremented at W4.
 * A heuristic input of choose_spin_limit like running, ordering nothing:
 * relaxed RMWs (never lose an update); a stale read only picks the other
 * spin length once. */
static _Atomic int parked_total;
/* -1: WTP_PARK_SPIN_LIMIT. Written only by tests; relaxed (any value read
 * is a valid limit). */
static _Atomic int spin_limit_override = -1;

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

/* The spin limit for a waiter that holds a ticket, when others_spinning
 * other threads spin (see "Spinning" above and wtp_park.h):
 * - WTP_PARK_IDLE_SPIN_LIMIT while the spinners, the threads running guest
 *   code and the other threads of the process parked in this file (which
 *   the next wave's spawns wake first) leave a CPU free besides the
 *   waker's: nobody is delayed by the spin, and a long one catches the next
 *   thread of a join loop. The parked ones count because a wave's last
 *   finisher that spun long held the CPU the next wave's woken workers
 *   needed (measured: docs/design.md, "The park layer's constants");
 * - WTP_PARK_SPIN_LIMIT while at least two CPUs are left to the rest;
 * - no spin otherwise. */
static int choose_spin_limit(int others_spinning) {
  int n = cpus();
  /* A count driven below 0 (a slot served without wtp_spawn assigning it,
   * in a hostile buffer) counts as 0. */
  int assigned = atomic_load_explicit(&running, memory_order_relaxed);
  int busy = others_spinning + (assigned > 0 ? assigned : 0);
  /* The parked threads of the process count as CPU demand too: the next
   * wave wakes them. (On 2 CPUs: a lone waiter only.) */
  int parked = atomic_load_explicit(&parked_total, memory_order_relaxed);
  if (busy + (parked > 0 ? parked : 0) < n - 1) return WTP_PARK_IDLE_SPIN_LIMIT;
  if (others_spinning < n - 2) return WTP_PARK_SPIN_LIMIT;
  return 0;
}

/* Returns 1 if *addr changed while spinning. Spins only with a ticket. */
static int spin(_Atomic int32_t* word, int32_t expected) {
  int limit = atomic_load_explicit(&spin_limit_override, memory_order_relaxed);
  if (limit == 0) return 0;

  int cap = spinner_cap();
  int n = atomic_load_explicit(&spinners, memory_order_relaxed);
  do {
    if (n >= cap) return 0;
  } while (!atomic_compare_exchange_weak_explicit(
      &spinners, &n, n + 1, memory_order_relaxed, memory_order_relaxed));
  if (limit < 0) limit = choose_spin_limit(n);

  int changed = 0;
  for (int i = 0; i < limit; i++) {
    /* Relaxed: the spin only decides whether to return early; the caller
     * re-reads the word with the order its protocol needs. */
    if (atomic_load_explicit(word, memory_order_relaxed) != expected) {
      changed = 1;
      break;
    }
    cpu_relax();
  }
  atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
  return changed;
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
  _Atomic int32_t* word = as_atomic(addr);

  /* A waiter whose stop is already visible neither spins nor sleeps (a
   * stopped caller that re-parks after the stopper's word change would
   * otherwise spin out its limit first). Relaxed word read: it only decides
   * whether to ask; W2 and W2' (sleep_slices) are the checks that order. */
  if (stop_visible(word, expected, interrupted, ctx))
    return WTP_PARK_INTERRUPTED;

  if (spin(word, expected)) return WTP_PARK_CHANGED;

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
