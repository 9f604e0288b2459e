/* wasi_path_host_posix.c: the path calls' host operations on Linux and
 * macOS (wasi_path_host.h): *at calls on the directory the sandbox resolved
 * (wasi_path_posix.c), never following the final component themselves
 * (AT_SYMLINK_NOFOLLOW, O_NOFOLLOW, linkat without AT_SYMLINK_FOLLOW), and
 * path_open's open flags and FIFO waits. */
#ifndef _WIN32 /* wasi_path_host_windows.c is the Windows one */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h> /* renameat */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "wasi_errno.h"
#include "wasi_internal.h"
#include "wasi_path_host.h"

static int ends_in_slash(const char *path) {
  size_t len = strlen(path);
  return len && path[len - 1] == '/';
}

static uint32_t host_result(int rc) {
  return rc == 0 ? WASI_ESUCCESS : wtp__wasi_errno(errno);
}

/* ---- path_open ---- */

static int open_flags(uint32_t oflags, uint16_t fdflags, uint64_t rights) {
  const uint64_t read_rights = WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_READDIR;
  const uint64_t write_rights = WASI_RIGHTS_FD_DATASYNC | WASI_RIGHTS_FD_WRITE |
                                WASI_RIGHTS_FD_ALLOCATE |
                                WASI_RIGHTS_FD_FILESTAT_SET_SIZE;
  int readable = (rights & read_rights) != 0;
  int writable = (rights & write_rights) != 0 ||
                 (fdflags & WASI_FDFLAGS_APPEND) ||
                 (oflags & WASI_OFLAGS_TRUNC);
  /* O_NONBLOCK: opening a FIFO never waits for its peer (the table marks
   * streams non-blocking anyway and emulates the guest's NONBLOCK). */
  int flags = O_NONBLOCK | O_NOCTTY;
  if (oflags & WASI_OFLAGS_DIRECTORY) {
    /* A directory asked with write rights: the OS answers (EISDIR for a
     * directory, ENOTDIR for a file, ENOENT for nothing), as wasmtime's. */
    flags |= O_DIRECTORY | ((rights & write_rights) == 0 ? O_RDONLY
                            : readable                   ? O_RDWR
                                                         : O_WRONLY);
  } else {
    flags |= readable && writable ? O_RDWR : writable ? O_WRONLY : O_RDONLY;
  }
  if (oflags & WASI_OFLAGS_CREAT) flags |= O_CREAT;
  if (oflags & WASI_OFLAGS_EXCL) flags |= O_EXCL;
  if (oflags & WASI_OFLAGS_TRUNC) flags |= O_TRUNC;
  /* APPEND is the entry's, not O_APPEND (wasi_fd.c), except for an
   * append-only file (path_open). */
  if (fdflags & WASI_FDFLAGS_DSYNC) flags |= O_DSYNC;
  if (fdflags & WASI_FDFLAGS_SYNC) flags |= O_SYNC;
#ifdef O_RSYNC
  if (fdflags & WASI_FDFLAGS_RSYNC) flags |= O_RSYNC;
#else
  if (fdflags & WASI_FDFLAGS_RSYNC) flags |= O_SYNC;
#endif
  return flags;
}

/* FIFOs. The open itself is non-blocking (O_NONBLOCK above) so that it
 * never waits beyond the stop's reach; unless the guest asked NONBLOCK, the
 * wait a blocking open makes for the peer is made here, stoppably:
 *   - a reader waits for a writer (Linux). It is done when tee() of one
 *     byte (which consumes nothing) answers EAGAIN (a writer is there) or
 *     data, or when poll() says POLLHUP: a writer came and went since the
 *     reader's open, which a blocking open would have returned for (its
 *     reads then see the end of file). Between checks it sleeps until
 *     someone opens the FIFO: an inotify IN_OPEN watch on its inode, added
 *     before the first check (so no writer is missed), polled with the
 *     program's stop (wtp__wasi_wait_fd). Without inotify (its limits) it
 *     looks again every FIFO_RETRY_MS. Elsewhere (macOS) the reader does
 *     not wait, and a read before the writer comes sees an end of file.
 *   - a writer's non-blocking open answers ENXIO until a reader comes; it
 *     looks again every FIFO_RETRY_MS (the kernel signals no reader's
 *     arrival that a writer could wait on: a reader blocked in its own
 *     open has not finished it, so IN_OPEN would never come). A reader that
 *     opens and closes between two looks is missed, where a blocking open
 *     would have returned (and its write met EPIPE).
 * WTP_WASI_STOPPED if the program stops meanwhile. */
#define FIFO_RETRY_MS 10

/* Sleeps FIFO_RETRY_MS, or less if fd (not -1) turns readable; 1 if the
 * program has stopped (so a stop ends a wait within FIFO_RETRY_MS). */
static int fifo_pause(wtp_wasi *wasi, int fd) {
  struct pollfd ready = {fd, POLLIN, 0};
  if (wtp_wasi_stopped(wasi)) return 1;
  poll(&ready, fd < 0 ? 0 : 1, FIFO_RETRY_MS);
  return wtp_wasi_stopped(wasi);
}

#ifdef __linux__
/* An inotify descriptor that turns readable when anyone opens the FIFO
 * host_fd is open on, or -1. */
static int fifo_watch(int host_fd) {
  int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (watch < 0) return -1;
  char path[40];
  snprintf(path, sizeof path, "/proc/self/fd/%d", host_fd);
  if (inotify_add_watch(watch, path, IN_OPEN) < 0) {
    close(watch);
    return -1;
  }
  return watch;
}

/* Empties the watch's queue (it only wakes the waiter). */
static void fifo_watch_drain(int watch) {
  char events[4096];
  while (read(watch, events, sizeof events) > 0) {
  }
}
#endif

static uint32_t fifo_wait_writer(wtp_wasi *wasi, int host_fd) {
#ifdef __linux__
  int scratch[2];
  if (pipe2(scratch, O_CLOEXEC | O_NONBLOCK) != 0) return WASI_ESUCCESS;
  int watch = fifo_watch(host_fd);
  uint32_t err = WASI_ESUCCESS;
  for (;;) {
    ssize_t n = tee(host_fd, scratch[1], 1, SPLICE_F_NONBLOCK);
    if (n != 0) break; /* data, a writer (EAGAIN), or an error for the read */
    struct pollfd gone = {host_fd, POLLIN, 0};
    if (poll(&gone, 1, 0) > 0) break; /* a writer came and went: POLLHUP */
    if (watch >= 0) {
      err = wtp__wasi_wait_fd(wasi, watch, POLLIN);
      if (err == WTP_WASI_STOPPED) break;
      fifo_watch_drain(watch);
      err = WASI_ESUCCESS;
    } else if (fifo_pause(wasi, host_fd)) {
      err = WTP_WASI_STOPPED;
      break;
    }
  }
  if (watch >= 0) close(watch);
  close(scratch[0]);
  close(scratch[1]);
  if (err) close(host_fd);
  return err;
#else
  (void)wasi, (void)host_fd;
  return WASI_ESUCCESS;
#endif
}

static uint32_t fifo_wait_reader(wtp_wasi *wasi, int dir, const char *path,
                                 int flags, int follow, int *host_fd) {
  wtp__wasi_at at;
  if (wtp__wasi_beneath_resolve(dir, path, follow || ends_in_slash(path), &at))
    return WASI_ENXIO;
  struct stat st;
  int fifo = fstatat(at.dir, at.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISFIFO(st.st_mode);
  wtp__wasi_at_close(&at);
  if (!fifo) return WASI_ENXIO; /* a socket's or a device's ENXIO */
  for (;;) {
    if (fifo_pause(wasi, -1)) return WTP_WASI_STOPPED;
    uint32_t err =
        wtp__wasi_beneath_open(dir, path, flags, 0666, follow, host_fd);
    if (err != WASI_ENXIO) return err;
  }
}

uint32_t wtp__wasi_host_open(wtp_wasi *wasi, int base, const char *path,
                             uint32_t oflags, uint16_t fdflags,
                             uint64_t rights_base, int follow, int *host_fd_out,
                             uint8_t *filetype) {
  int flags = open_flags(oflags, fdflags, rights_base);
  int waits = !(fdflags & WASI_FDFLAGS_NONBLOCK);
  int host_fd = -1;
  uint32_t err =
      wtp__wasi_beneath_open(base, path, flags, 0666, follow, &host_fd);
  /* An append-only file (chattr +a) opens for writing only with O_APPEND:
   * an APPEND open of it gets a description that carries it (its pwrite
   * then appends, as the kernel insists for such a file). */
  if (err == WASI_EPERM && (fdflags & WASI_FDFLAGS_APPEND) &&
      (flags & O_ACCMODE) != O_RDONLY)
    err = wtp__wasi_beneath_open(base, path, flags | O_APPEND, 0666, follow,
                                 &host_fd);
  if (err == WASI_ENXIO && waits && (flags & O_ACCMODE) == O_WRONLY)
    err = fifo_wait_reader(wasi, base, path, flags, follow, &host_fd);
  if (err) return err;
  struct stat st;
  if (fstat(host_fd, &st) != 0) {
    int e = errno;
    close(host_fd);
    return wtp__wasi_errno(e);
  }
  if (S_ISFIFO(st.st_mode) && waits && (flags & O_ACCMODE) == O_RDONLY &&
      (err = fifo_wait_writer(wasi, host_fd)))
    return err;
  *host_fd_out = host_fd;
  *filetype = wtp__wasi_filetype(st.st_mode);
  return WASI_ESUCCESS;
}

/* ---- directories, files, links ---- */

uint32_t wtp__wasi_host_stat_at(const wtp__wasi_at *at,
                                uint8_t filestat[WTP__WASI_FILESTAT_SIZE]) {
  struct stat st;
  if (fstatat(at->dir, at->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return wtp__wasi_errno(errno);
  wtp__wasi_write_filestat(filestat, &st);
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_host_mkdir_at(const wtp__wasi_at *at) {
  return host_result(mkdirat(at->dir, at->name, 0777));
}

uint32_t wtp__wasi_host_rmdir_at(const wtp__wasi_at *at) {
  return host_result(unlinkat(at->dir, at->name, AT_REMOVEDIR));
}

uint32_t wtp__wasi_host_unlink_at(const wtp__wasi_at *at) {
  return host_result(unlinkat(at->dir, at->name, 0));
}

uint32_t wtp__wasi_host_rename_at(const wtp__wasi_at *from,
                                  const wtp__wasi_at *to) {
  return host_result(renameat(from->dir, from->name, to->dir, to->name));
}

uint32_t wtp__wasi_host_link_at(const wtp__wasi_at *from,
                                const wtp__wasi_at *to) {
  return host_result(linkat(from->dir, from->name, to->dir, to->name, 0));
}

uint32_t wtp__wasi_host_symlink_at(const char *target, const wtp__wasi_at *at) {
  return host_result(symlinkat(target, at->dir, at->name));
}

uint32_t wtp__wasi_host_readlink_at(const wtp__wasi_at *at, char *buf,
                                    size_t size, size_t *len) {
  ssize_t n = readlinkat(at->dir, at->name, buf, size);
  if (n < 0) return wtp__wasi_errno(errno);
  *len = (size_t)n;
  return WASI_ESUCCESS;
}

/* One timestamp for utimensat. */
static void set_time(struct timespec *ts, uint64_t ns, uint32_t fstflags,
                     uint32_t given, uint32_t now) {
  if (fstflags & now) {
    ts->tv_sec = 0, ts->tv_nsec = UTIME_NOW;
  } else if (fstflags & given) {
    ts->tv_sec = (time_t)(ns / 1000000000u),
    ts->tv_nsec = (long)(ns % 1000000000u);
  } else {
    ts->tv_sec = 0, ts->tv_nsec = UTIME_OMIT;
  }
}

uint32_t wtp__wasi_host_set_times_at(const wtp__wasi_at *at, uint64_t atim,
                                     uint64_t mtim, uint32_t fstflags) {
  struct timespec times[2];
  set_time(&times[0], atim, fstflags, WASI_FSTFLAGS_ATIM,
           WASI_FSTFLAGS_ATIM_NOW);
  set_time(&times[1], mtim, fstflags, WASI_FSTFLAGS_MTIM,
           WASI_FSTFLAGS_MTIM_NOW);
  return host_result(utimensat(at->dir, at->name, times, AT_SYMLINK_NOFOLLOW));
}

/* ---- fd_readdir's listing ---- */

struct wtp__wasi_host_dir {
  DIR *dir;
};

static uint8_t dirent_type(DIR *dir, const struct dirent *d) {
  switch (d->d_type) {
    case DT_REG:
      return WASI_FILETYPE_REGULAR_FILE;
    case DT_DIR:
      return WASI_FILETYPE_DIRECTORY;
    case DT_LNK:
      return WASI_FILETYPE_SYMBOLIC_LINK;
    case DT_CHR:
      return WASI_FILETYPE_CHARACTER_DEVICE;
    case DT_BLK:
      return WASI_FILETYPE_BLOCK_DEVICE;
    case DT_SOCK:
      return WASI_FILETYPE_SOCKET_STREAM;
    case DT_FIFO:
      return WASI_FILETYPE_UNKNOWN;
    default: {
      struct stat st;
      if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return WASI_FILETYPE_UNKNOWN;
      return wtp__wasi_filetype(st.st_mode);
    }
  }
}

uint32_t wtp__wasi_host_dir_open(int host_fd, wtp__wasi_host_dir **out) {
  wtp__wasi_host_dir *d = calloc(1, sizeof *d);
  if (!d) return WASI_ENOMEM;
  /* A description of its own, so that the listing's position is not the
   * descriptor's. */
  int fd = openat(host_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !(d->dir = fdopendir(fd))) {
    int e = errno;
    if (fd >= 0) close(fd);
    free(d);
    return wtp__wasi_errno(e);
  }
  *out = d;
  return WASI_ESUCCESS;
}

int wtp__wasi_host_dir_next(wtp__wasi_host_dir *d, wtp__wasi_dirent *out) {
  errno = 0;
  struct dirent *e = readdir(d->dir);
  if (!e) return errno ? -(int)wtp__wasi_errno(errno) : 0;
  size_t len = strlen(e->d_name);
  if (len >= sizeof out->name) len = sizeof out->name - 1;
  memcpy(out->name, e->d_name, len);
  out->name[len] = '\0';
  out->name_len = (uint32_t)len;
  out->ino = (uint64_t)e->d_ino;
  out->type = dirent_type(d->dir, e);
  return 1;
}

uint32_t wtp__wasi_host_dir_rewind(wtp__wasi_host_dir *d) {
  rewinddir(d->dir);
  return WASI_ESUCCESS;
}

void wtp__wasi_host_dir_close(wtp__wasi_host_dir *d) {
  if (d->dir) closedir(d->dir);
  free(d);
}

#endif /* !_WIN32 */
