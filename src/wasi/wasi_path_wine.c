/* wasi_path_wine.c: the host's own answers about a directory entry when
 * the Windows WASI runs under Wine on Linux x86-64 (wasi_path_windows.h,
 * "Wine"). Wine 8 opens a name relative to a directory handle with an
 * openat that follows Unix symbolic links, and shows nothing of the link on
 * the handle: no Windows call tells a link from its target (test/wasi-c/WINE.md).
 * The Unix side does: these functions take the Unix descriptors Wine holds
 * behind two handles (ntdll's wine_server_handle_to_fd, which hands out a
 * duplicate to close) and ask Linux directly, by the system call
 * instruction (Wine 8 runs a Windows program's code natively and does not
 * intercept it): fstatat(dir, name, AT_SYMLINK_NOFOLLOW), readlinkat and
 * fstat. Never a path name of the host: always relative to the descriptor
 * of the directory the walk holds.
 *
 * Used only under Wine (wtp__wasi_under_wine); where Wine runs on another
 * host (macOS, FreeBSD: other system call numbers) or this build is not
 * x86-64, every call answers WASI ENOTSUP, and the sandbox refuses what it
 * cannot check. */
#ifdef _WIN32

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_path_windows.h"

/* Linux x86-64 system call numbers, flags and errnos. */
#define SYS_CLOSE 3
#define SYS_FSTAT 5
#define SYS_NEWFSTATAT 262
#define SYS_READLINKAT 267
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define S_IFMT_ 0170000
#define S_IFLNK_ 0120000

/* struct stat of Linux x86-64 (144 bytes). */
typedef struct linux_stat {
  uint64_t dev, ino, nlink;
  uint32_t mode, uid, gid, pad;
  uint64_t rdev;
  int64_t size, blksize, blocks;
  uint64_t times[6];
  int64_t unused[3];
} linux_stat;

#if defined(__x86_64__)
#define HAVE_LINUX_CALLS 1
static int64_t linux_call(int64_t n, int64_t a, int64_t b, int64_t c,
                          int64_t d) {
  int64_t ret;
  register int64_t r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}
#else
#define HAVE_LINUX_CALLS 0
static int64_t linux_call(int64_t n, int64_t a, int64_t b, int64_t c,
                          int64_t d) {
  (void)n, (void)a, (void)b, (void)c, (void)d;
  return -38; /* ENOSYS */
}
#endif

static uint32_t linux_errno(int64_t r) {
  switch (-r) {
    case 2:
      return WASI_ENOENT;
    case 13:
      return WASI_EACCES;
    case 20:
      return WASI_ENOTDIR;
    case 22:
      return WASI_EINVAL;
    case 36:
      return WASI_ENAMETOOLONG;
    case 40:
      return WASI_ELOOP;
    default:
      return WASI_EIO;
  }
}

typedef NTSTATUS(CDECL *handle_to_fd_fn)(HANDLE, unsigned int, int *,
                                         unsigned int *);
typedef const char *(CDECL *host_version_fn)(const char **, const char **);

/* ntdll's wine_server_handle_to_fd once Wine is seen to run on Linux, else
 * NULL; `looked` says that handle_to_fd holds the answer. Every thread that
 * looks computes the same answer (a pointer into ntdll, which stays
 * loaded), so racing lookers may both store it. handle_to_fd is written
 * (relaxed) before `looked` is set with release, which pairs with the
 * acquire load of `looked` before handle_to_fd is read. */
static _Atomic(handle_to_fd_fn) handle_to_fd;
static atomic_int looked;

static handle_to_fd_fn unix_fd_getter(void) {
  if (atomic_load_explicit(&looked, memory_order_acquire))
    return atomic_load_explicit(&handle_to_fd, memory_order_relaxed);
  handle_to_fd_fn fn = NULL;
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  host_version_fn host = ntdll
                             ? (host_version_fn)(void (*)(void))GetProcAddress(
                                   ntdll, "wine_get_host_version")
                             : NULL;
  const char *sysname = NULL, *release = NULL;
  if (host) host(&sysname, &release);
  if (HAVE_LINUX_CALLS && sysname && strcmp(sysname, "Linux") == 0)
    fn = (handle_to_fd_fn)(void (*)(void))GetProcAddress(
        ntdll, "wine_server_handle_to_fd");
  atomic_store_explicit(&handle_to_fd, fn, memory_order_relaxed);
  atomic_store_explicit(&looked, 1, memory_order_release);
  return fn;
}

/* The Unix descriptor behind h (a duplicate: close it), or a WASI errno. */
static uint32_t unix_fd(HANDLE h, int *fd) {
  handle_to_fd_fn get = unix_fd_getter();
  if (!get) return WASI_ENOTSUP;
  unsigned int options = 0;
  *fd = -1;
  NTSTATUS st = get(h, 0, fd, &options);
  return st < 0 || *fd < 0 ? WASI_EIO : WASI_ESUCCESS;
}

static void unix_close(int fd) { linux_call(SYS_CLOSE, fd, 0, 0, 0); }

uint32_t wtp__wasi_wine_lstat_at(HANDLE dir, const char *name,
                                 wtp__wasi_wine_id *id, int *link) {
  int fd;
  uint32_t err = unix_fd(dir, &fd);
  if (err) return err;
  linux_stat st;
  int64_t r = linux_call(SYS_NEWFSTATAT, fd, (int64_t)(intptr_t)name,
                         (int64_t)(intptr_t)&st, AT_SYMLINK_NOFOLLOW_);
  unix_close(fd);
  if (r < 0) return linux_errno(r);
  id->dev = st.dev, id->ino = st.ino;
  *link = (st.mode & S_IFMT_) == S_IFLNK_;
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_wine_fstat(HANDLE h, wtp__wasi_wine_id *id) {
  int fd;
  uint32_t err = unix_fd(h, &fd);
  if (err) return err;
  linux_stat st;
  int64_t r = linux_call(SYS_FSTAT, fd, (int64_t)(intptr_t)&st, 0, 0);
  unix_close(fd);
  if (r < 0) return linux_errno(r);
  id->dev = st.dev, id->ino = st.ino;
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_wine_readlink_at(HANDLE dir, const char *name, char *buf,
                                    size_t size, size_t *len) {
  int fd;
  uint32_t err = unix_fd(dir, &fd);
  if (err) return err;
  int64_t r = linux_call(SYS_READLINKAT, fd, (int64_t)(intptr_t)name,
                         (int64_t)(intptr_t)buf, (int64_t)(size - 1));
  unix_close(fd);
  if (r < 0) return linux_errno(r);
  if ((size_t)r >= size - 1) return WASI_ENAMETOOLONG; /* maybe cut */
  buf[r] = '\0';
  *len = (size_t)r;
  return WASI_ESUCCESS;
}

#endif /* _WIN32 */
