/* wasi_path_calls.c: the path_* calls and fd_readdir. Each copies its guest
 * paths and checks its result ranges first (EFAULT: nothing happened), takes
 * its directory descriptors' references, resolves beneath them
 * (wasi_path.c: the sandbox), and makes one *at call on the resolved
 * directory that never follows the final component itself. */
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
#include "wasi_path.h"

/* A guest path, copied. */
typedef char guest_path[WTP__WASI_PATH_MAX + 1];

static int ends_in_slash(const char *path) {
  size_t len = strlen(path);
  return len && path[len - 1] == '/';
}

/* Takes fd's reference if it is a directory (ENOTDIR otherwise) that holds
 * the rights `needed` (ENOTCAPABLE otherwise: wasi_table.c, "Rights"). */
static uint32_t get_dir(wtp_wasi *wasi, uint32_t fd, uint64_t needed,
                        wtp__wasi_entry **out) {
  uint32_t err = wtp__wasi_fd_get(wasi, fd, out);
  if (err) return err;
  if (wtp__wasi_entry_filetype(*out) != WASI_FILETYPE_DIRECTORY) {
    err = WASI_ENOTDIR;
  } else {
    err = wtp__wasi_entry_need(*out, needed);
  }
  if (err) wtp__wasi_fd_put(*out);
  return err;
}

/* Takes fd's reference (a directory holding `needed`) and resolves path
 * beneath it; on success the caller closes *at and puts *entry. */
static uint32_t resolve(wtp_wasi *wasi, uint32_t fd, uint64_t needed,
                        const char *path, int follow, wtp__wasi_entry **entry,
                        wtp__wasi_at *at) {
  uint32_t err = get_dir(wasi, fd, needed, entry);
  if (err) return err;
  err = wtp__wasi_beneath_resolve(wtp__wasi_entry_host_fd(*entry), path, follow,
                                  at);
  if (err) wtp__wasi_fd_put(*entry);
  return err;
}

/* The guest's path at [ptr, ptr + len) copied into path (EFAULT, EINVAL,
 * EILSEQ: wtp__wasi_path_copy), then resolved beneath fd as resolve(). */
static uint32_t resolve_guest(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                              uint64_t fd, uint64_t needed, uint64_t ptr,
                              uint64_t len, int follow, guest_path path,
                              wtp__wasi_entry **entry, wtp__wasi_at *at) {
  uint32_t err =
      wtp__wasi_path_copy(memory, ptr, len, path, sizeof(guest_path));
  if (err) return err;
  return resolve(wasi, (uint32_t)fd, needed, path, follow, entry, at);
}

static void release(wtp__wasi_entry *entry, wtp__wasi_at *at) {
  wtp__wasi_at_close(at);
  wtp__wasi_fd_put(entry);
}

/* A path that ended in '/' names a directory: ENOTDIR if at's entry is not
 * one (not followed), its lstat errno if it does not exist. */
static int not_a_directory(const wtp__wasi_at *at) {
  struct stat st;
  if (fstatat(at->dir, at->name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
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

/* path_open(fd, dirflags, path, path_len, oflags, rights_base,
 * rights_inheriting, fdflags, fd_out) */
WTP__WASI_CALL(path_open) {
  uint32_t dirfd = (uint32_t)args[0], oflags = (uint32_t)args[4];
  int follow = (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) != 0;
  uint64_t rights_base = args[5], rights_inheriting = args[6], fd_out = args[8];
  uint32_t fdflags = (uint32_t)args[7];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, fd_out, 4)) return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  if (oflags & ~0xfu || fdflags & ~WASI_FDFLAGS_ALL) return WASI_EINVAL;
  if ((oflags & WASI_OFLAGS_DIRECTORY) &&
      (oflags & (WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL | WASI_OFLAGS_TRUNC)))
    return WASI_EINVAL; /* wasmtime's answer: a directory is never made here */
  /* Rights (wasi_table.c, "Rights"): the directory must hold PATH_OPEN and
   * what the oflags do; the new fd gets what it asked within the
   * directory's inheriting rights (the rest is dropped, as wasi-common
   * drops it), so its access mode never exceeds what they allow. */
  uint64_t needed =
      WASI_RIGHTS_PATH_OPEN |
      (oflags & WASI_OFLAGS_CREAT ? WASI_RIGHTS_PATH_CREATE_FILE : 0) |
      (oflags & WASI_OFLAGS_TRUNC ? WASI_RIGHTS_PATH_FILESTAT_SET_SIZE : 0);
  wtp__wasi_entry *dir;
  if ((err = get_dir(wasi, dirfd, needed, &dir))) return err;
  uint64_t granted = wtp__wasi_entry_inheriting(dir);
  rights_base &= granted;
  rights_inheriting &= granted;
  int flags = open_flags(oflags, (uint16_t)fdflags, rights_base);
  int waits = !(fdflags & WASI_FDFLAGS_NONBLOCK);
  int host_fd = -1, base = wtp__wasi_entry_host_fd(dir);
  err = wtp__wasi_beneath_open(base, path, flags, 0666, follow, &host_fd);
  /* An append-only file (chattr +a) opens for writing only with O_APPEND:
   * an APPEND open of it gets a description that carries it (its pwrite
   * then appends, as the kernel insists for such a file). */
  if (err == WASI_EPERM && (fdflags & WASI_FDFLAGS_APPEND) &&
      (flags & O_ACCMODE) != O_RDONLY)
    err = wtp__wasi_beneath_open(base, path, flags | O_APPEND, 0666, follow,
                                 &host_fd);
  if (err == WASI_ENXIO && waits && (flags & O_ACCMODE) == O_WRONLY)
    err = fifo_wait_reader(wasi, base, path, flags, follow, &host_fd);
  wtp__wasi_fd_put(dir);
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
  uint8_t filetype = wtp__wasi_filetype(st.st_mode);
  uint32_t fd;
  /* Within what its kind can hold: a directory no seek, tell or set-size.
   * Any other kind keeps the seek and tell it asked for, as wasmtime
   * reports them on what a program opens: a character device opened by
   * path (/dev/null) is then no terminal for wasi-libc's isatty(), and a
   * seek on a stream still answers ESPIPE (wasi_fd.c). */
  uint64_t kind = wtp__wasi_kind_rights(filetype);
  if (filetype != WASI_FILETYPE_DIRECTORY)
    kind |= WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL;
  err = wtp__wasi_fd_add(wasi, host_fd, filetype, (uint16_t)fdflags,
                         rights_base & kind, rights_inheriting, &fd);
  if (err) return err;
  wtp__wasi_store32(memory, fd_out, fd);
  return WASI_ESUCCESS;
}

/* ---- directories, files, links ---- */

/* path_create_directory(fd, path, path_len) */
WTP__WASI_CALL(path_create_directory) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_CREATE_DIRECTORY,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  err = host_result(mkdirat(at.dir, at.name, 0777));
  release(dir, &at);
  return err;
}

/* path_remove_directory(fd, path, path_len) */
WTP__WASI_CALL(path_remove_directory) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_REMOVE_DIRECTORY,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  err = host_result(unlinkat(at.dir, at.name, AT_REMOVEDIR));
  release(dir, &at);
  return err;
}

/* path_unlink_file(fd, path, path_len) */
WTP__WASI_CALL(path_unlink_file) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_UNLINK_FILE,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  /* "name/" must be a directory (ENOTDIR otherwise), which unlinkat then
   * refuses with the platform's errno (Linux EISDIR, macOS EPERM, as
   * wasmtime reports them). */
  int host_err = at.trailing_slash ? not_a_directory(&at) : 0;
  if (!host_err && unlinkat(at.dir, at.name, 0) != 0) host_err = errno;
  release(dir, &at);
  return host_err ? wtp__wasi_errno(host_err) : WASI_ESUCCESS;
}

/* path_rename(fd, old_path, old_path_len, new_fd, new_path, new_path_len) */
WTP__WASI_CALL(path_rename) {
  guest_path old_path, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[1], args[2], old_path, sizeof old_path);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[4], args[5], new_path,
                              sizeof new_path);
  if (err) return err;
  wtp__wasi_entry *old_dir, *new_dir;
  wtp__wasi_at old_at, new_at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_RENAME_SOURCE,
                     old_path, 0, &old_dir, &old_at)))
    return err;
  if ((err = resolve(wasi, (uint32_t)args[3], WASI_RIGHTS_PATH_RENAME_TARGET,
                     new_path, 0, &new_dir, &new_at))) {
    release(old_dir, &old_at);
    return err;
  }
  int host_err = 0;
  if (old_at.trailing_slash || new_at.trailing_slash)
    host_err = not_a_directory(&old_at);
  if (!host_err &&
      renameat(old_at.dir, old_at.name, new_at.dir, new_at.name) != 0)
    host_err = errno;
  release(new_dir, &new_at);
  release(old_dir, &old_at);
  return host_err ? wtp__wasi_errno(host_err) : WASI_ESUCCESS;
}

/* What a new name ending in '/' answers (path_link, path_symlink: nothing
 * is made): EEXIST over a directory, ENOTDIR over anything else, ENOENT
 * over nothing, as Linux and wasmtime. */
static int trailing_new_name(const wtp__wasi_at *at) {
  struct stat st;
  if (fstatat(at->dir, at->name, &st, AT_SYMLINK_NOFOLLOW) != 0) return ENOENT;
  return S_ISDIR(st.st_mode) ? EEXIST : ENOTDIR;
}

/* path_link(old_fd, old_flags, old_path, old_path_len, new_fd, new_path,
 * new_path_len). SYMLINK_FOLLOW is refused with EINVAL, as wasmtime does:
 * the old path's final link is linked itself, never followed (linkat
 * without AT_SYMLINK_FOLLOW). */
WTP__WASI_CALL(path_link) {
  guest_path old_path, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], old_path, sizeof old_path);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[5], args[6], new_path,
                              sizeof new_path);
  if (err) return err;
  if (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) return WASI_EINVAL;
  wtp__wasi_entry *old_dir, *new_dir;
  wtp__wasi_at old_at, new_at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_LINK_SOURCE,
                     old_path, 0, &old_dir, &old_at)))
    return err;
  if ((err = resolve(wasi, (uint32_t)args[4], WASI_RIGHTS_PATH_LINK_TARGET,
                     new_path, 0, &new_dir, &new_at))) {
    release(old_dir, &old_at);
    return err;
  }
  int host_err = old_at.trailing_slash ? not_a_directory(&old_at) : 0;
  if (!host_err && new_at.trailing_slash) host_err = trailing_new_name(&new_at);
  if (!host_err &&
      linkat(old_at.dir, old_at.name, new_at.dir, new_at.name, 0) != 0)
    host_err = errno;
  release(new_dir, &new_at);
  release(old_dir, &old_at);
  return host_err ? wtp__wasi_errno(host_err) : WASI_ESUCCESS;
}

/* path_symlink(old_path, old_path_len, fd, new_path, new_path_len): the
 * link's text is stored as given, except an absolute target, which is
 * refused with EPERM as wasmtime refuses it (no link to the host's root is
 * ever made); a relative one that climbs out can be made, and following it
 * is the sandbox's business. */
WTP__WASI_CALL(path_symlink) {
  guest_path target, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[0], args[1], target, sizeof target);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[3], args[4], new_path,
                              sizeof new_path);
  if (err) return err;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[2], WASI_RIGHTS_PATH_SYMLINK,
                     new_path, 0, &dir, &at)))
    return err;
  if (target[0] == '/') {
    release(dir, &at);
    return WASI_EPERM;
  }
  int host_err = at.trailing_slash ? trailing_new_name(&at) : 0;
  if (!host_err && symlinkat(target, at.dir, at.name) != 0) host_err = errno;
  release(dir, &at);
  return host_err ? wtp__wasi_errno(host_err) : WASI_ESUCCESS;
}

/* path_readlink(fd, path, path_len, buf, buf_len, bufused_out): a link
 * longer than buf_len is cut to buf_len bytes (no NUL is written). */
WTP__WASI_CALL(path_readlink) {
  uint64_t buf = args[3], buf_len = args[4], bufused_out = args[5];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, buf, buf_len) ||
      !wtp__wasi_range_ok(memory, bufused_out, 4))
    return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[1], args[2], path, sizeof path);
  if (err) return err;
  int trailing = ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_READLINK, path,
                     trailing, &dir, &at)))
    return err;
  char text[WTP__WASI_PATH_MAX + 1];
  ssize_t n = -1;
  int host_err = 0;
  if (trailing) {
    /* "name/" names what the link points at, never a link. */
    host_err = not_a_directory(&at);
    if (host_err == 0) host_err = EINVAL;
  } else if ((n = readlinkat(at.dir, at.name, text, sizeof text)) < 0) {
    host_err = errno;
  }
  release(dir, &at);
  if (host_err) return wtp__wasi_errno(host_err);
  size_t used = (uint64_t)n < buf_len ? (size_t)n : (size_t)buf_len;
  memcpy(memory->base + buf, text, used);
  wtp__wasi_store32(memory, bufused_out, (uint32_t)used);
  return WASI_ESUCCESS;
}

/* ---- filestat ---- */

/* path_filestat_get(fd, flags, path, path_len, filestat_out) */
WTP__WASI_CALL(path_filestat_get) {
  uint64_t out = args[4];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, out, 64)) return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  int follow =
      (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) || ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_FILESTAT_GET,
                     path, follow, &dir, &at)))
    return err;
  struct stat st;
  int host_err =
      fstatat(at.dir, at.name, &st, AT_SYMLINK_NOFOLLOW) != 0 ? errno : 0;
  if (!host_err && at.trailing_slash && !S_ISDIR(st.st_mode))
    host_err = ENOTDIR;
  release(dir, &at);
  if (host_err) return wtp__wasi_errno(host_err);
  wtp__wasi_write_filestat(memory->base + out, &st);
  return WASI_ESUCCESS;
}

/* One timestamp of path_filestat_set_times: EINVAL if both given and NOW. */
static int set_time(struct timespec *ts, uint64_t ns, uint32_t fstflags,
                    uint32_t given, uint32_t now) {
  if ((fstflags & given) && (fstflags & now)) return EINVAL;
  if (fstflags & now) {
    ts->tv_sec = 0, ts->tv_nsec = UTIME_NOW;
  } else if (fstflags & given) {
    ts->tv_sec = (time_t)(ns / 1000000000u),
    ts->tv_nsec = (long)(ns % 1000000000u);
  } else {
    ts->tv_sec = 0, ts->tv_nsec = UTIME_OMIT;
  }
  return 0;
}

/* path_filestat_set_times(fd, flags, path, path_len, atim, mtim, fstflags) */
WTP__WASI_CALL(path_filestat_set_times) {
  guest_path path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  uint32_t fstflags = (uint32_t)args[6];
  struct timespec times[2];
  if (fstflags & ~0xfu ||
      set_time(&times[0], args[4], fstflags, WASI_FSTFLAGS_ATIM,
               WASI_FSTFLAGS_ATIM_NOW) ||
      set_time(&times[1], args[5], fstflags, WASI_FSTFLAGS_MTIM,
               WASI_FSTFLAGS_MTIM_NOW))
    return WASI_EINVAL;
  int follow =
      (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) || ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err =
           resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_FILESTAT_SET_TIMES,
                   path, follow, &dir, &at)))
    return err;
  int host_err = at.trailing_slash ? not_a_directory(&at) : 0;
  if (!host_err && utimensat(at.dir, at.name, times, AT_SYMLINK_NOFOLLOW) != 0)
    host_err = errno;
  release(dir, &at);
  return host_err ? wtp__wasi_errno(host_err) : WASI_ESUCCESS;
}

/* ---- fd_readdir ---- */

/* A directory descriptor's listing between fd_readdir calls (in the entry's
 * readdir slot, under the entry's lock). Cookies are positions: the entry
 * at index i has cookie i (0 is the start) and d_next i + 1. The entry that
 * did not fit last time (wasi-libc asks for it again with a larger buffer)
 * is kept, so that reading a directory in order never rewinds. */
typedef struct readdir_state {
  DIR *dir;
  uint64_t position; /* the index readdir() returns next */
  int have_last;     /* last holds the entry at index position - 1 */
  struct {
    uint64_t ino;
    uint8_t type;
    uint32_t name_len;
    char name[256];
  } last;
} readdir_state;

static void readdir_state_free(void *state) {
  readdir_state *s = state;
  if (s->dir) closedir(s->dir);
  free(s);
}

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

/* Reads the next entry into s->last; 0 at the end, -1 with errno. */
static int readdir_next(readdir_state *s) {
  errno = 0;
  struct dirent *d = readdir(s->dir);
  if (!d) return errno ? -1 : 0;
  size_t len = strlen(d->d_name);
  if (len >= sizeof s->last.name) len = sizeof s->last.name - 1;
  memcpy(s->last.name, d->d_name, len);
  s->last.name[len] = '\0';
  s->last.name_len = (uint32_t)len;
  s->last.ino = (uint64_t)d->d_ino;
  s->last.type = dirent_type(s->dir, d);
  s->position++;
  s->have_last = 1;
  return 1;
}

/* Positions s so that the next entry it hands out is the one at cookie.
 * Returns 1 if s->last holds it already (to be emitted first), 0 if the next
 * readdir_next reads it, -1 with errno. */
static int readdir_seek(readdir_state *s, uint64_t cookie) {
  if (s->have_last && cookie == s->position - 1) return 1;
  if (cookie < s->position) {
    rewinddir(s->dir);
    s->position = 0;
    s->have_last = 0;
  }
  while (s->position < cookie) {
    int r = readdir_next(s);
    if (r <= 0) return r; /* past the end: nothing more to emit */
  }
  return 0;
}

/* Appends the dirent of s->last (24-byte header, then the name), cut at
 * buf_len; returns the bytes written. */
static uint32_t emit(const wtp_wasi_memory *memory, uint64_t buf, uint32_t used,
                     uint32_t buf_len, const readdir_state *s) {
  uint8_t record[24 + sizeof s->last.name];
  memset(record, 0, 24);
  uint64_t next = s->position, ino = s->last.ino;
  for (int i = 0; i < 8; i++)
    record[i] = (uint8_t)(next >> (8 * i)),
    record[8 + i] = (uint8_t)(ino >> (8 * i));
  for (int i = 0; i < 4; i++)
    record[16 + i] = (uint8_t)(s->last.name_len >> (8 * i));
  record[20] = s->last.type;
  memcpy(record + 24, s->last.name, s->last.name_len);
  uint32_t size = 24 + s->last.name_len, room = buf_len - used;
  uint32_t n = size < room ? size : room;
  memcpy(memory->base + buf + used, record, n);
  return n;
}

static int open_listing(wtp__wasi_entry *entry, readdir_state **out) {
  readdir_state *s = calloc(1, sizeof *s);
  if (!s) return ENOMEM;
  int fd = openat(wtp__wasi_entry_host_fd(entry), ".",
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !(s->dir = fdopendir(fd))) {
    int e = errno;
    if (fd >= 0) close(fd);
    free(s);
    return e;
  }
  *out = s;
  return 0;
}

/* fd_readdir(fd, buf, buf_len, cookie, bufused_out) */
WTP__WASI_CALL(fd_readdir) {
  uint64_t buf = args[1], cookie = args[3], bufused_out = args[4];
  uint32_t buf_len = (uint32_t)args[2];
  if (!wtp__wasi_range_ok(memory, buf, buf_len) ||
      !wtp__wasi_range_ok(memory, bufused_out, 4))
    return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err =
      get_dir(wasi, (uint32_t)args[0], WASI_RIGHTS_FD_READDIR, &entry);
  if (err) return err;
  wtp__wasi_entry_lock(entry);
  void (*free_state)(void *) = readdir_state_free;
  void **slot = wtp__wasi_entry_readdir_state(entry, &free_state);
  int host_err = 0;
  if (!*slot) host_err = open_listing(entry, (readdir_state **)slot);
  uint32_t used = 0;
  if (!host_err) {
    readdir_state *s = *slot;
    int r = readdir_seek(s, cookie);
    if (r == 1) used += emit(memory, buf, used, buf_len, s);
    while (r >= 0 && used < buf_len && (r = readdir_next(s)) > 0)
      used += emit(memory, buf, used, buf_len, s);
    if (r < 0) host_err = errno;
  }
  wtp__wasi_entry_unlock(entry);
  wtp__wasi_fd_put(entry);
  if (host_err) return wtp__wasi_errno(host_err);
  wtp__wasi_store32(memory, bufused_out, used);
  return WASI_ESUCCESS;
}
