/* wasi_clock_posix.c: wasi_clock.h on Linux and macOS. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "wasi_clock.h"
#include "wasi_errno.h"
#include "wasi_internal.h"

/* The host clock of a WASI clock id, or -1. */
static int host_clock(uint64_t id, clockid_t *out) {
  switch (id) {
    case WASI_CLOCK_REALTIME:
      *out = CLOCK_REALTIME;
      return 0;
    case WASI_CLOCK_MONOTONIC:
      *out = CLOCK_MONOTONIC;
      return 0;
    case WASI_CLOCK_PROCESS_CPUTIME_ID:
      *out = CLOCK_PROCESS_CPUTIME_ID;
      return 0;
    case WASI_CLOCK_THREAD_CPUTIME_ID:
      *out = CLOCK_THREAD_CPUTIME_ID;
      return 0;
    default:
      return -1;
  }
}

uint32_t wtp__wasi_clock_res(uint64_t id, uint64_t *ns) {
  clockid_t clock;
  struct timespec ts;
  if (host_clock(id, &clock) != 0) return WASI_EINVAL;
  if (clock_getres(clock, &ts) != 0) return wtp__wasi_errno(errno);
  *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_clock_now(uint64_t id, uint64_t *ns) {
  clockid_t clock;
  struct timespec ts;
  if (host_clock(id, &clock) != 0) return WASI_EINVAL;
  if (clock_gettime(clock, &ts) != 0) return wtp__wasi_errno(errno);
  *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return WASI_ESUCCESS;
}

#ifdef __linux__
/* The getrandom system call itself, not glibc's wrapper (glibc 2.25): the
 * glibc prebuilds run on glibc 2.17. A kernel without it (before 3.17)
 * answers ENOSYS, and /dev/urandom serves instead. */
static ssize_t os_random(uint8_t *at, size_t len) {
  long n = syscall(SYS_getrandom, at, len, 0);
  if (n >= 0 || errno != ENOSYS) return (ssize_t)n;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  n = read(fd, at, len);
  int saved = errno;
  close(fd);
  errno = saved;
  return (ssize_t)n;
}
#endif

uint32_t wtp__wasi_random(uint8_t *at, uint64_t len) {
#ifdef __linux__
  while (len > 0) {
    ssize_t n = os_random(at, len > 33554431 ? 33554431 : (size_t)len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return wtp__wasi_errno(errno);
    }
    at += n;
    len -= (uint64_t)n;
  }
#else
  arc4random_buf(at, (size_t)len);
#endif
  return WASI_ESUCCESS;
}

void wtp__wasi_yield(void) { sched_yield(); }
