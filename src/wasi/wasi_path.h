/* wasi_path.h: the sandbox: resolving a guest path beneath a directory
 * descriptor. wasi_path.c copies and checks guest paths (every OS); the
 * resolution is wasi_path_posix.c (Linux, macOS) or wasi_path_windows.c
 * (Windows, where a descriptor is HandleToLong of a HANDLE), each stating
 * its guarantee at its top. */
#ifndef WTP_WASI_PATH_H
#define WTP_WASI_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "wtp_wasi.h"

/* The longest guest path accepted (bytes, without the NUL): ENAMETOOLONG past it. */
#define WTP__WASI_PATH_MAX 4096
/* The most symbolic links one resolution follows: ELOOP past it. */
#define WTP__WASI_SYMLINK_MAX 40

/* Copies the guest path [ptr, ptr + len) into out (NUL-terminated, out_size
 * > WTP__WASI_PATH_MAX). Returns EFAULT if the range is outside memory,
 * EINVAL if the path holds a NUL byte, EILSEQ if it is not UTF-8,
 * ENAMETOOLONG if it is longer than WTP__WASI_PATH_MAX; touches nothing on
 * the host. The checks are made on the copy, never on guest memory (which
 * another guest thread may change meanwhile): what is checked is used. */
uint32_t wtp__wasi_path_copy(const wtp_wasi_memory *memory, uint64_t ptr,
                             uint64_t len, char *out, size_t out_size);

/* One component of a walk's text at p (both OSes' walks): its bounds, and
 * whether it is the last one (only slashes after it). */
typedef struct wtp__wasi_component {
  const char *start;
  size_t len;
  const char *after; /* the slashes after it, then the rest */
  const char *next;  /* the next component */
  int final, trailing_slash;
} wtp__wasi_component;
wtp__wasi_component wtp__wasi_next_component(const char *p);

/* Where a path's final component lives, for the *at calls: the directory
 * (beneath the base) that holds it, and its name. */
typedef struct wtp__wasi_at {
  int dir;   /* the base itself, or a descriptor owned by this struct */
  int owned; /* 1 if dir must be closed (wtp__wasi_at_close) */
  int trailing_slash; /* the guest path ended in '/': the entry must be a directory */
  char name
      [256]; /* one component, no '/'; "." when the path names the directory itself */
} wtp__wasi_at;

/* Resolves path beneath the directory base: every intermediate component
 * (and the final one if follow_final) is followed inside the sandbox, and
 * nothing outside is ever opened. On success fills *at (release it with
 * wtp__wasi_at_close) and returns 0; an escape returns WASI EPERM. The final
 * component is not looked at unless follow_final: the caller uses at->name
 * with its *at call and never follows it (AT_SYMLINK_NOFOLLOW, O_NOFOLLOW,
 * linkat without AT_SYMLINK_FOLLOW). */
uint32_t wtp__wasi_beneath_resolve(int base, const char *path, int follow_final,
                                   wtp__wasi_at *at);
void wtp__wasi_at_close(wtp__wasi_at *at);

#ifndef _WIN32
/* Opens path beneath base with the host open flags (O_CLOEXEC added, and
 * O_NOFOLLOW unless follow) and mode; stores the new host descriptor in
 * *fd_out. Returns 0 or a WASI errno (EPERM for an escape). */
uint32_t wtp__wasi_beneath_open(int base, const char *path, int flags,
                                mode_t mode, int follow, int *fd_out);

/* Tests: 1 forces the component walk (as on a kernel without openat2), 0
 * decides again (openat2 where the kernel has it, unless the environment
 * variable WTP_WASI_PATH_WALK=1 forces the walk). Returns 1 if openat2 is
 * in use after the call. */
int wtp__wasi_path_force_walk(int on);
#endif /* !_WIN32 */

#endif /* WTP_WASI_PATH_H */
