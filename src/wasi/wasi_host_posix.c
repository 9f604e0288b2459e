/* wasi_host_posix.c: wasi_host.h on Linux and macOS: stdio as dup()s of the
 * host's descriptors, preopens opened with O_DIRECTORY, the stop's wake-up
 * descriptor (an eventfd on Linux, a pipe elsewhere).
 *
 * How a stream is made to wait only where the stop can end it (io_kind) is
 * described in wasi_poll_posix.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/eventfd.h>
#endif

#include "wasi_errno.h"
#include "wasi_host.h"

void wtp__wasi_host_close(int host_fd) { close(host_fd); }

/* Rights by kind and access mode (see "Rights" above). */
static uint64_t rights_for(uint8_t filetype, int host_fd) {
  uint64_t rights = wtp__wasi_kind_rights(filetype);
  if (filetype == WASI_FILETYPE_DIRECTORY) return rights;
  int flags = fcntl(host_fd, F_GETFL);
  if (flags >= 0) {
    int mode = flags & O_ACCMODE;
    if (mode == O_WRONLY) rights &= ~WASI_RIGHTS_FD_READ;
    if (mode == O_RDONLY)
      rights &= ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_ALLOCATE |
                  WASI_RIGHTS_FD_FILESTAT_SET_SIZE);
  }
  return rights;
}

void wtp__wasi_host_classify(wtp__wasi_entry_init *init) {
  /* The path layer opened host_fd: its description is ours alone, so a
   * stream is simply marked O_NONBLOCK (the guest's NONBLOCK flag is
   * emulated above it, wasi_fd.c). */
  init->io_kind = WASI_IO_FILE;
  if (wtp__wasi_never_waits(init->filetype)) return;
  int flags = fcntl(init->host_fd, F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK ||
                     fcntl(init->host_fd, F_SETFL, flags | O_NONBLOCK) == 0)) {
    init->io_kind = WASI_IO_NONBLOCKING;
  } else {
    init->io_kind = WASI_IO_SHARED_BLOCKING;
  }
}

/* A stdio descriptor: dup_fd is our dup of the host's, whose description
 * other processes share (a shell's terminal, a pipe). Never set O_NONBLOCK
 * on it: on Linux reopen /proc/self/fd/N for a private non-blocking
 * description of the same pipe, FIFO or terminal; a socket uses
 * MSG_DONTWAIT; otherwise the residual WASI_IO_SHARED_BLOCKING. */
static void classify_shared(wtp__wasi_entry_init *init, int dup_fd) {
  struct stat st;
  init->host_fd = init->io_fd = dup_fd;
  if (fstat(dup_fd, &st) != 0) {
    /* Cannot happen on a descriptor dup() just made; stay careful. */
    init->filetype = WASI_FILETYPE_UNKNOWN;
    init->io_kind = WASI_IO_SHARED_BLOCKING;
    init->rights_base = WASI_RIGHTS_STREAM;
    return;
  }
  init->filetype = wtp__wasi_filetype(st.st_mode);
  /* A character device that is no terminal (</dev/null, 2>/dev/null) is
   * UNKNOWN, as wasmtime reports it: wasi-libc's isatty() and Rust's
   * is_terminal() take CHARACTER_DEVICE without seek rights for a terminal.
   * A socket (a parent's socketpair, a connection) is UNKNOWN too, as
   * wasmtime's stdio are no sockets: it is the program's stream, and no
   * sock_* call reaches the host's socket (wasi_fd.c, "Sockets"). */
  if ((init->filetype == WASI_FILETYPE_CHARACTER_DEVICE && !isatty(dup_fd)) ||
      S_ISSOCK(st.st_mode))
    init->filetype = WASI_FILETYPE_UNKNOWN;
  int flags = fcntl(dup_fd, F_GETFL);
  if (flags >= 0 && (flags & O_APPEND)) init->fdflags |= WASI_FDFLAGS_APPEND;
  init->rights_base = rights_for(init->filetype, dup_fd);
  init->rights_inheriting = 0;
  if (wtp__wasi_never_waits(init->filetype)) {
    init->io_kind = WASI_IO_FILE;
    return;
  }
  if (S_ISSOCK(st.st_mode)) {
    init->io_kind = WASI_IO_SOCKET;
    return;
  }
  init->io_kind = WASI_IO_SHARED_BLOCKING;
  if (flags < 0) return;
  if (flags & O_NONBLOCK) {
    init->io_kind = WASI_IO_NONBLOCKING; /* the host made it so; we only poll */
    return;
  }
#ifdef __linux__
  char path[40];
  snprintf(path, sizeof path, "/proc/self/fd/%d", dup_fd);
  int private_fd =
      open(path, (flags & O_ACCMODE) | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (private_fd >= 0) {
    struct stat again;
    if (fstat(private_fd, &again) == 0 && again.st_dev == st.st_dev &&
        again.st_ino == st.st_ino) {
      init->io_fd = private_fd;
      init->io_kind = WASI_IO_NONBLOCKING;
    } else {
      close(private_fd);
    }
  }
#endif
}

int wtp__wasi_host_stdio(int which, int host, wtp__wasi_entry_init *init,
                         char *error, size_t error_size) {
  int dup_fd = fcntl(host, F_DUPFD_CLOEXEC, 3);
  if (dup_fd < 0) {
    int err = errno;
    snprintf(error, error_size,
             "stdio %d: cannot duplicate host descriptor %d: %s", which, host,
             strerror(err));
    return err;
  }
  classify_shared(init, dup_fd);
  return 0;
}

int wtp__wasi_host_open_dir(const char *host_path, int *out, char *error,
                            size_t error_size) {
  int dir = open(host_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    int err = errno;
    snprintf(error, error_size, "preopen %s: %s%s", host_path, strerror(err),
             err == ENOTDIR ? " (not a directory)" : "");
    return err;
  }
  *out = dir;
  return 0;
}

int wtp__wasi_host_stop_make(wtp_wasi *wasi, char *error, size_t error_size) {
#ifdef __linux__
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    snprintf(error, error_size, "the stop's wake-up descriptor: %s",
             strerror(err));
    return err;
  }
  wasi->wake_fd = wasi->wake_write_fd = fd;
#else
  int fds[2];
  if (pipe(fds) != 0) {
    int err = errno;
    snprintf(error, error_size, "the stop's wake-up descriptor: %s",
             strerror(err));
    return err;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
  }
  wasi->wake_fd = fds[0];
  wasi->wake_write_fd = fds[1];
#endif
  return 0;
}

void wtp__wasi_host_stop_signal(wtp_wasi *wasi) {
#ifdef __linux__
  uint64_t one = 1;
  ssize_t n = write(wasi->wake_write_fd, &one, sizeof one);
#else
  char byte = 1;
  ssize_t n = write(wasi->wake_write_fd, &byte, 1);
#endif
  (void)n; /* an eventfd at 1 or a pipe with a byte in it is already readable */
}

void wtp__wasi_host_stop_free(wtp_wasi *wasi) {
  if (wasi->wake_write_fd >= 0 && wasi->wake_write_fd != wasi->wake_fd)
    close(wasi->wake_write_fd);
  if (wasi->wake_fd >= 0) close(wasi->wake_fd);
  wasi->wake_fd = wasi->wake_write_fd = -1;
}

uint32_t wtp__wasi_host_filestat(int host_fd, uint8_t filetype,
                                 wtp__wasi_filestat *out) {
  struct stat st;
  (void)filetype; /* fstat answers for every kind */
  if (fstat(host_fd, &st) != 0) return wtp__wasi_errno(errno);
  wtp__wasi_posix_filestat(&st, out);
  return WASI_ESUCCESS;
}
