/* wasi_fd_posix.c: wasi_io.h on Linux and macOS.
 *
 * Offsets: one per fd, the host description's (read/write/lseek on it), so
 * every thread sees one offset and one position.
 *
 * fdflags (the entry's own, wasi_fd.c):
 *   APPEND    fd_write on an APPEND regular file appends each write
 *             atomically with pwritev2(RWF_APPEND) (Linux 4.16+); elsewhere
 *             (macOS, older kernels, a seccomp filter that refuses the
 *             call) it seeks to the end and writes under the entry's lock,
 *             atomic among the program's threads writing through that fd,
 *             but not against another fd of the same file (nor its seeks)
 *             or another process appending to it. A stdio description the
 *             host opened with O_APPEND (`>>file`) keeps it: writes to it
 *             append whatever the guest's flag says; so does an APPEND open
 *             of an append-only file (path_open).
 *   NONBLOCK  the OS description stays as wasi_poll_posix.c made it; a call
 *             that would wait answers EAGAIN instead.
 *   DSYNC     fdatasync after each write (fsync on macOS).
 *   SYNC      fsync after each write.
 *   RSYNC     nothing more: a read already sees every completed write.
 * A blocking write to a pipe, FIFO, terminal or socket writes every byte
 * before it returns (waiting for the peer as long as it takes), as a
 * blocking POSIX write does; a read returns what one read gives.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "wasi_errno.h"
#include "wasi_io.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL \
  0 /* macOS: SIGPIPE is ignored by Node; SO_NOSIGPIPE is not set on host sockets */
#endif

/* Drops the first n bytes of the list (after a partial transfer). */
static void iov_advance(wtp__wasi_iov **iov, int *count, size_t n) {
  while (*count > 0 && n >= (*iov)->iov_len) {
    n -= (*iov)->iov_len;
    (*iov)++;
    (*count)--;
  }
  if (*count > 0) {
    (*iov)->iov_base = (char *)(*iov)->iov_base + n;
    (*iov)->iov_len -= n;
  }
}

static size_t iov_total(const wtp__wasi_iov *iov, int count) {
  size_t total = 0;
  for (int i = 0; i < count; i++) total += iov[i].iov_len;
  return total;
}

/* ---- one transfer ---- */

/* One system call on io_fd; never waits unless the entry is a
 * WASI_IO_SHARED_BLOCKING one (wasi_poll.c). A host's socket as stdio is
 * sent to and received from without waiting (MSG_DONTWAIT): its
 * description, shared with the host, stays blocking. */
static ssize_t transfer_once(const wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                             int count, const wtp__wasi_transfer *t) {
  if (entry->io_kind == WASI_IO_SOCKET) {
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = (size_t)count;
    if (t->write)
      return sendmsg(entry->io_fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    return recvmsg(entry->io_fd, &msg, MSG_DONTWAIT);
  }
  return t->write ? writev(entry->io_fd, iov, count)
                  : readv(entry->io_fd, iov, count);
}

/* A write of at most PIPE_BUF bytes (the room POLLOUT promises) to a shared
 * blocking description. */
static ssize_t write_pipe_buf(const wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                              int count, wtp__wasi_transfer *t) {
  wtp__wasi_iov limited[WASI_IOV_MAX];
  size_t room = PIPE_BUF;
  int used = 0;
  for (int i = 0; i < count && room > 0; i++, used++) {
    limited[i] = iov[i];
    if (limited[i].iov_len > room) limited[i].iov_len = room;
    room -= limited[i].iov_len;
  }
  return transfer_once(entry, limited, used, t);
}

/* Waits for readiness unless the guest asked for NONBLOCK (EAGAIN). */
static uint32_t wait_ready(wtp_wasi *wasi, const wtp__wasi_entry *entry,
                           const wtp__wasi_transfer *t) {
  short events = t->write ? POLLOUT : POLLIN;
  if (atomic_load_explicit(&((wtp__wasi_entry *)entry)->fdflags,
                           memory_order_relaxed) &
      WASI_FDFLAGS_NONBLOCK) {
    /* A shared blocking description may be ready now: then no EAGAIN. */
    struct pollfd pfd = {entry->io_fd, events, 0};
    int ready =
        entry->io_kind == WASI_IO_SHARED_BLOCKING && poll(&pfd, 1, 0) > 0;
    return ready ? WASI_ESUCCESS : WASI_EAGAIN;
  }
  return wtp__wasi_wait_fd(wasi, entry->io_fd, events);
}

/* A read returns after the first transfer that moves bytes (or EOF); a
 * write goes on until every byte is written. *done counts the bytes. */
static uint32_t transfer_stream(wtp_wasi *wasi, wtp__wasi_entry *entry,
                                wtp__wasi_iov *iov, int count,
                                wtp__wasi_transfer *t, size_t *done) {
  *done = 0;
  int shared = entry->io_kind == WASI_IO_SHARED_BLOCKING;
  uint32_t err = WASI_ESUCCESS;
  if (shared) wtp__wasi_entry_lock(entry);
  for (;;) {
    ssize_t n;
    if (shared) {
      err = wait_ready(wasi, entry, t);
      if (err != WASI_ESUCCESS) break;
      n = t->write ? write_pipe_buf(entry, iov, count, t)
                   : transfer_once(entry, iov, count, t);
    } else {
      n = transfer_once(entry, iov, count, t);
    }
    if (n >= 0) {
      *done += (size_t)n;
      if (!t->write || n == 0)
        break; /* a read's bytes or EOF; a write that moves nothing ends */
      iov_advance(&iov, &count, (size_t)n);
      if (count == 0 || iov_total(iov, count) == 0) break;
      continue;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && !shared) {
      err = wait_ready(wasi, entry, t);
      if (err == WASI_ESUCCESS) continue;
    } else {
      err = wtp__wasi_errno(errno);
    }
    break;
  }
  if (shared) wtp__wasi_entry_unlock(entry);
  /* Bytes moved before an error or the guest's EAGAIN are reported as a
   * short transfer; the stop wins (the runner ends the thread). */
  if (err != WASI_ESUCCESS && err != WTP_WASI_STOPPED && *done > 0)
    err = WASI_ESUCCESS;
  return err;
}

static uint32_t sync_after_write(const wtp__wasi_entry *entry) {
  uint16_t flags = atomic_load_explicit(&((wtp__wasi_entry *)entry)->fdflags,
                                        memory_order_relaxed);
  if (!(flags & (WASI_FDFLAGS_SYNC | WASI_FDFLAGS_DSYNC))) return WASI_ESUCCESS;
#ifdef __linux__
  int rc = flags & WASI_FDFLAGS_SYNC ? fsync(entry->host_fd)
                                     : fdatasync(entry->host_fd);
#else
  int rc = fsync(entry->host_fd);
#endif
  return rc == 0 ? WASI_ESUCCESS : wtp__wasi_errno(errno);
}

/* A regular file's read or write: one buffer (the common case) without
 * the vector call's cost. */
static ssize_t file_io(int fd, const wtp__wasi_iov *iov, int count,
                       int writing) {
  if (count == 1) {
    return writing ? write(fd, iov[0].iov_base, iov[0].iov_len)
                   : read(fd, iov[0].iov_base, iov[0].iov_len);
  }
  return writing ? writev(fd, iov, count) : readv(fd, iov, count);
}

#if defined(__linux__) && defined(__NR_pwritev2)
#define WASI_RWF_APPEND 0x10 /* RWF_APPEND, <linux/fs.h> (Linux 4.16) */
/* pwritev2 as the system call: the C library's wrapper is glibc 2.26, newer
 * than the prebuilds' glibc 2.17. Offset -1 (pos_l and pos_h both ones):
 * the description's offset is used and left at the end, as an O_APPEND
 * write leaves it. */
static ssize_t pwritev2_append(int fd, const wtp__wasi_iov *iov, int count) {
  return (ssize_t)syscall(__NR_pwritev2, fd, iov, count, ~0UL, ~0UL,
                          WASI_RWF_APPEND);
}
#endif

/* A write at the end of a regular file for an APPEND entry (see the top). */
static ssize_t append_io(wtp__wasi_entry *entry, const wtp__wasi_iov *iov,
                         int count) {
#if defined(__linux__) && defined(__NR_pwritev2)
  /* Older kernels: ENOSYS (no pwritev2) or EOPNOTSUPP (no RWF_APPEND); a
   * seccomp filter that does not know the call (a container's profile)
   * answers EPERM or ENOSYS. A real EPERM comes back from the write. */
  ssize_t n = pwritev2_append(entry->io_fd, iov, count);
  if (n >= 0 || (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS &&
                 errno != EPERM))
    return n;
#endif
  wtp__wasi_entry_lock(entry);
  ssize_t written = -1;
  if (lseek(entry->io_fd, 0, SEEK_END) >= 0)
    written = file_io(entry->io_fd, iov, count, 1);
  int saved = errno;
  wtp__wasi_entry_unlock(entry);
  errno = saved;
  return written;
}

uint32_t wtp__wasi_io_transfer(wtp_wasi *wasi, wtp__wasi_entry *entry,
                               wtp__wasi_iov *iov, int count,
                               wtp__wasi_transfer *t, size_t *done) {
  *done = 0;
  if (entry->io_kind != WASI_IO_FILE)
    return transfer_stream(wasi, entry, iov, count, t, done);
  int append = t->write && entry->filetype == WASI_FILETYPE_REGULAR_FILE &&
               (atomic_load_explicit(&entry->fdflags, memory_order_relaxed) &
                WASI_FDFLAGS_APPEND);
  ssize_t n;
  do {
    n = append ? append_io(entry, iov, count)
               : file_io(entry->io_fd, iov, count, t->write);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return wtp__wasi_errno(errno);
  *done = (size_t)n;
  return t->write ? sync_after_write(entry) : WASI_ESUCCESS;
}

/* ---- positioned I/O ---- */

static ssize_t positioned(int fd, wtp__wasi_iov *iov, int count, off_t offset,
                          int writing) {
  if (count == 1) {
    return writing ? pwrite(fd, iov[0].iov_base, iov[0].iov_len, offset)
                   : pread(fd, iov[0].iov_base, iov[0].iov_len, offset);
  }
#ifdef __linux__
  return writing ? pwritev(fd, iov, count, offset)
                 : preadv(fd, iov, count, offset);
#else
  ssize_t total = 0;
  for (int i = 0; i < count; i++) {
    ssize_t n =
        writing ? pwrite(fd, iov[i].iov_base, iov[i].iov_len, offset + total)
                : pread(fd, iov[i].iov_base, iov[i].iov_len, offset + total);
    if (n < 0) return total > 0 ? total : -1;
    total += n;
    if ((size_t)n < iov[i].iov_len) break;
  }
  return total;
#endif
}

uint32_t wtp__wasi_io_positioned(wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                                 int count, uint64_t offset, int write,
                                 size_t *done) {
  ssize_t n;
  do {
    n = positioned(entry->host_fd, iov, count, (off_t)offset, write);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return wtp__wasi_errno(errno);
  *done = (size_t)n;
  return write ? sync_after_write(entry) : WASI_ESUCCESS;
}

uint32_t wtp__wasi_io_seek(wtp__wasi_entry *entry, int64_t offset,
                           uint8_t whence, uint64_t *position) {
  int how = whence == WASI_WHENCE_SET   ? SEEK_SET
            : whence == WASI_WHENCE_CUR ? SEEK_CUR
                                        : SEEK_END;
  off_t at = lseek(entry->host_fd, (off_t)offset, how);
  if (at < 0) return wtp__wasi_errno(errno);
  *position = (uint64_t)at;
  return WASI_ESUCCESS;
}

/* ---- calls that run one host function on the descriptor ---- */

uint32_t wtp__wasi_io_sync(wtp__wasi_entry *entry, int data_only) {
#ifdef __linux__
  int rc = data_only ? fdatasync(entry->host_fd) : fsync(entry->host_fd);
#else
  (void)data_only;
  int rc = fsync(entry->host_fd);
#endif
  return rc == 0 ? WASI_ESUCCESS : wtp__wasi_errno(errno);
}

uint32_t wtp__wasi_io_advise(wtp__wasi_entry *entry, uint64_t offset,
                             uint64_t len, uint8_t advice) {
#ifdef __linux__
  static const int host_advice[] = {POSIX_FADV_NORMAL,   POSIX_FADV_SEQUENTIAL,
                                    POSIX_FADV_RANDOM,   POSIX_FADV_WILLNEED,
                                    POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
  return wtp__wasi_errno(posix_fadvise(entry->host_fd, (off_t)offset,
                                       (off_t)len, host_advice[advice]));
#else
  (void)entry, (void)offset, (void)len, (void)advice;
  return WASI_ESUCCESS; /* advice only */
#endif
}

uint32_t wtp__wasi_io_allocate(wtp__wasi_entry *entry, uint64_t offset,
                               uint64_t len) {
#ifdef __linux__
  int err = posix_fallocate(entry->host_fd, (off_t)offset, (off_t)len);
  if (err != EOPNOTSUPP && err != EINVAL) return wtp__wasi_errno(err);
#endif
  /* No fallocate: grow the file to offset + len, as the call promises. */
  struct stat st;
  if (fstat(entry->host_fd, &st) != 0) return wtp__wasi_errno(errno);
  if ((uint64_t)st.st_size >= offset + len) return WASI_ESUCCESS;
  return ftruncate(entry->host_fd, (off_t)(offset + len)) == 0
             ? WASI_ESUCCESS
             : wtp__wasi_errno(errno);
}

/* A descriptor not open for writing cannot truncate: EBADF, as wasmtime
 * answers (Linux's ftruncate says EINVAL). */
uint32_t wtp__wasi_io_set_size(wtp__wasi_entry *entry, uint64_t size) {
  if (ftruncate(entry->host_fd, (off_t)size) == 0) return WASI_ESUCCESS;
  int err = errno, mode = fcntl(entry->host_fd, F_GETFL);
  return wtp__wasi_errno(
      err == EINVAL && mode >= 0 && (mode & O_ACCMODE) == O_RDONLY ? EBADF
                                                                   : err);
}

uint32_t wtp__wasi_io_set_times(wtp__wasi_entry *entry, uint64_t atim,
                                uint64_t mtim, uint16_t fstflags) {
  struct timespec times[2];
  uint64_t value[2] = {atim, mtim};
  unsigned set[2] = {WASI_FSTFLAGS_ATIM, WASI_FSTFLAGS_MTIM},
           now[2] = {WASI_FSTFLAGS_ATIM_NOW, WASI_FSTFLAGS_MTIM_NOW};
  for (int i = 0; i < 2; i++) {
    times[i].tv_sec = 0;
    if (fstflags & now[i]) {
      times[i].tv_nsec = UTIME_NOW;
    } else if (fstflags & set[i]) {
      times[i].tv_sec = (time_t)(value[i] / 1000000000u);
      times[i].tv_nsec = (long)(value[i] % 1000000000u);
    } else {
      times[i].tv_nsec = UTIME_OMIT;
    }
  }
  return futimens(entry->host_fd, times) == 0 ? WASI_ESUCCESS
                                              : wtp__wasi_errno(errno);
}
