/* wasi_harness.h: what the POSIX C tests of src/wasi/ share: the OS-neutral
 * part (wasi_harness_core.h: test/c's CHECK harness, a malloc'd guest memory,
 * calls through wtp_wasi_find_import as the binding makes them) and POSIX
 * temp dirs, files and clocks. The tests that also run on Windows use
 * wasi_harness_os.h instead. */
#ifndef WTP_WASI_HARNESS_H
#define WTP_WASI_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wasi_harness_core.h"

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static inline int host_fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

/* A temp dir (mkdtemp) and a file path inside it. */
static inline void temp_dir(char *dir, size_t size) {
  snprintf(dir, size, "/tmp/wtp-wasi-XXXXXX");
  if (mkdtemp(dir) == NULL) abort();
}

/* Opens a host file and adds it to the table: the guest fd. */
static inline uint32_t add_file(wtp_wasi *wasi, const char *path, int flags) {
  int fd = open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(path);
    abort();
  }
  uint32_t guest_fd = UINT32_MAX;
  uint32_t err = wtp__wasi_fd_add(wasi, fd, WASI_FILETYPE_REGULAR_FILE, 0,
                                  WASI_RIGHTS_REGULAR_FILE, 0, &guest_fd);
  if (err != 0) abort();
  return guest_fd;
}

#endif /* WTP_WASI_HARNESS_H */
