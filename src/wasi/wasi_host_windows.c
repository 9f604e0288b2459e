/* wasi_host_windows.c: wasi_host.h on Windows.
 *
 * Descriptors are HANDLEs held as ints (HandleToLong, wasi_table.h).
 *
 * stdio: the binding turns Node's C runtime fds into the HANDLEs behind them
 * (uv_get_osfhandle); each is duplicated here (DuplicateHandle, same
 * access, not inheritable), so the program closing or renumbering fd 0-2
 * closes only its duplicate, never the host's handle. What a handle is
 * decides how its I/O is done (io_kind, wasi_table.h):
 *   - GetFileType DISK: a file or directory, WASI_IO_FILE;
 *   - CHAR: a console (GetConsoleMode answers) is a CHARACTER_DEVICE,
 *     WASI_IO_WIN_CONSOLE; another character device (NUL) is UNKNOWN, as
 *     /dev/null is on POSIX (wasmtime's answer), WASI_IO_WIN_CHAR;
 *   - PIPE: an anonymous or named pipe is UNKNOWN (a FIFO's answer on
 *     POSIX), WASI_IO_WIN_PIPE. (A socket handle also says PIPE; the WASI
 *     treats it as a pipe: no sock_* call reaches it, see wasi_fd_windows.c.)
 * Rights by access mode, from the handle's granted access
 * (NtQueryObject, ObjectBasicInformation): no FILE_READ_DATA, no FD_READ; no
 * FILE_WRITE_DATA nor FILE_APPEND_DATA, no write rights. A handle that may
 * append but not write (what libuv opens for Node's 'a' flag, `>>file`
 * elsewhere) reports APPEND, as POSIX reports O_APPEND.
 *
 * Preopens: CreateFileW on the UTF-16 path with FILE_FLAG_BACKUP_SEMANTICS
 * (the only way to open a directory), read and traverse access, shared for
 * reading, writing and deletion (so the program's own renames and deletes
 * beneath it work). The path layer (wasi_path_windows.c) opens everything
 * relative to that handle.
 *
 * The stop: a manual-reset event (CreateEventW), set by wtp_wasi_stop and
 * never reset, and the cancelling of blocked pipe and console calls (see
 * "The stop" below).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_host.h"
#include "wasi_windows.h"

void wtp__wasi_host_close(int host_fd) {
  CloseHandle(wtp__wasi_handle(host_fd));
}

wchar_t *wtp__wasi_utf16(const char *utf8) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  if (n <= 0) return NULL;
  wchar_t *out = malloc((size_t)n * sizeof *out);
  if (out == NULL) return NULL;
  if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, out, n) !=
      n) {
    free(out);
    return NULL;
  }
  return out;
}

int wtp__wasi_pipe_write_room(HANDLE pipe, uint64_t *quota, int *closing) {
  IO_STATUS_BLOCK io;
  FILE_PIPE_LOCAL_INFORMATION info;
  memset(&info, 0, sizeof info);
  NTSTATUS status = NtQueryInformationFile(pipe, &io, &info, sizeof info,
                                           FilePipeLocalInformation);
  if (status < 0) return -1;
  *quota = info.WriteQuotaAvailable;
  /* FILE_PIPE_CLOSING_STATE (4): the other end has closed. */
  *closing = info.NamedPipeState == 4;
  return 0;
}

/* The access the handle was opened with, or 0 if Windows does not say. */
static ACCESS_MASK granted_access(HANDLE handle) {
  PUBLIC_OBJECT_BASIC_INFORMATION info;
  ULONG size = 0;
  memset(&info, 0, sizeof info);
  if (NtQueryObject(handle, ObjectBasicInformation, &info, sizeof info, &size) <
      0)
    return 0;
  return info.GrantedAccess;
}

/* Rights of a stdio handle by its kind and access mode (wasi_table.c,
 * "Rights"); APPEND for an append-only handle. */
static void stdio_rights(wtp__wasi_entry_init *init, HANDLE handle) {
  uint64_t rights = wtp__wasi_kind_rights(init->filetype);
  init->rights_inheriting = 0;
  ACCESS_MASK access = granted_access(handle);
  if (access != 0 && init->filetype != WASI_FILETYPE_DIRECTORY) {
    if (!(access & (FILE_READ_DATA | GENERIC_READ)))
      rights &= ~WASI_RIGHTS_FD_READ;
    if (!(access & (FILE_WRITE_DATA | FILE_APPEND_DATA | GENERIC_WRITE)))
      rights &= ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_ALLOCATE |
                  WASI_RIGHTS_FD_FILESTAT_SET_SIZE);
    if (init->filetype == WASI_FILETYPE_REGULAR_FILE &&
        (access & FILE_APPEND_DATA) && !(access & FILE_WRITE_DATA))
      init->fdflags |= WASI_FDFLAGS_APPEND;
  }
  init->rights_base = rights;
}

/* A disk handle's WASI filetype from its attributes. */
static uint8_t disk_filetype(HANDLE handle) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(handle, &info))
    return WASI_FILETYPE_REGULAR_FILE;
  if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    return WASI_FILETYPE_SYMBOLIC_LINK; /* opened without following it */
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    return WASI_FILETYPE_DIRECTORY;
  return WASI_FILETYPE_REGULAR_FILE;
}

/* Filetype and io_kind of a handle, by what Windows says it is. */
static void classify(wtp__wasi_entry_init *init, HANDLE handle) {
  DWORD mode;
  switch (GetFileType(handle)) {
    case FILE_TYPE_DISK:
      init->filetype = disk_filetype(handle);
      init->io_kind = WASI_IO_FILE;
      break;
    case FILE_TYPE_CHAR:
      if (GetConsoleMode(handle, &mode)) {
        init->filetype = WASI_FILETYPE_CHARACTER_DEVICE;
        init->io_kind = WASI_IO_WIN_CONSOLE;
      } else {
        init->filetype = WASI_FILETYPE_UNKNOWN;
        init->io_kind = WASI_IO_WIN_CHAR;
      }
      break;
    case FILE_TYPE_PIPE:
      init->filetype = WASI_FILETYPE_UNKNOWN;
      init->io_kind = WASI_IO_WIN_PIPE;
      break;
    default:
      init->filetype = WASI_FILETYPE_UNKNOWN;
      init->io_kind = WASI_IO_WIN_CHAR;
      break;
  }
}

void wtp__wasi_host_classify(wtp__wasi_entry_init *init) {
  /* The path layer opened the handle and says what it is: a file or a
   * directory needs no question to Windows (GetFileType would also set a
   * file's access time under Wine 8); anything else is asked. */
  if (wtp__wasi_never_waits(init->filetype)) {
    init->io_kind = WASI_IO_FILE;
    return;
  }
  wtp__wasi_entry_init probe = *init;
  classify(&probe, wtp__wasi_handle(init->host_fd));
  init->io_kind = probe.io_kind;
}

int wtp__wasi_host_stdio(int which, int host, wtp__wasi_entry_init *init,
                         char *error, size_t error_size) {
  HANDLE own = NULL, process = GetCurrentProcess();
  if (!DuplicateHandle(process, wtp__wasi_handle(host), process, &own, 0, FALSE,
                       DUPLICATE_SAME_ACCESS)) {
    snprintf(error, error_size,
             "stdio %d: cannot duplicate host handle %d: Windows error %lu",
             which, host, (unsigned long)GetLastError());
    return EBADF;
  }
  init->host_fd = init->io_fd = wtp__wasi_handle_int(own);
  classify(init, own);
  stdio_rights(init, own);
  return 0;
}

int wtp__wasi_host_open_dir(const char *host_path, int *out, char *error,
                            size_t error_size) {
  wchar_t *path = wtp__wasi_utf16(host_path);
  if (path == NULL) {
    snprintf(error, error_size, "preopen %s: not a UTF-8 path", host_path);
    return EINVAL;
  }
  HANDLE dir =
      CreateFileW(path, GENERIC_READ | FILE_TRAVERSE,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  DWORD win_err = GetLastError();
  free(path);
  if (dir == INVALID_HANDLE_VALUE) {
    snprintf(error, error_size, "preopen %s: Windows error %lu", host_path,
             (unsigned long)win_err);
    return win_err == ERROR_FILE_NOT_FOUND || win_err == ERROR_PATH_NOT_FOUND
               ? ENOENT
           : win_err == ERROR_ACCESS_DENIED ? EACCES
                                            : EIO;
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(dir, &info) ||
      !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
    CloseHandle(dir);
    snprintf(error, error_size, "preopen %s: not a directory", host_path);
    return ENOTDIR;
  }
  *out = wtp__wasi_handle_int(dir);
  return 0;
}

/* ---- The stop ----
 *
 * wtp_wasi_stop sets `stopped`, then the event (every wait of the WASI
 * includes it, wasi_poll_windows.c), then cancels the synchronous I/O of
 * every registered blocking call (wtp__wasi_blocking_enter): a pipe or
 * console ReadFile/WriteFile, which nothing but its peer or a cancel ends.
 * CancelSynchronousIo (not CancelIoEx: a stdio handle shares its file
 * object with the host's handle, whose I/O must not be cancelled) ends the
 * call with ERROR_OPERATION_ABORTED. Measured under Wine 8
 * (test/wasi-c/WINE.md): it ends a blocked pipe or
 * console read and a write to a full pipe in 4-18 ms; CancelIo from
 * another thread does not, and ReOpenFile with FILE_FLAG_OVERLAPPED is
 * refused for inherited pipes, so overlapped I/O was no option.
 *
 * The race: a call registers (under blocking_lock, after checking
 * `stopped`: a call that registers after the stop's scan sees the flag and
 * never blocks), then enters ReadFile; a cancel that comes between the two
 * finds no I/O (ERROR_NOT_FOUND) and the call would then block for good. So
 * the stop retries: if a registered call was not cancelled in its first
 * pass, a canceller thread (holding a reference to the WASI) cancels again
 * every 1 ms, doubling to WTP__WASI_PIPE_POLL_MAX_MS, until every
 * registered call has either been cancelled or left.
 *
 * Residual (Wine only): a Linux pipe or terminal handed to wine64 as stdio
 * is read with a blocking read(2) that no cancel ends (test/wasi-c/WINE.md); a
 * call blocked there outlives the stop (the canceller keeps trying at
 * WTP__WASI_PIPE_POLL_MAX_MS until the call returns). */

int wtp__wasi_host_stop_make(wtp_wasi *wasi, char *error, size_t error_size) {
  wasi->blocking = NULL;
  wasi->canceller_running = 0;
  wtp__mutex_init(&wasi->blocking_lock);
  /* Manual reset, not signalled: once set it stays set. */
  wasi->stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
  if (wasi->stop_event == NULL) {
    snprintf(error, error_size, "the stop's event: Windows error %lu",
             (unsigned long)GetLastError());
    return ENOMEM;
  }
  return 0;
}

uint32_t wtp__wasi_blocking_enter(wtp_wasi *wasi, wtp__wasi_blocking *call) {
  call->cancelled = 0;
  call->prev = NULL;
  call->thread = OpenThread(THREAD_TERMINATE, FALSE, GetCurrentThreadId());
  wtp__mutex_lock(&wasi->blocking_lock);
  if (wtp_wasi_stopped(wasi)) {
    wtp__mutex_unlock(&wasi->blocking_lock);
    if (call->thread != NULL) CloseHandle(call->thread);
    return WTP_WASI_STOPPED;
  }
  call->next = wasi->blocking;
  if (call->next != NULL) call->next->prev = call;
  wasi->blocking = call;
  wtp__mutex_unlock(&wasi->blocking_lock);
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_blocking_leave(wtp_wasi *wasi, wtp__wasi_blocking *call) {
  wtp__mutex_lock(&wasi->blocking_lock);
  if (call->prev != NULL)
    call->prev->next = call->next;
  else
    wasi->blocking = call->next;
  if (call->next != NULL) call->next->prev = call->prev;
  wtp__mutex_unlock(&wasi->blocking_lock);
  if (call->thread != NULL) CloseHandle(call->thread);
  return wtp_wasi_stopped(wasi) ? WTP_WASI_STOPPED : WASI_ESUCCESS;
}

/* Under blocking_lock: cancels every registered call not yet cancelled;
 * returns how many remain. */
static int cancel_pass_locked(wtp_wasi *wasi) {
  int left = 0;
  for (wtp__wasi_blocking *call = wasi->blocking; call != NULL;
       call = call->next) {
    if (call->cancelled) continue;
    if (call->thread != NULL && CancelSynchronousIo(call->thread))
      call->cancelled = 1;
    else
      left++;
  }
  return left;
}

static DWORD WINAPI canceller(void *arg) {
  wtp_wasi *wasi = arg;
  DWORD ms = 1;
  for (;;) {
    Sleep(ms);
    wtp__mutex_lock(&wasi->blocking_lock);
    int left = cancel_pass_locked(wasi);
    if (left == 0) wasi->canceller_running = 0;
    wtp__mutex_unlock(&wasi->blocking_lock);
    if (left == 0) break;
    if (ms < WTP__WASI_PIPE_POLL_MAX_MS) ms *= 2;
  }
  wtp_wasi_release(wasi);
  return 0;
}

void wtp__wasi_host_stop_signal(wtp_wasi *wasi) {
  SetEvent(wasi->stop_event);
  wtp__mutex_lock(&wasi->blocking_lock);
  int left = cancel_pass_locked(wasi);
  int start = left > 0 && !wasi->canceller_running;
  if (start) wasi->canceller_running = 1;
  wtp__mutex_unlock(&wasi->blocking_lock);
  if (!start) return;
  wtp_wasi_retain(wasi); /* the canceller's, released when it ends */
  HANDLE thread = CreateThread(NULL, 64 * 1024, canceller, wasi,
                               STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
  if (thread != NULL) {
    CloseHandle(thread);
    return;
  }
  /* No thread: the registered calls were signalled once; leave it there. */
  wtp__mutex_lock(&wasi->blocking_lock);
  wasi->canceller_running = 0;
  wtp__mutex_unlock(&wasi->blocking_lock);
  wtp_wasi_release(wasi);
}

void wtp__wasi_host_stop_free(wtp_wasi *wasi) {
  if (wasi->stop_event != NULL) CloseHandle(wasi->stop_event);
  wasi->stop_event = NULL;
  wtp__mutex_destroy(&wasi->blocking_lock);
}

static uint64_t filetime_ns(FILETIME t) {
  return wtp__wasi_ticks_to_ns((uint64_t)t.dwHighDateTime << 32 |
                               t.dwLowDateTime);
}

/* dev: the volume's serial number; ino: the file index (both as
 * GetFileInformationByHandle gives them, what wasmtime reports on Windows);
 * ctim: the change time where Windows has one (FileBasicInfo), else the
 * last write. A pipe or console has none of these: zeros, its filetype.
 * (No GetFileType here: under Wine 8 it sets a disk file's access time to
 * now, measured; the entry's filetype says what the handle is.) */
uint32_t wtp__wasi_host_filestat(int host_fd, uint8_t filetype,
                                 wtp__wasi_filestat *out) {
  HANDLE handle = wtp__wasi_handle(host_fd);
  BY_HANDLE_FILE_INFORMATION info;
  memset(out, 0, sizeof *out);
  if (!wtp__wasi_never_waits(filetype)) {
    out->filetype = filetype;
    out->nlink = 1;
    return WASI_ESUCCESS;
  }
  if (!GetFileInformationByHandle(handle, &info)) return wtp__wasi_last_errno();
  out->dev = info.dwVolumeSerialNumber;
  out->ino = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
  out->filetype = disk_filetype(handle);
  out->nlink = info.nNumberOfLinks;
  out->size = (uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow;
  out->atim = filetime_ns(info.ftLastAccessTime);
  out->mtim = filetime_ns(info.ftLastWriteTime);
  out->ctim = out->mtim;
  FILE_BASIC_INFO basic;
  if (GetFileInformationByHandleEx(handle, FileBasicInfo, &basic, sizeof basic))
    out->ctim = wtp__wasi_ticks_to_ns((uint64_t)basic.ChangeTime.QuadPart);
  return WASI_ESUCCESS;
}
