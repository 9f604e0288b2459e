/* wasi_fd_windows.c: wasi_io.h on Windows.
 *
 * Files (WASI_IO_FILE): ReadFile/WriteFile on the program's synchronous
 * handle, whose file pointer is the fd's one offset (a duplicate for stdio
 * shares the host's, as a dup()ed POSIX description does). A positioned call
 * (fd_pread/fd_pwrite) passes its offset in an OVERLAPPED, which on a
 * synchronous handle also moves the file pointer (documented for
 * ReadFile/WriteFile): the call saves the pointer and puts it back, so every
 * file operation of an entry (reads, writes, seeks, positioned calls) runs
 * under the entry's lock, never across a wait (a file never waits for a
 * peer). Another handle of the same file is not serialised with it, as on
 * POSIX.
 *
 * fdflags (the entry's own, wasi_fd.c):
 *   APPEND    each fd_write on a regular file is a WriteFile at offset
 *             0xFFFFFFFFFFFFFFFF (both OVERLAPPED halves all ones), which the
 *             WriteFile documentation defines as a write at the end of the
 *             file, like a handle opened with only FILE_APPEND_DATA: atomic
 *             against every other writer of the file. The file pointer ends
 *             after the written bytes. A handle opened append-only appends
 *             whatever the guest's flag says (as O_APPEND on POSIX).
 *   NONBLOCK  a pipe or console with nothing to read, or a pipe without
 *             room, answers EAGAIN instead of waiting.
 *   DSYNC, SYNC  FlushFileBuffers after each write (Windows has no
 *             data-only flush).
 *   RSYNC     nothing more.
 *
 * Pipes (WASI_IO_WIN_PIPE) and consoles (WASI_IO_WIN_CONSOLE), and how
 * the stop ends their waits. The pipes and consoles a program gets (its
 * stdio: CreatePipe's, a node.exe child's, a console) are synchronous
 * handles shared with other holders: they cannot be reopened for
 * overlapped I/O (ReOpenFile refuses inherited pipes, measured under Wine),
 * and Windows has no readiness wait for them. So a read or write that must
 * wait for the peer is one blocking ReadFile/WriteFile, registered with the
 * stop, which cancels it (CancelSynchronousIo on its thread; the race with
 * a thread not yet in the call is handled there: wasi_host_windows.c, "The
 * stop"); the call then answers WTP_WASI_STOPPED.
 *   - pipe read: PeekNamedPipe first; bytes there are read at once; none:
 *     NONBLOCK answers EAGAIN, else the blocking read, which returns with
 *     the first bytes that come; a broken pipe (the writer gone) is the
 *     end of file.
 *   - console read: NONBLOCK answers EAGAIN unless input events are queued;
 *     else the blocking read (line input: until the line ends).
 *   - pipe or console write: every byte, each buffer one WriteFile that
 *     returns when the reader has made room (the reader gone: EPIPE).
 *     NONBLOCK cannot be honoured fully: Windows cannot say whether a
 *     synchronous pipe has room (FilePipeLocalInformation's
 *     WriteQuotaAvailable is a bound where it is non-zero; Wine 8 reports
 *     0 always), so such a write may wait (the stop still ends it).
 * The entry's lock serialises the program's threads on one descriptor.

 * Sockets: no descriptor is a socket to the program, on any OS (stdio that
 * is one is a pipe to Windows' GetFileType, and the path layer opens none):
 * sock_recv/sock_send/sock_accept/sock_shutdown answer ENOTSOCK in wasi_fd.c
 * ("Sockets").
 */
#include <string.h>

#include "wasi_io.h"
#include "wasi_windows.h"

static HANDLE io_handle(const wtp__wasi_entry *entry) {
  return wtp__wasi_handle(entry->io_fd);
}

static uint16_t fdflags_of(wtp__wasi_entry *entry) {
  return atomic_load_explicit(&entry->fdflags, memory_order_relaxed);
}

/* One ReadFile or WriteFile of at most len bytes (len <= INT32_MAX), at
 * `at` if not NULL. A read at the end of a file or of a broken pipe moves 0
 * bytes, successfully. */
static uint32_t one_call(HANDLE handle, void *buf, size_t len, int write,
                         OVERLAPPED *at, DWORD *moved) {
  *moved = 0;
  BOOL ok = write ? WriteFile(handle, buf, (DWORD)len, moved, at)
                  : ReadFile(handle, buf, (DWORD)len, moved, at);
  if (ok) return WASI_ESUCCESS;
  DWORD err = GetLastError();
  if (!write && (err == ERROR_HANDLE_EOF || err == ERROR_BROKEN_PIPE))
    return WASI_ESUCCESS;
  if (write && (err == ERROR_NO_DATA || err == ERROR_BROKEN_PIPE))
    return WASI_EPIPE;
  return wtp__wasi_win_errno(err);
}

/* The file pointer's offset encoded in an OVERLAPPED (all ones: the end). */
static void set_offset(OVERLAPPED *ov, uint64_t offset) {
  memset(ov, 0, sizeof *ov);
  ov->Offset = (DWORD)offset;
  ov->OffsetHigh = (DWORD)(offset >> 32);
}

/* Moves the buffers in order until one comes up short; `at` (if not
 * NULL) advances with them unless it is the end-of-file marker. Bytes moved
 * before an error make a short transfer. */
static uint32_t each_buffer(HANDLE handle, wtp__wasi_iov *iov, int count,
                            int write, const uint64_t *at, size_t *done) {
  uint32_t err = WASI_ESUCCESS;
  *done = 0;
  for (int i = 0; i < count; i++) {
    if (iov[i].iov_len == 0) continue;
    OVERLAPPED ov;
    if (at != NULL)
      set_offset(&ov, *at == UINT64_MAX ? UINT64_MAX : *at + *done);
    DWORD moved;
    err = one_call(handle, iov[i].iov_base, iov[i].iov_len, write,
                   at != NULL ? &ov : NULL, &moved);
    if (err != WASI_ESUCCESS) break;
    *done += moved;
    if (moved < iov[i].iov_len) break;
  }
  return *done > 0 ? WASI_ESUCCESS : err;
}

static uint32_t sync_after_write(wtp__wasi_entry *entry) {
  if (!(fdflags_of(entry) & (WASI_FDFLAGS_SYNC | WASI_FDFLAGS_DSYNC)))
    return WASI_ESUCCESS;
  return FlushFileBuffers(io_handle(entry)) ? WASI_ESUCCESS
                                            : wtp__wasi_last_errno();
}

/* ---- files ---- */

static uint32_t file_transfer(wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                              int count, int write, size_t *done) {
  static const uint64_t end_of_file = UINT64_MAX;
  /* A directory is never open for writing: EBADF, as POSIX answers
   * (WriteFile's ERROR_ACCESS_DENIED would be EPERM). A read gets
   * Windows' ERROR_INVALID_FUNCTION: EISDIR, as on POSIX. */
  if (write && entry->filetype == WASI_FILETYPE_DIRECTORY) return WASI_EBADF;
  int append = write && entry->filetype == WASI_FILETYPE_REGULAR_FILE &&
               (fdflags_of(entry) & WASI_FDFLAGS_APPEND);
  wtp__wasi_entry_lock(entry);
  uint32_t err = each_buffer(io_handle(entry), iov, count, write,
                             append ? &end_of_file : NULL, done);
  wtp__wasi_entry_unlock(entry);
  if (err == WASI_ESUCCESS && write) err = sync_after_write(entry);
  return err;
}

uint32_t wtp__wasi_io_positioned(wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                                 int count, uint64_t offset, int write,
                                 size_t *done) {
  HANDLE handle = io_handle(entry);
  LARGE_INTEGER zero, was;
  zero.QuadPart = 0;
  wtp__wasi_entry_lock(entry);
  uint32_t err = WASI_ESUCCESS;
  if (!SetFilePointerEx(handle, zero, &was, FILE_CURRENT)) {
    err = wtp__wasi_last_errno();
  } else {
    err = each_buffer(handle, iov, count, write, &offset, done);
    SetFilePointerEx(handle, was, NULL, FILE_BEGIN);
  }
  wtp__wasi_entry_unlock(entry);
  if (err == WASI_ESUCCESS && write) err = sync_after_write(entry);
  return err;
}

uint32_t wtp__wasi_io_seek(wtp__wasi_entry *entry, int64_t offset,
                           uint8_t whence, uint64_t *position) {
  DWORD how = whence == WASI_WHENCE_SET   ? FILE_BEGIN
              : whence == WASI_WHENCE_CUR ? FILE_CURRENT
                                          : FILE_END;
  LARGE_INTEGER distance, at;
  distance.QuadPart = offset;
  wtp__wasi_entry_lock(entry);
  BOOL ok = SetFilePointerEx(io_handle(entry), distance, &at, how);
  uint32_t err = ok ? WASI_ESUCCESS : wtp__wasi_last_errno();
  wtp__wasi_entry_unlock(entry);
  if (ok) *position = (uint64_t)at.QuadPart;
  return err;
}

/* ---- pipes and consoles ---- */

/* One ReadFile or WriteFile that may block until the peer acts: registered
 * with the stop, which cancels it (wasi_host_windows.c, "The stop"). */
static uint32_t blocking_call(wtp_wasi *wasi, HANDLE handle, void *buf,
                              size_t len, int write, DWORD *moved) {
  wtp__wasi_blocking call;
  *moved = 0;
  uint32_t err = wtp__wasi_blocking_enter(wasi, &call);
  if (err != WASI_ESUCCESS) return err;
  err = one_call(handle, buf, len, write, NULL, moved);
  if (wtp__wasi_blocking_leave(wasi, &call) == WTP_WASI_STOPPED)
    return WTP_WASI_STOPPED; /* cancelled, or done as the program ends */
  return err;
}

/* A read that waits: one blocking ReadFile into the first non-empty buffer
 * (the stop cancels it), as read(2) fills what one call brings. */
static uint32_t read_first_buffer(wtp_wasi *wasi, HANDLE handle,
                                  wtp__wasi_iov *iov, int count, size_t *done) {
  for (int i = 0; i < count; i++) {
    if (iov[i].iov_len == 0) continue;
    DWORD moved;
    uint32_t err =
        blocking_call(wasi, handle, iov[i].iov_base, iov[i].iov_len, 0, &moved);
    *done = moved;
    return err;
  }
  return WASI_ESUCCESS;
}
/* A read of a pipe: PeekNamedPipe first; bytes there are read at once (at
 * most that many, so ReadFile cannot wait); none: EAGAIN for NONBLOCK,
 * else one blocking ReadFile, which returns with the first bytes that
 * come. A pipe PeekNamedPipe cannot look at (under Wine: a Linux pipe):
 * the blocking read. */
static uint32_t pipe_read(wtp_wasi *wasi, wtp__wasi_entry *entry,
                          wtp__wasi_iov *iov, int count, size_t *done) {
  HANDLE handle = io_handle(entry);
  DWORD avail = 0;
  if (!PeekNamedPipe(handle, NULL, 0, NULL, &avail, NULL)) {
    DWORD code = GetLastError();
    if (code == ERROR_BROKEN_PIPE || code == ERROR_PIPE_NOT_CONNECTED)
      return WASI_ESUCCESS; /* the writer has gone: end of file */
    avail = 0;
  }
  if (avail > 0) {
    wtp__wasi_iov limited[WASI_IOV_MAX];
    int used = 0;
    for (int i = 0; i < count && avail > 0; i++) {
      limited[used] = iov[i];
      if (limited[used].iov_len > avail) limited[used].iov_len = avail;
      avail -= (DWORD)limited[used].iov_len;
      used++;
    }
    return each_buffer(handle, limited, used, 0, NULL, done);
  }
  if (fdflags_of(entry) & WASI_FDFLAGS_NONBLOCK) return WASI_EAGAIN;
  return read_first_buffer(wasi, handle, iov, count, done);
}

/* A write to a pipe or console: every byte, each buffer one WriteFile that
 * waits for room as long as the reader takes (the stop cancels it).
 * NONBLOCK: a pipe whose free room Windows reports (non-zero) gets at most
 * that; otherwise the write may wait, as Windows cannot say whether a
 * synchronous pipe has room (Wine reports none, ever). */
static uint32_t stream_write(wtp_wasi *wasi, wtp__wasi_entry *entry,
                             wtp__wasi_iov *iov, int count, size_t *done) {
  HANDLE handle = io_handle(entry);
  uint32_t err = WASI_ESUCCESS;
  int nonblock = (fdflags_of(entry) & WASI_FDFLAGS_NONBLOCK) &&
                 entry->io_kind == WASI_IO_WIN_PIPE;
  for (int i = 0; i < count && err == WASI_ESUCCESS; i++) {
    char *at = iov[i].iov_base;
    size_t left = iov[i].iov_len;
    while (left > 0) {
      size_t want = left;
      uint64_t room = 0;
      int closing = 0;
      if (nonblock && wtp__wasi_pipe_write_room(handle, &room, &closing) == 0) {
        if (closing) {
          err = WASI_EPIPE;
          break;
        }
        if (room > 0 && want > room) want = (size_t)room;
      }
      DWORD moved;
      err = blocking_call(wasi, handle, at, want, 1, &moved);
      if (err != WASI_ESUCCESS) break;
      *done += moved;
      at += moved;
      left -= moved;
      if (moved == 0) break; /* a write that moves nothing ends */
    }
    if (left > 0) break;
  }
  /* Bytes written before an error: a short write; the stop wins. */
  if (err != WASI_ESUCCESS && err != WTP_WASI_STOPPED && *done > 0)
    err = WASI_ESUCCESS;
  return err;
}

/* A console read: NONBLOCK answers EAGAIN unless input events are queued;
 * else one blocking ReadFile (the stop cancels it). */
static uint32_t console_read(wtp_wasi *wasi, wtp__wasi_entry *entry,
                             wtp__wasi_iov *iov, int count, size_t *done) {
  HANDLE handle = io_handle(entry);
  DWORD events = 0;
  if ((fdflags_of(entry) & WASI_FDFLAGS_NONBLOCK) &&
      (!GetNumberOfConsoleInputEvents(handle, &events) || events == 0))
    return WASI_EAGAIN;
  return read_first_buffer(wasi, handle, iov, count, done);
}

/* Pipes and consoles: the entry's lock serialises the program's threads on
 * one descriptor (a read's look and its call; a write's bytes stay
 * together). The holder's wait is one the stop ends; the others then find
 * the stop before they call. */
static uint32_t stream_transfer(wtp_wasi *wasi, wtp__wasi_entry *entry,
                                wtp__wasi_iov *iov, int count, int write,
                                size_t *done) {
  uint32_t err;
  wtp__wasi_entry_lock(entry);
  if (wtp_wasi_stopped(wasi))
    err = WTP_WASI_STOPPED;
  else if (write)
    err = stream_write(wasi, entry, iov, count, done);
  else if (entry->io_kind == WASI_IO_WIN_PIPE)
    err = pipe_read(wasi, entry, iov, count, done);
  else
    err = console_read(wasi, entry, iov, count, done);
  wtp__wasi_entry_unlock(entry);
  return err;
}

uint32_t wtp__wasi_io_transfer(wtp_wasi *wasi, wtp__wasi_entry *entry,
                               wtp__wasi_iov *iov, int count,
                               wtp__wasi_transfer *t, size_t *done) {
  *done = 0;
  switch (entry->io_kind) {
    case WASI_IO_FILE:
      return file_transfer(entry, iov, count, t->write, done);
    case WASI_IO_WIN_PIPE:
    case WASI_IO_WIN_CONSOLE:
      return stream_transfer(wasi, entry, iov, count, t->write, done);
    default: /* WASI_IO_WIN_CHAR: NUL and the like never wait */
      return each_buffer(io_handle(entry), iov, count, t->write, NULL, done);
  }
}

/* ---- calls that run one host function on the descriptor ---- */

/* Windows has one flush (FlushFileBuffers) for data and metadata. */
uint32_t wtp__wasi_io_sync(wtp__wasi_entry *entry, int data_only) {
  (void)data_only;
  return FlushFileBuffers(io_handle(entry)) ? WASI_ESUCCESS
                                            : wtp__wasi_last_errno();
}

/* Advice only: Windows takes access hints at open (FILE_FLAG_SEQUENTIAL_SCAN,
 * FILE_FLAG_RANDOM_ACCESS), none later. */
uint32_t wtp__wasi_io_advise(wtp__wasi_entry *entry, uint64_t offset,
                             uint64_t len, uint8_t advice) {
  (void)entry, (void)offset, (void)len, (void)advice;
  return WASI_ESUCCESS;
}

static uint32_t set_end_of_file(HANDLE handle, uint64_t size) {
  FILE_END_OF_FILE_INFO info;
  info.EndOfFile.QuadPart = (LONGLONG)size;
  return SetFileInformationByHandle(handle, FileEndOfFileInfo, &info,
                                    sizeof info)
             ? WASI_ESUCCESS
             : wtp__wasi_last_errno();
}

/* posix_fallocate's promise: the file is at least offset + len long. */
uint32_t wtp__wasi_io_allocate(wtp__wasi_entry *entry, uint64_t offset,
                               uint64_t len) {
  LARGE_INTEGER size;
  if (!GetFileSizeEx(io_handle(entry), &size)) return wtp__wasi_last_errno();
  if ((uint64_t)size.QuadPart >= offset + len) return WASI_ESUCCESS;
  return set_end_of_file(io_handle(entry), offset + len);
}

/* The file pointer stays where it is, past the end or not, as ftruncate
 * leaves the offset. */
uint32_t wtp__wasi_io_set_size(wtp__wasi_entry *entry, uint64_t size) {
  return set_end_of_file(io_handle(entry), size);
}

uint32_t wtp__wasi_io_set_times(wtp__wasi_entry *entry, uint64_t atim,
                                uint64_t mtim, uint16_t fstflags) {
  FILE_BASIC_INFO info;
  FILETIME now;
  memset(&info, 0, sizeof info); /* 0: leave that time and the attributes */
  GetSystemTimePreciseAsFileTime(&now);
  uint64_t now_ticks = (uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime;
  if (fstflags & WASI_FSTFLAGS_ATIM_NOW)
    info.LastAccessTime.QuadPart = (LONGLONG)now_ticks;
  else if (fstflags & WASI_FSTFLAGS_ATIM)
    info.LastAccessTime.QuadPart = (LONGLONG)wtp__wasi_ns_to_ticks(atim);
  if (fstflags & WASI_FSTFLAGS_MTIM_NOW)
    info.LastWriteTime.QuadPart = (LONGLONG)now_ticks;
  else if (fstflags & WASI_FSTFLAGS_MTIM)
    info.LastWriteTime.QuadPart = (LONGLONG)wtp__wasi_ns_to_ticks(mtim);
  return SetFileInformationByHandle(io_handle(entry), FileBasicInfo, &info,
                                    sizeof info)
             ? WASI_ESUCCESS
             : wtp__wasi_last_errno();
}
