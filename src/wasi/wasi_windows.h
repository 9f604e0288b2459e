/* wasi_windows.h: what the Windows files of src/wasi/ share (windows.h,
 * handles as the table's ints, times, the pipe's state). Windows only. */
#ifndef WTP_WASI_WINDOWS_H
#define WTP_WASI_WINDOWS_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winternl.h>

#include <stdint.h>

#include "wasi_errno.h"
#include "wasi_internal.h"

/* The table's int (HandleToLong) as the HANDLE it holds, and back. */
static inline HANDLE wtp__wasi_handle(int host_fd) {
  return LongToHandle(host_fd);
}
static inline int wtp__wasi_handle_int(HANDLE handle) {
  return (int)HandleToLong(handle);
}

/* 100 ns ticks since 1601 (FILETIME) and ns since 1970. */
#define WTP__WASI_EPOCH_TICKS 116444736000000000ULL
static inline uint64_t wtp__wasi_ticks_to_ns(uint64_t ticks) {
  return ticks <= WTP__WASI_EPOCH_TICKS
             ? 0
             : (ticks - WTP__WASI_EPOCH_TICKS) * 100u;
}
static inline uint64_t wtp__wasi_ns_to_ticks(uint64_t ns) {
  return ns / 100u + WTP__WASI_EPOCH_TICKS;
}

/* The last Win32 error as a WASI errno. */
static inline uint32_t wtp__wasi_last_errno(void) {
  return wtp__wasi_win_errno(GetLastError());
}

/* wasi_host_windows.c: a pipe's state from the pipe file system
 * (NtQueryInformationFile, FilePipeLocalInformation): 0 and *quota (the
 * bytes a write can put in without waiting: WriteQuotaAvailable, which
 * Wine 8 always reports as 0, so only a non-zero quota is taken as a
 * promise) and *closing (the other end has gone), or -1 if the handle
 * cannot say. */
int wtp__wasi_pipe_write_room(HANDLE pipe, uint64_t *quota, int *closing);

/* wasi_host_windows.c: a UTF-8 string as a new UTF-16 one (free()), or NULL
 * (invalid UTF-8, or out of memory). */
wchar_t *wtp__wasi_utf16(const char *utf8);

/* wasi_host_windows.c, "The stop": a call about to block in a synchronous
 * ReadFile or WriteFile that only its peer ends (a pipe, a console)
 * registers first, and leaves after the call; the stop cancels the
 * registered calls' I/O (CancelSynchronousIo on their threads) until each
 * has left. enter answers WTP_WASI_STOPPED (nothing registered) if the
 * stop came first, else 0; leave answers WTP_WASI_STOPPED if the stop came
 * meanwhile (the call's outcome does not count: the program is ending),
 * else 0. */
typedef struct wtp__wasi_blocking {
  HANDLE thread; /* the caller's thread, THREAD_TERMINATE access */
  int cancelled; /* the stop's CancelSynchronousIo found its I/O */
  struct wtp__wasi_blocking *next, *prev;
} wtp__wasi_blocking;
uint32_t wtp__wasi_blocking_enter(wtp_wasi *wasi, wtp__wasi_blocking *call);
uint32_t wtp__wasi_blocking_leave(wtp_wasi *wasi, wtp__wasi_blocking *call);

/* The poll interval of poll_oneoff's wait for a pipe to have bytes
 * (Windows has no readiness wait for a synchronous pipe): starts at 1 ms,
 * doubles, at most WTP__WASI_PIPE_POLL_MAX_MS. Also the stop's retry
 * interval for a blocked call it could not cancel yet. */
#define WTP__WASI_PIPE_POLL_MAX_MS 16u

#endif /* WTP_WASI_WINDOWS_H */
