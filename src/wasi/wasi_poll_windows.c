/* wasi_poll_windows.c: waiting for a peer, and stopping, on Windows
 * (wasi_wait.h: poll_oneoff's wait; a blocking read or write is ended by
 * the stop's cancel instead: wasi_host_windows.c).
 *
 * Every wait of the Windows WASI is a WaitForMultipleObjects that includes
 * the stop's event (a manual-reset event that wtp_wasi_stop sets after
 * `stopped`, wasi_host_windows.c), so it ends at once on the stop; a waiter
 * also checks `stopped` before each wait (the flag is set before the event:
 * a waiter that missed the flag finds the event set).
 *
 * Readiness, per kind of descriptor (wasi_table.h):
 *   - WASI_IO_FILE and WASI_IO_WIN_CHAR: ready at once;
 *   - a console: input ready when its handle is signalled (it is one of the
 *     wait's handles); output at once;
 *   - a pipe to read: Windows has no readiness wait for a synchronous pipe,
 *     so it is looked at (PeekNamedPipe: nbytes the bytes there; the
 *     writer gone: ready with HANGUP) and looked at again after a short
 *     wait on the stop (1 ms, doubling to WTP__WASI_PIPE_POLL_MAX_MS);
 *   - a pipe to write: ready (see look_pipe).
 * Clock subscriptions: deadlines on the monotonic clock (QueryPerformance-
 * Counter); the wait's timeout is the time to the earliest, rounded up to
 * a millisecond and re-checked on the clock after the wait.
 */
#include <string.h>

#include "wasi_clock.h"
#include "wasi_wait.h"
#include "wasi_windows.h"

typedef wtp__wasi_subscription subscription;

void wtp__wasi_wait_file_nbytes(wtp__wasi_entry *entry, uint64_t *nbytes) {
  HANDLE handle = wtp__wasi_handle(entry->io_fd);
  LARGE_INTEGER zero, at, size;
  zero.QuadPart = 0;
  if (entry->filetype != WASI_FILETYPE_REGULAR_FILE) return;
  wtp__wasi_entry_lock(entry); /* the pointer: see wasi_fd_windows.c */
  BOOL ok = SetFilePointerEx(handle, zero, &at, FILE_CURRENT) &&
            GetFileSizeEx(handle, &size);
  wtp__wasi_entry_unlock(entry);
  if (ok && size.QuadPart > at.QuadPart)
    *nbytes = (uint64_t)(size.QuadPart - at.QuadPart);
}

/* A pipe subscription now: ready or not (then *pipe_wait is set). */
static void look_pipe(subscription *sub, HANDLE handle, int *pipe_wait) {
  if (sub->type == WASI_EVENTTYPE_FD_READ) {
    DWORD avail = 0;
    if (PeekNamedPipe(handle, NULL, 0, NULL, &avail, NULL)) {
      if (avail == 0) {
        *pipe_wait = 1;
        return;
      }
      sub->nbytes = avail;
    } else {
      DWORD code = GetLastError();
      if (code == ERROR_BROKEN_PIPE || code == ERROR_PIPE_NOT_CONNECTED)
        sub->flags |= WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP;
      else
        sub->error = (uint16_t)wtp__wasi_win_errno(code);
    }
    sub->ready = 1;
    return;
  }
  /* Writable, always (libuv's model): Windows cannot say whether a
   * synchronous pipe has room (Wine reports no room, ever); nbytes is the
   * room where Windows reports some, the other end gone is HANGUP. */
  uint64_t room = 0;
  int closing = 0;
  if (wtp__wasi_pipe_write_room(handle, &room, &closing) == 0) {
    if (closing) sub->flags |= WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP;
    sub->nbytes = room;
  }
  sub->ready = 1;
}

/* Looks at every subscription not yet ready; collects the console input
 * handles to wait on. Returns whether one is ready. */
static int look_all(subscription *subs, uint32_t count, uint64_t now,
                    HANDLE *waits, DWORD *nwaits, int *pipe_wait) {
  int any = 0;
  for (uint32_t i = 0; i < count; i++) {
    subscription *sub = &subs[i];
    if (sub->ready) {
      any = 1;
      continue;
    }
    if (sub->type == WASI_EVENTTYPE_CLOCK) {
      if (sub->deadline <= now) sub->ready = 1;
    } else if (sub->entry != NULL) {
      HANDLE handle = wtp__wasi_handle(sub->entry->io_fd);
      uint8_t kind = sub->entry->io_kind;
      if (kind == WASI_IO_WIN_PIPE) {
        look_pipe(sub, handle, pipe_wait);
      } else if (kind == WASI_IO_WIN_CONSOLE &&
                 sub->type == WASI_EVENTTYPE_FD_READ) {
        if (WaitForSingleObject(handle, 0) == WAIT_OBJECT_0) {
          sub->ready = 1;
        } else if (*nwaits < MAXIMUM_WAIT_OBJECTS) {
          waits[(*nwaits)++] = handle;
        } else {
          *pipe_wait = 1; /* more consoles than a wait takes: look again */
        }
      } else {
        sub->ready = 1;
      }
    }
    any |= sub->ready;
  }
  return any;
}

uint32_t wtp__wasi_wait_events(wtp_wasi *wasi, subscription *subs,
                               uint32_t count, int any_ready) {
  DWORD pipe_ms = 1;
  for (;;) {
    if (wtp_wasi_stopped(wasi)) return WTP_WASI_STOPPED;
    HANDLE waits[MAXIMUM_WAIT_OBJECTS];
    DWORD nwaits = 1;
    int pipe_wait = 0;
    uint64_t now = 0;
    waits[0] = wasi->stop_event;
    wtp__wasi_clock_now(WASI_CLOCK_MONOTONIC, &now);
    if (look_all(subs, count, now, waits, &nwaits, &pipe_wait) || any_ready)
      return WASI_ESUCCESS;
    uint64_t deadline = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++) {
      if (subs[i].type == WASI_EVENTTYPE_CLOCK && subs[i].deadline < deadline)
        deadline = subs[i].deadline;
    }
    DWORD ms = INFINITE;
    if (deadline != UINT64_MAX) {
      uint64_t left = (deadline - now + 999999u) / 1000000u;
      ms = left >= 86400000u ? 86400000u : (DWORD)left; /* a day per round */
    }
    if (pipe_wait && pipe_ms < ms) ms = pipe_ms;
    DWORD r = WaitForMultipleObjects(nwaits, waits, FALSE, ms);
    if (r == WAIT_OBJECT_0 || wtp_wasi_stopped(wasi)) return WTP_WASI_STOPPED;
    if (r == WAIT_FAILED) return wtp__wasi_last_errno();
    if (pipe_wait && pipe_ms < WTP__WASI_PIPE_POLL_MAX_MS) pipe_ms *= 2;
  }
}
