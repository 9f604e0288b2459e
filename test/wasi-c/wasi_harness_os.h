/* wasi_harness_os.h: the harness of the WASI C tests that run on POSIX and on
 * Windows from one source (test_wasi_os_*.c): wasi_harness_core.h plus a
 * small shim over the host's threads, pipes, files, temp dirs and clocks.
 *
 * A host descriptor is an `int` on every OS, as the WASI takes it: a POSIX
 * fd, or on Windows a HANDLE as HandleToLong (the convention of src/wasi/ on
 * Windows; -1 is none). The shim's functions abort on a host failure that is
 * not what the test is about (a test never checks its fixtures' set-up).
 *
 * Windows builds come from scripts/wasi-c-windows.js: each test is linked
 * with the WASI into a DLL that node.exe loads as an addon (so the WASI's
 * uv_* calls resolve to node.exe's libuv, as the addon's do) and run under
 * Wine; WTP_TEST_IN_ADDON renames main and ends the process with its code. */
#ifndef WTP_WASI_HARNESS_OS_H
#define WTP_WASI_HARNESS_OS_H

#include "wasi_harness_core.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

#ifdef _WIN32
#define OS_SEP "\\"
#else
#define OS_SEP "/"
#endif

/* ---- threads ---- */

typedef void *(*os_thread_fn)(void *);
#ifdef _WIN32
typedef struct os_thread {
  HANDLE handle;
  os_thread_fn fn;
  void *arg;
} * os_thread;
static DWORD WINAPI os_thread_main(void *p) {
  os_thread t = p;
  t->fn(t->arg);
  return 0;
}
static inline os_thread os_thread_start(os_thread_fn fn, void *arg) {
  os_thread t = calloc(1, sizeof *t);
  if (t == NULL) abort();
  t->fn = fn, t->arg = arg;
  t->handle = CreateThread(NULL, 0, os_thread_main, t, 0, NULL);
  if (t->handle == NULL) abort();
  return t;
}
/* 1 if the thread ended within ms (then it is joined and freed), else 0
 * (left running: a test that sees a hang reports it and goes on). */
static inline int os_thread_join_within(os_thread t, int ms) {
  if (WaitForSingleObject(t->handle, (DWORD)ms) != WAIT_OBJECT_0) return 0;
  CloseHandle(t->handle);
  free(t);
  return 1;
}
#else
typedef struct os_thread {
  pthread_t id;
  os_thread_fn fn;
  void *arg;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
} * os_thread;
static void *os_thread_main(void *p) {
  os_thread t = p;
  t->fn(t->arg);
  pthread_mutex_lock(&t->lock);
  t->done = 1;
  pthread_cond_signal(&t->cond);
  pthread_mutex_unlock(&t->lock);
  return NULL;
}
static inline os_thread os_thread_start(os_thread_fn fn, void *arg) {
  os_thread t = calloc(1, sizeof *t);
  if (t == NULL) abort();
  t->fn = fn, t->arg = arg;
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->cond, NULL);
  if (pthread_create(&t->id, NULL, os_thread_main, t) != 0) abort();
  return t;
}
static inline int os_thread_join_within(os_thread t, int ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L)
    until.tv_sec++, until.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&t->lock);
  while (!t->done)
    if (pthread_cond_timedwait(&t->cond, &t->lock, &until) != 0) break;
  int done = t->done;
  pthread_mutex_unlock(&t->lock);
  if (!done) return 0;
  pthread_join(t->id, NULL);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->cond);
  free(t);
  return 1;
}
#endif
/* Runs fn(arg) on a new thread and waits for it. */
static inline void os_run_thread(os_thread_fn fn, void *arg) {
  if (!os_thread_join_within(os_thread_start(fn, arg), 120000)) abort();
}

/* ---- clocks ---- */

static inline double os_now_ms(void) {
#ifdef _WIN32
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency(&f);
  QueryPerformanceCounter(&c);
  return (double)c.QuadPart * 1e3 / (double)f.QuadPart;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
#endif
}

static inline void os_sleep_ms(int ms) {
#ifdef _WIN32
  Sleep((DWORD)ms);
#else
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
#endif
}

/* ---- host descriptors ---- */

#ifdef _WIN32
static inline HANDLE os_handle(int fd) { return LongToHandle(fd); }
#endif

static inline void os_close(int fd) {
#ifdef _WIN32
  CloseHandle(os_handle(fd));
#else
  close(fd);
#endif
}

/* 1 if fd is an open host descriptor. */
static inline int os_is_open(int fd) {
#ifdef _WIN32
  DWORD flags;
  return GetHandleInformation(os_handle(fd), &flags) != 0;
#else
  return fcntl(fd, F_GETFD) != -1;
#endif
}

/* A host pipe: fds[0] the read end, fds[1] the write end (not inherited). */
static inline void os_pipe(int fds[2]) {
#ifdef _WIN32
  HANDLE r, w;
  if (!CreatePipe(&r, &w, NULL, 0)) abort();
  fds[0] = HandleToLong(r), fds[1] = HandleToLong(w);
#else
  if (pipe2(fds, O_CLOEXEC) != 0) abort();
#endif
}

/* write/read on a host descriptor: the count, or -1. */
static inline long os_write(int fd, const void *buf, size_t n) {
#ifdef _WIN32
  DWORD done = 0;
  return WriteFile(os_handle(fd), buf, (DWORD)n, &done, NULL) ? (long)done : -1;
#else
  return (long)write(fd, buf, n);
#endif
}
static inline long os_read(int fd, void *buf, size_t n) {
#ifdef _WIN32
  DWORD done = 0;
  if (ReadFile(os_handle(fd), buf, (DWORD)n, &done, NULL)) return (long)done;
  return GetLastError() == ERROR_BROKEN_PIPE ? 0 : -1;
#else
  return (long)read(fd, buf, n);
#endif
}

/* ---- files and directories ---- */

enum { OS_READ, OS_WRITE_TRUNC, OS_RDWR_CREATE };

/* Opens a host file: a host descriptor, or -1. */
static inline int os_open(const char *path, int mode) {
#ifdef _WIN32
  DWORD access = mode == OS_READ          ? GENERIC_READ
                 : mode == OS_WRITE_TRUNC ? GENERIC_WRITE
                                          : GENERIC_READ | GENERIC_WRITE;
  DWORD disposition = mode == OS_READ          ? OPEN_EXISTING
                      : mode == OS_WRITE_TRUNC ? CREATE_ALWAYS
                                               : OPEN_ALWAYS;
  HANDLE h = CreateFileA(path, access,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, disposition, FILE_ATTRIBUTE_NORMAL, NULL);
  return h == INVALID_HANDLE_VALUE ? -1 : HandleToLong(h);
#else
  int flags = mode == OS_READ          ? O_RDONLY
              : mode == OS_WRITE_TRUNC ? O_WRONLY | O_CREAT | O_TRUNC
                                       : O_RDWR | O_CREAT;
  return open(path, flags | O_CLOEXEC, 0644);
#endif
}

/* Writes text into a new host file at path. */
static inline void os_write_file(const char *path, const char *text) {
  int fd = os_open(path, OS_WRITE_TRUNC);
  if (fd == -1 || os_write(fd, text, strlen(text)) != (long)strlen(text)) {
    fprintf(stderr, "cannot write %s\n", path);
    abort();
  }
  os_close(fd);
}

/* The file's bytes as a string in buf ("" if it cannot be read); returns
 * the length or -1 if the file does not exist. */
static inline long os_read_file(const char *path, char *buf, size_t size) {
  memset(buf, 0, size);
  int fd = os_open(path, OS_READ);
  if (fd == -1) return -1;
  long total = 0, n;
  while ((size_t)total < size - 1 &&
         (n = os_read(fd, buf + total, size - 1 - (size_t)total)) > 0)
    total += n;
  os_close(fd);
  return total;
}

static inline int os_exists(const char *path) {
#ifdef _WIN32
  return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
#else
  struct stat st;
  return lstat(path, &st) == 0;
#endif
}

static inline void os_mkdir(const char *path) {
#ifdef _WIN32
  if (!CreateDirectoryA(path, NULL)) abort();
#else
  if (mkdir(path, 0755) != 0) abort();
#endif
}

/* Removes a file or an empty directory (fixture clean-up; errors ignored). */
static inline void os_remove(const char *path) {
#ifdef _WIN32
  if (!DeleteFileA(path)) RemoveDirectoryA(path);
#else
  if (unlink(path) != 0) rmdir(path);
#endif
}

/* A symbolic link at path to target (relative or absolute, as given): 1 if
 * it is there afterwards, else 0. Windows without the privilege (or
 * developer mode) refuses; Wine 8's CreateSymbolicLinkW returns TRUE and
 * makes nothing (test/wasi-c/WINE.md): both give 0. */
static inline int os_symlink(const char *target, const char *path, int dir) {
#ifdef _WIN32
  wchar_t wt[1024], wp[1024];
  if (!MultiByteToWideChar(CP_UTF8, 0, target, -1, wt, 1024) ||
      !MultiByteToWideChar(CP_UTF8, 0, path, -1, wp, 1024))
    return 0;
  /* 0x2: SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE (developer mode). */
  DWORD flags = 0x2 | (dir ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0);
  if (!CreateSymbolicLinkW(wp, wt, flags)) return 0;
  return os_exists(path);
#else
  (void)dir;
  return symlink(target, path) == 0;
#endif
}

/* A new empty directory under the host's temp folder. */
static inline void os_temp_dir(char *dir, size_t size) {
#ifdef _WIN32
  char base[MAX_PATH];
  DWORD n = GetTempPathA(sizeof base, base);
  if (n == 0 || n >= sizeof base) abort();
  static LONG counter;
  for (int tries = 0; tries < 100; tries++) {
    snprintf(dir, size, "%swtp-wasi-%lu-%ld", base, GetCurrentProcessId(),
             InterlockedIncrement(&counter));
    if (CreateDirectoryA(dir, NULL)) return;
  }
  abort();
#else
  snprintf(dir, size, "/tmp/wtp-wasi-XXXXXX");
  if (mkdtemp(dir) == NULL) abort();
#endif
}

/* dir + separator + name into out. */
static inline void os_join(char *out, size_t size, const char *dir,
                           const char *name) {
  snprintf(out, size, "%s" OS_SEP "%s", dir, name);
}

/* Opens a host file and adds it to the table: the guest fd. */
static inline uint32_t os_add_file(wtp_wasi *wasi, const char *path, int mode,
                                   uint16_t fdflags) {
  int fd = os_open(path, mode);
  if (fd == -1) {
    fprintf(stderr, "cannot open %s\n", path);
    abort();
  }
  uint32_t guest_fd = UINT32_MAX;
  uint32_t err = wtp__wasi_fd_add(wasi, fd, WASI_FILETYPE_REGULAR_FILE, fdflags,
                                  WASI_RIGHTS_REGULAR_FILE, 0, &guest_fd);
  if (err != 0) abort();
  return guest_fd;
}

/* ---- the test binary's entry ---- */

#ifdef WTP_TEST_IN_ADDON
/* Built as a DLL that node.exe loads (scripts/wasi-c-windows.js): Node calls
 * napi_register_module_v1 after the load (not in DllMain, so threads may
 * start), which runs the test and ends the process with its code. */
int wtp_test_main(void);
__declspec(dllexport) void *napi_register_module_v1(void *env, void *exports) {
  (void)env;
  int rc = wtp_test_main();
  fflush(stdout);
  fflush(stderr);
  ExitProcess((UINT)rc);
  return exports;
}
#define WTP_TEST_MAIN int wtp_test_main(void)
#else
#define WTP_TEST_MAIN int main(void)
#endif

#endif /* WTP_WASI_HARNESS_OS_H */
