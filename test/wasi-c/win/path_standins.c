/* path_standins.c: what test_wasi_path_windows.c needs of the rest of the
 * WASI when it links only the path layer (wasi_path.c,
 * wasi_path_windows.c, wasi_path_host_windows.c): the Win32 and NTSTATUS
 * error translation (wasi_errno_windows.c goes through libuv, which only
 * node.exe has), as a small table of the errors these tests meet. */
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winternl.h>

#include <stdint.h>

#include "wasi_errno.h"

uint32_t wtp__wasi_win_errno(unsigned long e) {
  switch (e) {
    case 0:
      return WASI_ESUCCESS;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
      return WASI_ENOENT;
    case ERROR_ACCESS_DENIED:
      return WASI_EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return WASI_EEXIST;
    case ERROR_DIR_NOT_EMPTY:
      return WASI_ENOTEMPTY;
    case ERROR_DIRECTORY:
      return WASI_ENOTDIR;
    case ERROR_SHARING_VIOLATION:
      return WASI_EBUSY;
    case ERROR_PRIVILEGE_NOT_HELD:
      return WASI_EPERM;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
      return WASI_ENOTSUP;
    case ERROR_INVALID_PARAMETER:
      return WASI_EINVAL;
    default:
      return WASI_EIO;
  }
}

uint32_t wtp__wasi_nt_errno(long status) {
  return status >= 0 ? WASI_ESUCCESS
                     : wtp__wasi_win_errno(RtlNtStatusToDosError(status));
}
#endif
