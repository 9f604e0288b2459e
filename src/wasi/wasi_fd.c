/* wasi_fd.c: the fd_* calls on an open descriptor, stdio, and sock_*.
 *
 * Every call takes a reference on its entry (wtp__wasi_fd_get: no lock) and
 * drops it at the end; the I/O runs on the referenced entry with no table
 * lock held. iovec lists are read straight from guest memory into a stack
 * array (at most WASI_IOV_MAX entries and INT32_MAX bytes per call: a longer
 * list is a short read or write, as POSIX allows), every buffer checked
 * before the first side effect.
 *
 * Offsets: one per fd, the host description's (read/write/lseek on it), so
 * every thread sees one offset and one position.
 *
 * fdflags:
 *   APPEND    per descriptor (the entry's flag), never the description's
 *             O_APPEND: fd_fdstat_set_flags changes no host description
 *             (stdio's is shared with the shell and other processes), and a
 *             positioned write (fd_pwrite) writes at its offset, as wasmtime
 *             does. fd_write on an APPEND regular file appends each write
 *             atomically with pwritev2(RWF_APPEND) (Linux 4.16+); elsewhere
 *             (macOS, older kernels, a seccomp filter that refuses the
 *             call) it seeks to the end and writes under the
 *             entry's lock, atomic among the program's threads writing
 *             through that fd, but not against another fd of the same file
 *             (nor its seeks) or another process appending to it. A stdio
 *             description the host opened with O_APPEND (`>>file`) keeps it:
 *             writes to it append whatever the guest's flag says; so does
 *             an APPEND open of an append-only file (path_open).
 *   NONBLOCK  emulated: the OS description stays as wasi_poll.c made it; a
 *             call that would wait answers EAGAIN instead.
 *   DSYNC     emulated: fdatasync after each write (fsync on macOS).
 *   SYNC      emulated: fsync after each write.
 *   RSYNC     accepted and reported; reads need nothing more on Linux and
 *             macOS (a read already sees every completed write).
 * A blocking write to a pipe, FIFO, terminal or socket writes every byte
 * before it returns (waiting for the peer as long as it takes), as a
 * blocking POSIX write does; a read returns what one read gives.
 *
 * Rights: each call needs its right (wasi_table.c, "Rights"), checked
 * after the descriptor's kind (a seek on a pipe is ESPIPE, on a directory
 * EBADF, whatever its rights).
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
#include "wasi_table.h"

#define WASI_IOV_MAX 1024
#define WASI_IO_BYTES_MAX INT32_MAX

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL \
  0 /* macOS: SIGPIPE is ignored by Node; SO_NOSIGPIPE is not set on host sockets */
#endif

/* ---- iovecs ---- */

/* Reads the guest's iovec list (8 bytes each: buf, len) into iov, clamped
 * to WASI_IOV_MAX entries and WASI_IO_BYTES_MAX bytes. EFAULT if the list
 * or a buffer that will be used lies outside memory. */
static uint32_t load_iovecs(const wtp_wasi_memory *memory, uint64_t list,
                            uint64_t count, struct iovec *iov, int *iov_count) {
  if (!wtp__wasi_range_ok(memory, list, count * 8)) return WASI_EFAULT;
  if (count > WASI_IOV_MAX) count = WASI_IOV_MAX;
  uint64_t total = 0;
  int used = 0;
  for (uint64_t i = 0; i < count && total < WASI_IO_BYTES_MAX; i++) {
    uint64_t buf = wtp__wasi_load32(memory, list + 8 * i),
             len = wtp__wasi_load32(memory, list + 8 * i + 4);
    if (!wtp__wasi_range_ok(memory, buf, len)) return WASI_EFAULT;
    if (len > WASI_IO_BYTES_MAX - total) len = WASI_IO_BYTES_MAX - total;
    iov[used].iov_base = memory->base + buf;
    iov[used].iov_len = (size_t)len;
    total += len;
    used++;
  }
  *iov_count = used;
  return WASI_ESUCCESS;
}

/* Drops the first n bytes of the list (after a partial transfer). */
static void iov_advance(struct iovec **iov, int *count, size_t n) {
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

static size_t iov_total(const struct iovec *iov, int count) {
  size_t total = 0;
  for (int i = 0; i < count; i++) total += iov[i].iov_len;
  return total;
}

/* ---- one transfer ---- */

typedef struct transfer {
  int write;     /* 1: write/send, 0: read/recv */
  int msg_flags; /* recv/send flags (sockets) */
  int truncated; /* out: recvmsg reported MSG_TRUNC */
  int sockets;   /* sock_recv/sock_send: ENOTSOCK on anything else */
} transfer;

static int is_socket(const wtp__wasi_entry *entry) {
  return entry->filetype == WASI_FILETYPE_SOCKET_STREAM ||
         entry->filetype == WASI_FILETYPE_SOCKET_DGRAM;
}

/* One system call on io_fd; never waits unless the entry is a
 * WASI_IO_SHARED_BLOCKING one (wasi_poll.c). */
static ssize_t transfer_once(const wtp__wasi_entry *entry, struct iovec *iov,
                             int count, transfer *t) {
  if (is_socket(entry)) {
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = (size_t)count;
    int flags =
        t->msg_flags | (entry->io_kind == WASI_IO_SOCKET ? MSG_DONTWAIT : 0);
    if (t->write) return sendmsg(entry->io_fd, &msg, flags | MSG_NOSIGNAL);
    ssize_t n = recvmsg(entry->io_fd, &msg, flags);
    if (n >= 0 && (msg.msg_flags & MSG_TRUNC)) t->truncated = 1;
    return n;
  }
  return t->write ? writev(entry->io_fd, iov, count)
                  : readv(entry->io_fd, iov, count);
}

/* A write of at most PIPE_BUF bytes (the room POLLOUT promises) to a shared
 * blocking description. */
static ssize_t write_pipe_buf(const wtp__wasi_entry *entry, struct iovec *iov,
                              int count, transfer *t) {
  struct iovec limited[WASI_IOV_MAX];
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
                           const transfer *t) {
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
                                struct iovec *iov, int count, transfer *t,
                                size_t *done) {
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
static ssize_t file_io(int fd, const struct iovec *iov, int count,
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
static ssize_t pwritev2_append(int fd, const struct iovec *iov, int count) {
  return (ssize_t)syscall(__NR_pwritev2, fd, iov, count, ~0UL, ~0UL,
                          WASI_RWF_APPEND);
}
#endif

/* A write at the end of a regular file for an APPEND entry (see the top). */
static ssize_t append_io(wtp__wasi_entry *entry, const struct iovec *iov,
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

/* fd_read / fd_write / sock_recv / sock_send: the iovec list at args, the
 * byte count stored at result_ptr. */
static uint32_t fd_transfer(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                            uint32_t fd, uint64_t list, uint64_t list_count,
                            uint64_t result_ptr, transfer *t) {
  struct iovec iov[WASI_IOV_MAX];
  int count;
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  uint32_t err = load_iovecs(memory, list, list_count, iov, &count);
  if (err != WASI_ESUCCESS) return err;
  wtp__wasi_entry *entry;
  err = wtp__wasi_fd_get(wasi, fd, &entry);
  if (err != WASI_ESUCCESS) return err;
  size_t done = 0;
  if (t->sockets && !is_socket(entry)) {
    err = WASI_ENOTSOCK;
  } else if ((err = wtp__wasi_entry_need(entry, t->write
                                                    ? WASI_RIGHTS_FD_WRITE
                                                    : WASI_RIGHTS_FD_READ))) {
  } else if (entry->io_kind == WASI_IO_FILE) {
    int append = t->write && entry->filetype == WASI_FILETYPE_REGULAR_FILE &&
                 (atomic_load_explicit(&entry->fdflags, memory_order_relaxed) &
                  WASI_FDFLAGS_APPEND);
    ssize_t n;
    do {
      n = append ? append_io(entry, iov, count)
                 : file_io(entry->io_fd, iov, count, t->write);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      err = wtp__wasi_errno(errno);
    } else {
      done = (size_t)n;
      if (t->write) err = sync_after_write(entry);
    }
  } else {
    err = transfer_stream(wasi, entry, iov, count, t, &done);
  }
  wtp__wasi_fd_put(entry);
  if (err == WASI_ESUCCESS)
    wtp__wasi_store32(memory, result_ptr, (uint32_t)done);
  return err;
}

WTP__WASI_CALL(fd_read) {
  transfer t = {0, 0, 0, 0};
  return fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2], args[3],
                     &t);
}

WTP__WASI_CALL(fd_write) {
  transfer t = {1, 0, 0, 0};
  return fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2], args[3],
                     &t);
}

/* ---- positioned I/O ---- */

static ssize_t positioned(int fd, struct iovec *iov, int count, off_t offset,
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

static uint32_t fd_positioned(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                              const uint64_t *args, int write) {
  struct iovec iov[WASI_IOV_MAX];
  int count;
  uint64_t offset = args[3], result_ptr = args[4];
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  uint32_t err = load_iovecs(memory, args[1], args[2], iov, &count);
  if (err != WASI_ESUCCESS) return err;
  if (offset > INT64_MAX) return WASI_EINVAL;
  wtp__wasi_entry *entry;
  err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  ssize_t n;
  uint32_t denied = wtp__wasi_entry_need(
      entry, write ? WASI_RIGHTS_FD_WRITE : WASI_RIGHTS_FD_READ);
  if (denied) {
    n = -1;
  } else if (entry->io_kind != WASI_IO_FILE) {
    n = -1;
    errno = ESPIPE;
  } else {
    do {
      n = positioned(entry->host_fd, iov, count, (off_t)offset, write);
    } while (n < 0 && errno == EINTR);
  }
  err = denied  ? denied
        : n < 0 ? wtp__wasi_errno(errno)
        : write ? sync_after_write(entry)
                : WASI_ESUCCESS;
  wtp__wasi_fd_put(entry);
  if (err == WASI_ESUCCESS) wtp__wasi_store32(memory, result_ptr, (uint32_t)n);
  return err;
}

WTP__WASI_CALL(fd_pread) { return fd_positioned(wasi, memory, args, 0); }
WTP__WASI_CALL(fd_pwrite) { return fd_positioned(wasi, memory, args, 1); }

/* ---- seek, tell ---- */

/* fd_seek needs FD_SEEK, except a seek by 0 from the current position,
 * which only tells (FD_TELL), as in wasi-common. */
static uint32_t seek(wtp_wasi *wasi, uint32_t fd, int64_t offset, int whence,
                     uint64_t *position) {
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, fd, &entry);
  if (err != WASI_ESUCCESS) return err;
  off_t at = -1;
  uint64_t needed = whence == SEEK_CUR && offset == 0 ? WASI_RIGHTS_FD_TELL
                                                      : WASI_RIGHTS_FD_SEEK;
  uint32_t denied = 0;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) {
    /* A directory's position belongs to fd_readdir's cookies: wasmtime
     * answers EBADF, as the wasi-testsuite expects. */
    errno = EBADF;
  } else if (entry->io_kind != WASI_IO_FILE) {
    errno = ESPIPE;
  } else if (!(denied = wtp__wasi_entry_need(entry, needed))) {
    at = lseek(entry->host_fd, (off_t)offset, whence);
  }
  err = denied ? denied : at < 0 ? wtp__wasi_errno(errno) : WASI_ESUCCESS;
  wtp__wasi_fd_put(entry);
  *position = (uint64_t)at;
  return err;
}

WTP__WASI_CALL(fd_seek) {
  uint64_t position, result_ptr = args[3];
  if (!wtp__wasi_range_ok(memory, result_ptr, 8)) return WASI_EFAULT;
  int whence;
  switch (args[2]) {
    case WASI_WHENCE_SET:
      whence = SEEK_SET;
      break;
    case WASI_WHENCE_CUR:
      whence = SEEK_CUR;
      break;
    case WASI_WHENCE_END:
      whence = SEEK_END;
      break;
    default:
      return WASI_EINVAL;
  }
  uint32_t err =
      seek(wasi, (uint32_t)args[0], (int64_t)args[1], whence, &position);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, result_ptr, position);
  return err;
}

WTP__WASI_CALL(fd_tell) {
  uint64_t position;
  if (!wtp__wasi_range_ok(memory, args[1], 8)) return WASI_EFAULT;
  uint32_t err = seek(wasi, (uint32_t)args[0], 0, SEEK_CUR, &position);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, args[1], position);
  return err;
}

/* ---- close, renumber ---- */

WTP__WASI_CALL(fd_close) {
  (void)memory;
  return wtp__wasi_table_remove(wasi, (uint32_t)args[0]);
}

WTP__WASI_CALL(fd_renumber) {
  (void)memory;
  return wtp__wasi_table_renumber(wasi, (uint32_t)args[0], (uint32_t)args[1]);
}

/* ---- calls that run one host function on the descriptor ---- */

typedef int (*entry_op)(const wtp__wasi_entry *entry, const uint64_t *args);

/* Runs op on the fd's entry if it holds `needed` (the op's own kind checks
 * come first where the op makes them: see op_set_size). */
static uint32_t with_entry(wtp_wasi *wasi, const uint64_t *args, entry_op op,
                           uint64_t needed) {
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_need(entry, needed);
  int host_err = err ? 0 : op(entry, args);
  wtp__wasi_fd_put(entry);
  return err ? err : wtp__wasi_errno(host_err);
}

static int op_datasync(const wtp__wasi_entry *entry, const uint64_t *args) {
  (void)args;
#ifdef __linux__
  return fdatasync(entry->host_fd) == 0 ? 0 : errno;
#else
  return fsync(entry->host_fd) == 0 ? 0 : errno;
#endif
}

static int op_sync(const wtp__wasi_entry *entry, const uint64_t *args) {
  (void)args;
  return fsync(entry->host_fd) == 0 ? 0 : errno;
}

static int op_advise(const wtp__wasi_entry *entry, const uint64_t *args) {
  if (args[3] > WASI_ADVICE_NOREUSE || args[1] > INT64_MAX ||
      args[2] > INT64_MAX)
    return EINVAL;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) return EBADF;
  if (entry->io_kind != WASI_IO_FILE) return ESPIPE;
#ifdef __linux__
  static const int advice[] = {POSIX_FADV_NORMAL,   POSIX_FADV_SEQUENTIAL,
                               POSIX_FADV_RANDOM,   POSIX_FADV_WILLNEED,
                               POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
  return posix_fadvise(entry->host_fd, (off_t)args[1], (off_t)args[2],
                       advice[args[3]]);
#else
  return 0; /* advice only */
#endif
}

static int op_allocate(const wtp__wasi_entry *entry, const uint64_t *args) {
  uint64_t offset = args[1], len = args[2];
  if (offset > INT64_MAX || len > INT64_MAX || offset + len > INT64_MAX)
    return EINVAL;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) return EBADF;
  if (entry->io_kind != WASI_IO_FILE) return ESPIPE;
#ifdef __linux__
  int err = posix_fallocate(entry->host_fd, (off_t)offset, (off_t)len);
  if (err != EOPNOTSUPP && err != EINVAL) return err;
#endif
  /* No fallocate: grow the file to offset + len, as the call promises. */
  struct stat st;
  if (fstat(entry->host_fd, &st) != 0) return errno;
  if ((uint64_t)st.st_size >= offset + len) return 0;
  return ftruncate(entry->host_fd, (off_t)(offset + len)) == 0 ? 0 : errno;
}

/* A directory holds no FD_FILESTAT_SET_SIZE, and a descriptor not open for
 * writing cannot truncate: EBADF for both, as wasmtime answers (Linux's
 * ftruncate says EINVAL for the second). */
static int op_set_size(const wtp__wasi_entry *entry, const uint64_t *args) {
  if (entry->filetype == WASI_FILETYPE_DIRECTORY ||
      wtp__wasi_entry_need(entry, WASI_RIGHTS_FD_FILESTAT_SET_SIZE))
    return EBADF; /* an access-mode right: never ENOTCAPABLE */
  if (args[1] > INT64_MAX) return EINVAL;
  if (ftruncate(entry->host_fd, (off_t)args[1]) == 0) return 0;
  int err = errno, mode = fcntl(entry->host_fd, F_GETFL);
  return err == EINVAL && mode >= 0 && (mode & O_ACCMODE) == O_RDONLY ? EBADF
                                                                      : err;
}

/* atim, mtim, fstflags as WASI gives them, as a futimens pair. */
static int wasi_times(uint64_t atim, uint64_t mtim, uint64_t flags,
                      struct timespec times[2]) {
  if (flags & ~(uint64_t)0xf) return EINVAL;
  if ((flags & WASI_FSTFLAGS_ATIM) && (flags & WASI_FSTFLAGS_ATIM_NOW))
    return EINVAL;
  if ((flags & WASI_FSTFLAGS_MTIM) && (flags & WASI_FSTFLAGS_MTIM_NOW))
    return EINVAL;
  uint64_t value[2] = {atim, mtim};
  unsigned set[2] = {WASI_FSTFLAGS_ATIM, WASI_FSTFLAGS_MTIM},
           now[2] = {WASI_FSTFLAGS_ATIM_NOW, WASI_FSTFLAGS_MTIM_NOW};
  for (int i = 0; i < 2; i++) {
    times[i].tv_sec = 0;
    if (flags & now[i]) {
      times[i].tv_nsec = UTIME_NOW;
    } else if (flags & set[i]) {
      times[i].tv_sec = (time_t)(value[i] / 1000000000u);
      times[i].tv_nsec = (long)(value[i] % 1000000000u);
    } else {
      times[i].tv_nsec = UTIME_OMIT;
    }
  }
  return 0;
}

static int op_set_times(const wtp__wasi_entry *entry, const uint64_t *args) {
  struct timespec times[2];
  int err = wasi_times(args[1], args[2], args[3], times);
  if (err != 0) return err;
  return futimens(entry->host_fd, times) == 0 ? 0 : errno;
}

static int op_set_flags(const wtp__wasi_entry *entry, const uint64_t *args) {
  uint64_t flags = args[1];
  if (flags & ~(uint64_t)WASI_FDFLAGS_ALL) return EINVAL;
  /* Every flag lives in the entry; no host description changes (see the
   * top of this file). */
  atomic_store_explicit(&((wtp__wasi_entry *)entry)->fdflags, (uint16_t)flags,
                        memory_order_relaxed);
  return 0;
}

static int op_shutdown(const wtp__wasi_entry *entry, const uint64_t *args) {
  int how;
  switch (args[1]) {
    case WASI_SDFLAGS_RD:
      how = SHUT_RD;
      break;
    case WASI_SDFLAGS_WR:
      how = SHUT_WR;
      break;
    case WASI_SDFLAGS_RD | WASI_SDFLAGS_WR:
      how = SHUT_RDWR;
      break;
    default:
      return EINVAL;
  }
  if (!is_socket(entry)) return ENOTSOCK;
  return shutdown(entry->host_fd, how) == 0 ? 0 : errno;
}

/* The calls whose whole job is one op on the fd's entry (with_entry). */
#define ENTRY_CALL(name, op, right)                         \
  WTP__WASI_CALL(name) {                                    \
    (void)memory;                                           \
    return with_entry(wasi, args, op, WASI_RIGHTS_##right); \
  }
ENTRY_CALL(fd_datasync, op_datasync, FD_DATASYNC)
ENTRY_CALL(fd_sync, op_sync, FD_SYNC)
ENTRY_CALL(fd_advise, op_advise, FD_ADVISE)
ENTRY_CALL(fd_allocate, op_allocate, FD_ALLOCATE)
ENTRY_CALL(fd_filestat_set_times, op_set_times, FD_FILESTAT_SET_TIMES)
ENTRY_CALL(fd_fdstat_set_flags, op_set_flags, FD_FDSTAT_SET_FLAGS)
ENTRY_CALL(sock_shutdown, op_shutdown, SOCK_SHUTDOWN)

/* The directory's EBADF comes before the rights (a directory has none). */
WTP__WASI_CALL(fd_filestat_set_size) {
  (void)memory;
  return with_entry(wasi, args, op_set_size, 0);
}

/* Narrows the fd's rights (wasi_table.c, "Rights"): ENOTCAPABLE if it
 * asks for a right the fd does not hold; EBADF if it is not open. */
WTP__WASI_CALL(fd_fdstat_set_rights) {
  wtp__wasi_entry *entry;
  (void)memory;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_narrow(entry, args[1], args[2]);
  wtp__wasi_fd_put(entry);
  return err;
}

/* ---- calls that write a record ---- */

WTP__WASI_CALL(fd_fdstat_get) {
  /* fdstat: filetype u8 @0, flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16. */
  uint64_t at = args[1];
  if (!wtp__wasi_range_ok(memory, at, 24)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  uint16_t flags = atomic_load_explicit(&entry->fdflags, memory_order_relaxed);
  memset(memory->base + at, 0, 24);
  memory->base[at] = entry->filetype;
  memory->base[at + 2] = (uint8_t)flags;
  memory->base[at + 3] = (uint8_t)(flags >> 8);
  wtp__wasi_store64(
      memory, at + 8,
      atomic_load_explicit(&entry->rights_base, memory_order_relaxed));
  wtp__wasi_store64(memory, at + 16, wtp__wasi_entry_inheriting(entry));
  wtp__wasi_fd_put(entry);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(fd_filestat_get) {
  uint64_t at = args[1];
  struct stat st;
  if (!wtp__wasi_range_ok(memory, at, 64)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_need(entry, WASI_RIGHTS_FD_FILESTAT_GET);
  if (err == WASI_ESUCCESS && fstat(entry->host_fd, &st) != 0)
    err = wtp__wasi_errno(errno);
  if (err == WASI_ESUCCESS) {
    wtp__wasi_write_filestat(memory->base + at, &st);
    memory->base[at + 16] =
        entry->filetype; /* what fdstat says (a FIFO is unknown there too) */
  }
  wtp__wasi_fd_put(entry);
  return err;
}

WTP__WASI_CALL(fd_prestat_get) {
  /* prestat: tag u8 @0 (0: dir), name_len u32 @4. */
  uint64_t at = args[1];
  if (!wtp__wasi_range_ok(memory, at, 8)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  if (entry->preopen == NULL) {
    err = WASI_EBADF;
  } else {
    memset(memory->base + at, 0, 8);
    memory->base[at] = WASI_PREOPENTYPE_DIR;
    wtp__wasi_store32(memory, at + 4, (uint32_t)strlen(entry->preopen));
  }
  wtp__wasi_fd_put(entry);
  return err;
}

WTP__WASI_CALL(fd_prestat_dir_name) {
  uint64_t at = args[1], len = args[2];
  if (!wtp__wasi_range_ok(memory, at, len)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  if (entry->preopen == NULL) {
    err = WASI_EBADF;
  } else {
    size_t name_len = strlen(entry->preopen);
    if (len < name_len) {
      err = WASI_ENAMETOOLONG;
    } else {
      memcpy(memory->base + at, entry->preopen, name_len);
    }
  }
  wtp__wasi_fd_put(entry);
  return err;
}

/* ---- sockets ---- */

WTP__WASI_CALL(sock_recv) {
  /* fd, ri_data, ri_data_len, ri_flags, ro_datalen_ptr, ro_flags_ptr */
  uint64_t flags = args[3];
  if (!wtp__wasi_range_ok(memory, args[5], 2)) return WASI_EFAULT;
  if (flags & ~(uint64_t)(WASI_RIFLAGS_RECV_PEEK | WASI_RIFLAGS_RECV_WAITALL))
    return WASI_EINVAL;
  transfer t = {0, (flags & WASI_RIFLAGS_RECV_PEEK ? MSG_PEEK : 0), 0, 1};
  uint32_t err = fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2],
                             args[4], &t);
  if (err == WASI_ESUCCESS) {
    uint16_t ro = t.truncated ? WASI_ROFLAGS_RECV_DATA_TRUNCATED : 0;
    memory->base[args[5]] = (uint8_t)ro;
    memory->base[args[5] + 1] = 0;
  }
  return err;
}

WTP__WASI_CALL(sock_send) {
  /* fd, si_data, si_data_len, si_flags (none defined), so_datalen_ptr */
  transfer t = {1, 0, 0, 1};
  if (args[3] != 0) return WASI_EINVAL;
  return fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2], args[4],
                     &t);
}

/* accept with close-on-exec set atomically where the OS can (accept4:
 * Linux), so that a process the host spawns meanwhile never inherits the
 * connection; elsewhere (macOS) set right after, the narrow window that
 * remains there. */
static int accept_cloexec(int listener) {
#ifdef __linux__
  return accept4(listener, NULL, NULL, SOCK_CLOEXEC);
#else
  int client = accept(listener, NULL, NULL);
  if (client >= 0) fcntl(client, F_SETFD, FD_CLOEXEC);
  return client;
#endif
}

WTP__WASI_CALL(sock_accept) {
  /* fd, flags (fdflags: only NONBLOCK), result fd ptr */
  uint64_t flags = args[1], result_ptr = args[2];
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  if (flags & ~(uint64_t)WASI_FDFLAGS_NONBLOCK) return WASI_EINVAL;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  int client = -1;
  int listening = 0;
  socklen_t listening_size = sizeof listening;
  if (!is_socket(entry)) {
    err = WASI_ENOTSOCK;
  } else if (getsockopt(entry->io_fd, SOL_SOCKET, SO_ACCEPTCONN, &listening,
                        &listening_size) != 0 ||
             !listening) {
    err =
        WASI_EINVAL; /* what accept says; checked first so that nothing waits on it */
  }
  transfer t = {0, 0, 0, 0};
  while (err == WASI_ESUCCESS) {
    /* A shared blocking listener is polled first; ours is non-blocking. */
    if (entry->io_kind == WASI_IO_SHARED_BLOCKING ||
        entry->io_kind == WASI_IO_SOCKET) {
      err = wait_ready(wasi, entry, &t);
      if (err != WASI_ESUCCESS) break;
    }
    client = accept_cloexec(entry->io_fd);
    if (client >= 0) break;
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      err = wtp__wasi_errno(errno);
    } else if (entry->io_kind == WASI_IO_NONBLOCKING) {
      err = wait_ready(wasi, entry, &t);
    }
  }
  wtp__wasi_fd_put(entry);
  if (err != WASI_ESUCCESS) return err;
  uint32_t fd;
  err = wtp__wasi_fd_add(wasi, client, WASI_FILETYPE_SOCKET_STREAM,
                         (uint16_t)flags, WASI_RIGHTS_STREAM, 0, &fd);
  if (err == WASI_ESUCCESS) wtp__wasi_store32(memory, result_ptr, fd);
  return err;
}
