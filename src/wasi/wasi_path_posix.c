/* wasi_path_posix.c: the sandbox on Linux and macOS. Every guest path is resolved beneath a directory
 * descriptor of the program's table (a preopen, or a directory opened
 * through one), and nothing a program does reaches outside it.
 *
 * The guarantee. A path_* call opens, creates, reads, writes, truncates,
 * links, renames, removes or stats only entries whose every step of
 * resolution stayed beneath the descriptor it names:
 *   - an absolute path, a ".." above the base, and a symbolic link whose
 *     target is absolute or climbs above the base (as an intermediate or a
 *     followed final component, dangling or not, also under O_CREAT) fail
 *     with WASI EPERM (63), the errno wasmtime's cap-std answers for an
 *     escape (preview1_interesting_paths); nothing outside is touched;
 *   - ".." inside the sandbox is allowed (cap-std does the same); it goes
 *     to the directory the walk came from, never to a path the kernel
 *     recomputes, so a concurrent rename cannot carry it outside;
 *   - a final component is followed only when the call asks (lookupflags
 *     SYMLINK_FOLLOW, or a trailing '/'); the *at call on it is always made
 *     with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW / linkat without
 *     AT_SYMLINK_FOLLOW, so the kernel never follows a final link on its own;
 *     path_link never follows one at all (SYMLINK_FOLLOW: EINVAL, as wasmtime);
 *   - more than WTP__WASI_SYMLINK_MAX links in one resolution: ELOOP;
 *   - a path with a NUL byte: EINVAL; not UTF-8: EILSEQ; empty: ENOENT;
 *     "file/": ENOTDIR; longer than WTP__WASI_PATH_MAX: ENAMETOOLONG; (the
 *     walk only) more than WALK_DEPTH_MAX levels deep: ENAMETOOLONG.
 * A directory swapped for a symbolic link while a walk is in it never
 * carries the walk outside (TOCTOU): every step is opened relative to the
 * descriptor of the step before with O_NOFOLLOW, so the kernel never
 * follows a link the walk did not read and check itself.
 *
 * How. On Linux with openat2 (5.6+), the kernel resolves with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (its EXDEV for an escape becomes
 * EPERM); path_open is then one system call. Elsewhere (macOS, older
 * kernels: ENOSYS or a seccomp EPERM at the first probe, remembered) a
 * component walk does the same in user space: each directory opened with
 * O_NOFOLLOW | O_DIRECTORY from the one before, kept on a stack for "..",
 * each link read with readlinkat and its target spliced into the rest of
 * the path. WTP_WASI_PATH_WALK=1 in the environment (or
 * wtp__wasi_path_force_walk) forces the walk so that the tests run the same
 * cases over both.
 *
 * Not promised: the program may still see the outside's existence through
 * what the host puts inside (a hard link made by the host, a bind mount, a
 * ".." entry's inode number in fd_readdir), and symbolic link *text* is
 * stored as given (path_symlink) unless it is absolute (EPERM, as wasmtime),
 * so a link to "../../etc" can be made; following it fails. */
#ifndef _WIN32 /* Linux and macOS; wasi_path_windows.c is the Windows one */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH */
#endif

#include "wasi_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasi_errno.h"
#include "wasi_internal.h"

#ifdef __linux__
#include <sys/syscall.h>
#ifndef __NR_openat2
#define __NR_openat2 437 /* the same number on every Linux architecture */
#endif
/* <linux/openat2.h>, which old headers lack. */
struct wtp_open_how {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
#define WTP_RESOLVE_NO_MAGICLINKS 0x02
#define WTP_RESOLVE_BENEATH 0x08
#endif

/* How a walk step opens a directory: only to resolve names beneath it.
 * WTP_WASI_PATH_NO_O_PATH builds the macOS way on Linux (for a test run). */
#if defined(O_PATH) && !defined(WTP_WASI_PATH_NO_O_PATH)
#define DIR_STEP_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_STEP_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

/* Inside this file an escape is the host errno EXDEV (openat2's answer for
 * it; nothing else a resolution does can give EXDEV). */
#define ESCAPE EXDEV

/* The longest text a walk holds at once (a path with its links spliced in). */
#define WALK_TEXT_MAX (16 * WTP__WASI_PATH_MAX)
/* The most directory descriptors one walk holds at once (one per level it
 * has entered, kept for ".."): a deeper path answers ENAMETOOLONG, so that a
 * path thousands of levels deep (through links) never exhausts the
 * process's descriptors, which other threads (and Node) share. openat2
 * holds none and has no such bound. */
#define WALK_DEPTH_MAX 128

static uint32_t to_wasi(int host_errno) {
  return host_errno == ESCAPE ? WASI_EPERM : wtp__wasi_errno(host_errno);
}

/* ---- openat2 or the walk ---- */

/* 0 not decided yet, 1 openat2, 2 the walk. Written by use_openat2 (any
 * thread, all of which compute the same answer) and by the test switch.
 * Relaxed: it caches an answer, and publishes no other data. */
static atomic_int path_mode;

#ifdef __linux__
static int sys_openat2(int dir, const char *path, int flags, mode_t mode) {
  struct wtp_open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (uint64_t)(unsigned)flags;
  how.mode = (flags & O_CREAT) ? (uint64_t)mode : 0;
  how.resolve = WTP_RESOLVE_BENEATH | WTP_RESOLVE_NO_MAGICLINKS;
  return (int)syscall(__NR_openat2, dir, path, &how, sizeof how);
}
#endif

static int use_openat2(void) {
  int mode = atomic_load_explicit(&path_mode, memory_order_relaxed);
  if (mode) return mode == 1;
  mode = 2;
#ifdef __linux__
  const char *forced = getenv("WTP_WASI_PATH_WALK");
  if (!(forced && strcmp(forced, "1") == 0)) {
    /* The kernel has openat2 unless it says ENOSYS (older than 5.6) or a
     * seccomp filter refuses it (EPERM, or ENOSYS); any other answer (a
     * descriptor, or ENOENT/EACCES for an odd working directory) is the
     * call's own. */
    int fd = sys_openat2(AT_FDCWD, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd >= 0) close(fd);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) mode = 1;
  }
#endif
  atomic_store_explicit(&path_mode, mode, memory_order_relaxed);
  return mode == 1;
}

int wtp__wasi_path_force_walk(int on) {
  atomic_store_explicit(&path_mode, on ? 2 : 0, memory_order_relaxed);
  return use_openat2();
}

/* ---- the walk ---- */

/* The directories a walk has entered below its base, each an owned
 * descriptor opened from the one before; the current directory is the top
 * (or the base). ".." pops. */
typedef struct walk {
  int base;
  int *dirs;
  size_t depth, cap;
  int links;
} walk;

static int walk_cur(const walk *w) {
  return w->depth ? w->dirs[w->depth - 1] : w->base;
}

static int walk_push(walk *w, int fd) {
  if (w->depth >= WALK_DEPTH_MAX) {
    close(fd);
    return ENAMETOOLONG;
  }
  if (w->depth == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 8;
    int *dirs = realloc(w->dirs, cap * sizeof *dirs);
    if (!dirs) {
      close(fd);
      return ENOMEM;
    }
    w->dirs = dirs, w->cap = cap;
  }
  w->dirs[w->depth++] = fd;
  return 0;
}

static int walk_pop(walk *w) {
  if (!w->depth) return ESCAPE;
  close(w->dirs[--w->depth]);
  return 0;
}

static void walk_free(walk *w) {
  while (w->depth) close(w->dirs[--w->depth]);
  free(w->dirs);
  w->dirs = NULL;
}

/* If name (in the current directory) is a symbolic link, replaces *text
 * with its target followed by rest (the path after name, its slashes
 * included) and returns 1; returns 0 if name is no link (or does not
 * exist), or minus a host errno. */
static int walk_splice_link(walk *w, const char *name, char **text,
                            const char *rest) {
  char target[WTP__WASI_PATH_MAX + 1];
  ssize_t n = readlinkat(walk_cur(w), name, target, sizeof target);
  if (n < 0) return (errno == EINVAL || errno == ENOENT) ? 0 : -errno;
  if ((size_t)n == sizeof target) return -ENAMETOOLONG;
  if (n == 0) return -ENOENT;
  if (target[0] == '/') return -ESCAPE;
  if (++w->links > WTP__WASI_SYMLINK_MAX) return -ELOOP;
  size_t rest_len = strlen(rest);
  if ((size_t)n + rest_len > WALK_TEXT_MAX) return -ENAMETOOLONG;
  char *spliced = malloc((size_t)n + rest_len + 1);
  if (!spliced) return -ENOMEM;
  memcpy(spliced, target, (size_t)n);
  memcpy(spliced + n, rest, rest_len + 1);
  free(*text);
  *text = spliced;
  return 1;
}

/* Walks path beneath w->base. On success the current directory holds the
 * final component, whose name (or ".") is in at->name. Host errno. */
static int walk_resolve(walk *w, const char *path, int follow_final,
                        wtp__wasi_at *at) {
  char *text = strdup(path);
  if (!text) return ENOMEM;
  const char *p = text;
  int err = 0;
  for (;;) {
    wtp__wasi_component c = wtp__wasi_next_component(p);
    if (c.len >= sizeof at->name) {
      err = ENAMETOOLONG;
      break;
    }
    char name[sizeof at->name];
    memcpy(name, c.start, c.len);
    name[c.len] = '\0';
    int dots = (c.len == 1 && name[0] == '.')                     ? 1
               : (c.len == 2 && name[0] == '.' && name[1] == '.') ? 2
                                                                  : 0;
    if (c.len == 0)
      dots = 1; /* a text of only slashes after a splice: this directory */
    if (dots) {
      if (dots == 2 && (err = walk_pop(w))) break;
      if (c.final) {
        strcpy(at->name, ".");
        at->trailing_slash = c.trailing_slash;
        break;
      }
      p = c.next;
      continue;
    }
    if (c.final && !follow_final) {
      memcpy(at->name, name, c.len + 1);
      at->trailing_slash = c.trailing_slash;
      break;
    }
    if (!c.final) {
      int fd = openat(walk_cur(w), name, DIR_STEP_FLAGS);
      if (fd >= 0) {
        if ((err = walk_push(w, fd))) break;
        p = c.next;
        continue;
      }
      int open_err = errno;
      if (open_err != ELOOP && open_err != ENOTDIR && open_err != EMLINK) {
        err = open_err;
        break;
      }
      size_t offset = (size_t)(c.start - text);
      int spliced = walk_splice_link(w, name, &text, c.after);
      if (spliced < 0) {
        err = -spliced;
        break;
      }
      if (spliced) {
        p = text;
        continue;
      }
      /* No link now: a file (ENOTDIR), or a link swapped back for a
       * directory between the two calls: try the component again. */
      if (open_err == ENOTDIR || ++w->links > WTP__WASI_SYMLINK_MAX) {
        err = open_err == ENOTDIR ? ENOTDIR : ELOOP;
        break;
      }
      p = text + offset;
      continue;
    }
    int spliced = walk_splice_link(w, name, &text, c.after);
    if (spliced < 0) {
      err = -spliced;
      break;
    }
    if (spliced) {
      p = text;
      continue;
    }
    memcpy(at->name, name, c.len + 1);
    at->trailing_slash = c.trailing_slash;
    break;
  }
  free(text);
  return err;
}

/* Hands the walk's current directory to at (the walk keeps no descriptor). */
static void walk_finish(walk *w, wtp__wasi_at *at) {
  if (w->depth) {
    at->dir = w->dirs[--w->depth];
    at->owned = 1;
  } else {
    at->dir = w->base;
    at->owned = 0;
  }
  walk_free(w);
}

static int resolve_by_walk(int base, const char *path, int follow_final,
                           wtp__wasi_at *at) {
  walk w = {base, NULL, 0, 0, 0};
  int err = walk_resolve(&w, path, follow_final, at);
  if (err) {
    walk_free(&w);
    return err;
  }
  walk_finish(&w, at);
  return 0;
}

/* ---- openat2 ---- */

#ifdef __linux__
/* Opens the directory text names beneath base ("" is base itself). */
static int openat2_dir(int base, const char *text, int *dir, int *owned) {
  if (!text[0]) {
    *dir = base, *owned = 0;
    return 0;
  }
  for (int tries = 0;; tries++) {
    int fd = sys_openat2(base, text, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd >= 0) {
      *dir = fd, *owned = 1;
      return 0;
    }
    /* EAGAIN: a rename raced a ".." (the kernel's own check); retry. */
    if ((errno != EAGAIN && errno != EINTR) || tries == 8) return errno;
  }
}

/* Splits text at its last component: the kernel resolves the directory part
 * beneath base; a followed final link is spliced in and resolved again. */
static int resolve_by_openat2(int base, const char *path, int follow_final,
                              wtp__wasi_at *at) {
  char *text = strdup(path);
  if (!text) return ENOMEM;
  int links = 0, err = 0;
  for (;;) {
    size_t len = strlen(text), end = len, start;
    while (end > 0 && text[end - 1] == '/') end--;
    start = end;
    while (start > 0 && text[start - 1] != '/') start--;
    size_t name_len = end - start;
    if (name_len >= sizeof at->name) {
      err = ENAMETOOLONG;
      break;
    }
    int dots = name_len == 0 || (name_len == 1 && text[start] == '.') ||
               (name_len == 2 && text[start] == '.' && text[start + 1] == '.');
    size_t dir_end = dots ? end : start;
    char saved = text[dir_end];
    text[dir_end] = '\0';
    int dir = -1, owned = 0;
    err = openat2_dir(base, text, &dir, &owned);
    text[dir_end] = saved;
    if (err) break;
    at->trailing_slash = end < len;
    if (dots) {
      strcpy(at->name, ".");
    } else {
      memcpy(at->name, text + start, name_len);
      at->name[name_len] = '\0';
    }
    at->dir = dir, at->owned = owned;
    if (dots || !follow_final) break;
    char target[WTP__WASI_PATH_MAX + 1];
    ssize_t n = readlinkat(dir, at->name, target, sizeof target);
    if (n < 0 && (errno == EINVAL || errno == ENOENT))
      break; /* no link: done */
    wtp__wasi_at_close(at);
    if (n < 0)
      err = errno;
    else if ((size_t)n == sizeof target)
      err = ENAMETOOLONG;
    else if (n == 0)
      err = ENOENT;
    else if (target[0] == '/')
      err = ESCAPE;
    else if (++links > WTP__WASI_SYMLINK_MAX)
      err = ELOOP;
    else if (start + (size_t)n + 1 > WALK_TEXT_MAX)
      err = ENAMETOOLONG;
    if (err) break;
    /* the directory part, the target, and the trailing slash if there was one */
    char *spliced = malloc(start + (size_t)n + 2);
    if (!spliced) {
      err = ENOMEM;
      break;
    }
    memcpy(spliced, text, start);
    memcpy(spliced + start, target, (size_t)n);
    strcpy(spliced + start + n, end < len ? "/" : "");
    free(text);
    text = spliced;
  }
  free(text);
  return err;
}
#endif

/* ---- the layer's calls ---- */

uint32_t wtp__wasi_beneath_resolve(int base, const char *path, int follow_final,
                                   wtp__wasi_at *at) {
  at->dir = -1, at->owned = 0, at->trailing_slash = 0, at->name[0] = '\0';
  if (path[0] == '/') return WASI_EPERM;
  if (path[0] == '\0') return WASI_ENOENT;
  int err;
#ifdef __linux__
  if (use_openat2()) {
    err = resolve_by_openat2(base, path, follow_final, at);
    if (err != EAGAIN) return err ? to_wasi(err) : WASI_ESUCCESS;
  }
#endif
  err = resolve_by_walk(base, path, follow_final, at);
  return err ? to_wasi(err) : WASI_ESUCCESS;
}

void wtp__wasi_at_close(wtp__wasi_at *at) {
  if (at->owned) close(at->dir);
  at->dir = -1, at->owned = 0;
}

static int ends_in_slash(const char *path) {
  size_t len = strlen(path);
  return len && path[len - 1] == '/';
}

/* The walk's path_open: the final component opened with O_NOFOLLOW from
 * its resolved directory. A link swapped in after the walk looked at it
 * gives ELOOP: the walk runs again (a few times, then ELOOP stands). */
static int open_by_walk(int base, const char *path, int flags, mode_t mode,
                        int follow, int *fd_out) {
  /* O_CREAT | O_EXCL never follows a final link (POSIX; EEXIST). */
  int exclusive = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
  int follow_final = (follow && !exclusive) || ends_in_slash(path);
  for (int tries = 0;; tries++) {
    wtp__wasi_at at = {-1, 0, 0, {0}};
    int err = resolve_by_walk(base, path, follow_final, &at);
    if (err) return err;
    int f = flags | O_NOFOLLOW;
    if (at.trailing_slash) {
      if (f & O_CREAT) {
        wtp__wasi_at_close(&at);
        return EISDIR;
      }
      f |= O_DIRECTORY;
    }
    int fd = openat(at.dir, at.name, f, mode);
    err = fd < 0 ? errno : 0;
    wtp__wasi_at_close(&at);
    if (fd >= 0) {
      *fd_out = fd;
      return 0;
    }
    if (!(err == ELOOP && follow_final && tries < 3) && err != EINTR)
      return err;
  }
}

uint32_t wtp__wasi_beneath_open(int base, const char *path, int flags,
                                mode_t mode, int follow, int *fd_out) {
  if (path[0] == '/') return WASI_EPERM;
  if (path[0] == '\0') return WASI_ENOENT;
  flags |= O_CLOEXEC;
  if (!follow) flags |= O_NOFOLLOW;
#ifdef __linux__
  if (use_openat2()) {
    for (int tries = 0; tries < 8; tries++) {
      int fd = sys_openat2(base, path, flags, mode);
      if (fd >= 0) {
        *fd_out = fd;
        return WASI_ESUCCESS;
      }
      if (errno != EAGAIN && errno != EINTR) return to_wasi(errno);
    }
  }
#endif
  int err = open_by_walk(base, path, flags, mode, follow, fd_out);
  return err ? to_wasi(err) : WASI_ESUCCESS;
}

#endif /* !_WIN32 */
