/* wasi_misc.c: args, environment, clocks, random, sched_yield, proc_raise.
 * Every call checks the guest ranges it will write before it writes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#ifdef __linux__
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif

#include "wasi_errno.h"
#include "wasi_table.h"

/* argv_get / environ_get: count pointers at list_ptr, the strings at buf_ptr. */
static uint32_t strings_get(const wtp_wasi_memory *memory, uint64_t list_ptr,
                            uint64_t buf_ptr, const char *blob,
                            const uint32_t *offsets, uint32_t count,
                            uint32_t size) {
  if (!wtp__wasi_range_ok(memory, list_ptr, (uint64_t)count * 4) ||
      !wtp__wasi_range_ok(memory, buf_ptr, size)) {
    return WASI_EFAULT;
  }
  if (size > 0) memcpy(memory->base + buf_ptr, blob, size);
  for (uint32_t i = 0; i < count; i++) {
    wtp__wasi_store32(memory, list_ptr + 4 * (uint64_t)i,
                      (uint32_t)(buf_ptr + offsets[i]));
  }
  return WASI_ESUCCESS;
}

static uint32_t sizes_get(const wtp_wasi_memory *memory, uint64_t count_ptr,
                          uint64_t size_ptr, uint32_t count, uint32_t size) {
  if (!wtp__wasi_range_ok(memory, count_ptr, 4) ||
      !wtp__wasi_range_ok(memory, size_ptr, 4))
    return WASI_EFAULT;
  wtp__wasi_store32(memory, count_ptr, count);
  wtp__wasi_store32(memory, size_ptr, size);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(args_get) {
  return strings_get(memory, args[0], args[1], wasi->args_blob,
                     wasi->args_offsets, wasi->args_count, wasi->args_size);
}

WTP__WASI_CALL(args_sizes_get) {
  return sizes_get(memory, args[0], args[1], wasi->args_count, wasi->args_size);
}

WTP__WASI_CALL(environ_get) {
  return strings_get(memory, args[0], args[1], wasi->env_blob,
                     wasi->env_offsets, wasi->env_count, wasi->env_size);
}

WTP__WASI_CALL(environ_sizes_get) {
  return sizes_get(memory, args[0], args[1], wasi->env_count, wasi->env_size);
}

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

WTP__WASI_CALL(clock_res_get) {
  (void)wasi;
  clockid_t clock;
  struct timespec ts;
  if (!wtp__wasi_range_ok(memory, args[1], 8)) return WASI_EFAULT;
  if (host_clock(args[0], &clock) != 0) return WASI_EINVAL;
  if (clock_getres(clock, &ts) != 0) return wtp__wasi_errno(errno);
  wtp__wasi_store64(memory, args[1],
                    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(clock_time_get) {
  /* args[1] (precision) is a hint; one clock_gettime serves any. */
  clockid_t clock;
  struct timespec ts;
  (void)wasi;
  if (!wtp__wasi_range_ok(memory, args[2], 8)) return WASI_EFAULT;
  if (host_clock(args[0], &clock) != 0) return WASI_EINVAL;
  if (clock_gettime(clock, &ts) != 0) return wtp__wasi_errno(errno);
  wtp__wasi_store64(memory, args[2],
                    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
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

WTP__WASI_CALL(random_get) {
  uint64_t ptr = args[0], len = args[1];
  (void)wasi;
  if (!wtp__wasi_range_ok(memory, ptr, len)) return WASI_EFAULT;
#ifdef __linux__
  uint8_t *at = memory->base + ptr;
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
  arc4random_buf(memory->base + ptr, (size_t)len);
#endif
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(sched_yield) {
  (void)wasi, (void)memory, (void)args;
  sched_yield();
  return WASI_ESUCCESS;
}

/* wasmtime does not raise signals in a guest either (it traps); here the
 * guest gets ENOSYS and may abort on its own. */
WTP__WASI_CALL(proc_raise) {
  (void)wasi, (void)memory, (void)args;
  return WASI_ENOSYS;
}
