/* wait_linux.c: wtp_wait.h on Linux futexes.
 *
 * Waits use FUTEX_WAIT_BITSET, the one futex wait that takes an absolute
 * deadline (FUTEX_WAIT takes a relative one, which an EINTR retry would have
 * to recompute). Without FUTEX_CLOCK_REALTIME the deadline is measured on
 * CLOCK_MONOTONIC, the clock wtp__now_ns (wtp_park.c) reads, so a deadline computed by
 * the caller is the deadline the kernel enforces. With the bitset
 * FUTEX_BITSET_MATCH_ANY the wait is woken by a plain FUTEX_WAKE.
 *
 * Every operation is FUTEX_PRIVATE_FLAG: all parties of a pool live in one
 * process (worker_threads share the address space), and a private futex skips
 * the kernel's mm lookup. A private wait is never woken by a shared wake and
 * vice versa, so every wait and wake on a pool word must come from here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wtp_wait.h"

static long futex(int32_t* addr, int op, int32_t val,
                  const struct timespec* timeout, uint32_t val3) {
  return syscall(SYS_futex, addr, op, val, timeout, NULL, val3);
}

int wtp__wait(int32_t* addr, int32_t expected, uint64_t deadline_ns) {
  struct timespec ts;
  const struct timespec* timeout = NULL;
  if (deadline_ns != UINT64_MAX) {
    /* Deadlines past what time_t holds are "never" in practice; the kernel
     * takes any non-negative tv_sec. */
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
    if (ts.tv_sec < 0)
      timeout = NULL;
    else
      timeout = &ts;
  }
  for (;;) {
    long rc = futex(addr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, expected,
                    timeout, FUTEX_BITSET_MATCH_ANY);
    if (rc == 0) return 1; /* woken (possibly spuriously) */
    switch (errno) {
      case EAGAIN: /* *addr != expected when the kernel looked */
        return 1;
      case ETIMEDOUT: /* the absolute deadline has passed */
        return 0;
      case EINTR: /* a signal: same absolute deadline, so just retry */
        continue;
      default: {
        /* EFAULT/EINVAL/ENOSYS cannot happen with a valid aligned address
         * on a kernel with futexes, but a seccomp filter can refuse the
         * call. Degrade to polling: sleep at most 1 ms, then report a
         * (spurious) wake so the caller re-reads, or the timeout. Never
         * return at once, which would turn the caller's loop into a busy
         * spin. */
        uint64_t now = wtp__now_ns();
        uint64_t until =
            deadline_ns - now > 1000000u ? now + 1000000u : deadline_ns;
        if (now < deadline_ns) {
          struct timespec t = {(time_t)(until / 1000000000u),
                               (long)(until % 1000000000u)};
          while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) ==
                 EINTR) {
          }
        }
        return wtp__now_ns() < deadline_ns;
      }
    }
  }
}

void wtp__wake_one(int32_t* addr) {
  futex(addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, 0);
}

void wtp__wake_all(int32_t* addr) {
  futex(addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, 0);
}

/* wtp__os_cpu_wait_permille (wtp_wait.h): the kernel's count of runnable
 * tasks right now (the fourth field of /proc/loadavg, "running/total", the
 * reader included) against the online CPUs. An instantaneous count: the
 * caller averages samples. Not the thread's own run delay
 * (/proc/thread-self/schedstat): on a virtual machine that also counts the
 * time a halted virtual CPU takes to wake up, so a pool whose threads park
 * would read as oversubscribed on an idle machine (measured: 430-600
 * per mille on the quiet 2-vCPU machine as soon as the threads parked). */

/* Parses the unsigned decimal at *p into *out and advances past it; 0 if
 * there is none or it overflows an int (no count the kernel writes). */
static int parse_count(const char** p, const char* end, int* out) {
  const char* s = *p;
  long v = 0;
  if (s >= end || *s < '0' || *s > '9') return 0;
  while (s < end && *s >= '0' && *s <= '9') {
    v = v * 10 + (*s - '0');
    if (v > INT_MAX) return 0;
    s++;
  }
  *p = s;
  *out = (int)v;
  return 1;
}

/* The runnable tasks of the machine, from /proc/loadavg
 * ("0.77 1.65 1.65 1/86 17694"); -1 if it cannot be read. */
static int runnable_tasks(void) {
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0) return -1;
  const char* p = buf;
  const char* end = buf + n;
  for (int field = 0; field < 3; field++) { /* skip the three averages */
    while (p < end && *p != ' ') p++;
    while (p < end && *p == ' ') p++;
  }
  int running;
  return parse_count(&p, end, &running) ? running : -1;
}

int wtp__os_cpu_wait_permille(void) {
  int runnable = runnable_tasks();
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (runnable < 0 || cpus < 1 || cpus > INT_MAX) return -1;
  if (runnable <= cpus) return 0;
  return (int)((long)(runnable - cpus) * 1000 / runnable);
}
