/* wait_darwin.c: wtp_wait.h on macOS.
 *
 * Two kernel primitives, chosen once at run time:
 *
 * - os_sync_wait_on_address_with_timeout / os_sync_wake_by_address_any/all,
 *   the public compare-and-wait API of macOS 14.4 and later;
 * - __ulock_wait / __ulock_wake with UL_COMPARE_AND_WAIT, the system call
 *   under it, present since macOS 10.12 and used by libc++'s atomic wait on
 *   every supported macOS. It is not a public API, which is why the public
 *   one is preferred where it exists.
 *
 * The addon's deployment target is older than 14.4, so the os_sync functions
 * are looked up with dlsym instead of being linked: that needs neither a
 * 14.4 SDK at build time nor __builtin_available, and on an older system the
 * lookup simply fails and __ulock is used.
 *
 * Both take a relative timeout (os_sync: nanoseconds, measured on the
 * mach_absolute_time clock; __ulock_wait: microseconds in a uint32_t, 0 means
 * none), so wtp__wait keeps the absolute deadline itself and recomputes the
 * remaining time on every retry: after EINTR, and after a timeout that came
 * early through rounding. wtp__now_ns (wtp_park.c) reads CLOCK_UPTIME_RAW
 * on macOS, which is mach_absolute_time in nanoseconds: the clock the os_sync
 * timeout runs on.
 *
 * Both wait process-private (no SHARED flag): every party of a pool lives in
 * this process.
 *
 * Compiled and linked for real in CI, for x86_64 and arm64 macOS
 * (scripts/cross-prebuild.js: zig cc, ld64.lld; checked by
 * test/prebuilds.test.js), but never run there: no macOS machine. Written
 * against the documented os_sync contract: the wait returns >= 0 on a wake
 * or when the value differs, -1 with errno ETIMEDOUT / EINTR / EFAULT / EINVAL
 * (EINVAL also for a timeout of 0, which is why a 0 remainder is never
 * passed); a wake with no waiter returns -1 with ENOENT.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h> /* getloadavg */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "wtp_wait.h"

/* os_sync_wait_on_address.h values (macOS 14.4 SDK). */
#define OS_CLOCK_MACH_ABSOLUTE_TIME 32u
#define OS_SYNC_WAIT_ON_ADDRESS_NONE 0u
#define OS_SYNC_WAKE_BY_ADDRESS_NONE 0u

/* sys/ulock.h values (xnu). */
#define UL_COMPARE_AND_WAIT 1u
#define ULF_WAKE_ALL 0x00000100u

extern int __ulock_wait(uint32_t operation, void* addr, uint64_t value,
                        uint32_t timeout_us);
extern int __ulock_wake(uint32_t operation, void* addr, uint64_t wake_value);

typedef int (*os_wait_fn)(void* addr, uint64_t value, size_t size,
                          uint32_t flags);
typedef int (*os_wait_timeout_fn)(void* addr, uint64_t value, size_t size,
                                  uint32_t flags, uint32_t clockid,
                                  uint64_t timeout_ns);
typedef int (*os_wake_fn)(void* addr, size_t size, uint32_t flags);

typedef struct os_sync {
  os_wait_fn wait;
  os_wait_timeout_fn wait_timeout;
  os_wake_fn wake_any;
  os_wake_fn wake_all;
} os_sync_t;

/* Looked up once (pthread_once orders the writes before every read). */
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;
static int use_os_sync;
static os_sync_t os_sync;

static void lookup(void) {
  os_sync_t f;
  f.wait = (os_wait_fn)dlsym(RTLD_DEFAULT, "os_sync_wait_on_address");
  f.wait_timeout = (os_wait_timeout_fn)dlsym(
      RTLD_DEFAULT, "os_sync_wait_on_address_with_timeout");
  f.wake_any = (os_wake_fn)dlsym(RTLD_DEFAULT, "os_sync_wake_by_address_any");
  f.wake_all = (os_wake_fn)dlsym(RTLD_DEFAULT, "os_sync_wake_by_address_all");
  if (f.wait && f.wait_timeout && f.wake_any && f.wake_all) {
    os_sync = f;
    use_os_sync = 1;
  }
}

/* 1: os_sync, 2: __ulock. */
static int sync_mode(void) {
  pthread_once(&lookup_once, lookup);
  return use_os_sync ? 1 : 2;
}

/* One kernel wait for at most remaining_ns (UINT64_MAX: untimed). Returns
 * the kernel's result: >= 0, or -1 with errno. */
static int wait_once(int32_t* addr, int32_t expected, uint64_t remaining_ns) {
  uint64_t value = (uint64_t)(uint32_t)expected; /* the low 4 bytes */
  if (sync_mode() == 1) {
    if (remaining_ns == UINT64_MAX)
      return os_sync.wait(addr, value, 4, OS_SYNC_WAIT_ON_ADDRESS_NONE);
    return os_sync.wait_timeout(addr, value, 4, OS_SYNC_WAIT_ON_ADDRESS_NONE,
                                OS_CLOCK_MACH_ABSOLUTE_TIME, remaining_ns);
  }
  uint32_t us = 0; /* 0: no timeout */
  if (remaining_ns != UINT64_MAX) {
    uint64_t r = (remaining_ns + 999u) / 1000u; /* round up: never early */
    us = r >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)r;
  }
  return __ulock_wait(UL_COMPARE_AND_WAIT, addr, value, us);
}

static void poll_sleep(uint64_t deadline_ns) {
  /* Degraded mode for an unexpected error: sleep at most 1 ms so that the
   * caller's loop polls instead of spinning. */
  uint64_t now = wtp__now_ns();
  if (now >= deadline_ns) return;
  uint64_t d = deadline_ns - now < 1000000u ? deadline_ns - now : 1000000u;
  struct timespec ts = {0, (long)d};
  nanosleep(&ts, NULL);
}

int wtp__wait(int32_t* addr, int32_t expected, uint64_t deadline_ns) {
  for (;;) {
    uint64_t remaining = UINT64_MAX;
    if (deadline_ns != UINT64_MAX) {
      uint64_t now = wtp__now_ns();
      if (now >= deadline_ns) {
        /* Past the deadline: the contract still answers "changed" for a
         * differing value. Relaxed: the caller re-reads with its order. */
        return atomic_load_explicit((_Atomic int32_t*)addr,
                                    memory_order_relaxed) != expected;
      }
      remaining = deadline_ns - now; /* > 0: os_sync refuses 0 */
    }
    int rc = wait_once(addr, expected, remaining);
    if (rc >= 0) return 1; /* woken, or the value differed */
    switch (errno) {
      case ETIMEDOUT:
        /* Relative timeouts round; only the absolute deadline counts. */
        if (wtp__now_ns() >= deadline_ns) return 0;
        continue;
      case EINTR:
        continue; /* same absolute deadline */
      default:
        /* EFAULT / EINVAL / ENOTSUP should not happen on an aligned word;
         * report a spurious wake after a short sleep. */
        poll_sleep(deadline_ns);
        return deadline_ns == UINT64_MAX || wtp__now_ns() < deadline_ns;
    }
  }
}

void wtp__wake_one(int32_t* addr) {
  /* -1 with ENOENT means nobody waited: nothing to do. EINTR: retry. */
  if (sync_mode() == 1) {
    while (os_sync.wake_any(addr, 4, OS_SYNC_WAKE_BY_ADDRESS_NONE) < 0 &&
           errno == EINTR) {
    }
  } else {
    while (__ulock_wake(UL_COMPARE_AND_WAIT, addr, 0) < 0 && errno == EINTR) {
    }
  }
}

void wtp__wake_all(int32_t* addr) {
  if (sync_mode() == 1) {
    while (os_sync.wake_all(addr, 4, OS_SYNC_WAKE_BY_ADDRESS_NONE) < 0 &&
           errno == EINTR) {
    }
  } else {
    while (__ulock_wake(UL_COMPARE_AND_WAIT | ULF_WAKE_ALL, addr, 0) < 0 &&
           errno == EINTR) {
    }
  }
}

/* wtp_wait.h: macOS exposes no instantaneous runnable count cheaply; the
 * 1-minute load average counts runnable threads machine-wide, so its excess
 * over the CPUs is the share of them waiting for one (slower to follow). */
int wtp__os_cpu_wait_permille(void) {
  double load;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (getloadavg(&load, 1) != 1 || cpus < 1 || !(load >= 0)) return -1;
  if (load <= (double)cpus) return 0;
  return (int)((load - (double)cpus) * 1000.0 / load);
}
