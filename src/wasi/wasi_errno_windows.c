/* wasi_errno_windows.c: what Windows answers, as WASI errnos.
 *
 * One path for every OS error: a Win32 error (GetLastError) goes through
 * libuv's uv_translate_sys_error (node.exe exports it; the addon imports it,
 * scripts/cross-prebuild.js), an NTSTATUS through RtlNtStatusToDosError
 * first, and the libuv error through wtp__wasi_uv_errno, so that the
 * Windows WASI answers what libuv (and so Node) makes of each Windows
 * error, and this file holds no second copy of libuv's table.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winternl.h>

#include <uv.h>

#include "wasi_errno.h"
#include "wasi_internal.h"

uint32_t wtp__wasi_win_errno(unsigned long win32_error) {
  if (win32_error == ERROR_SUCCESS) return WASI_ESUCCESS;
  /* libuv leaves it UV_UNKNOWN; lseek's answer to a position before 0. */
  if (win32_error == ERROR_NEGATIVE_SEEK) return WASI_EINVAL;
  return wtp__wasi_uv_errno(uv_translate_sys_error((int)win32_error));
}

uint32_t wtp__wasi_nt_errno(long ntstatus) {
  if (ntstatus >= 0) return WASI_ESUCCESS;
  return wtp__wasi_win_errno(RtlNtStatusToDosError((NTSTATUS)ntstatus));
}

/* UV_E* as WASI. A libuv error without a WASI twin gets the nearest one:
 * the getaddrinfo errors, UV_EOF (not an error in WASI: a read returns 0)
 * and UV_UNKNOWN get EIO, UV_ECHARSET EILSEQ, UV_ESHUTDOWN EPIPE (a write
 * after shutdown), UV_EHOSTDOWN EHOSTUNREACH, UV_ENONET ENETUNREACH,
 * UV_EFTYPE EINVAL, UV_ESOCKTNOSUPPORT ENOTSUP, UV_ENODATA and
 * UV_EREMOTEIO EIO, UV_EUNATCH EIO. */
uint32_t wtp__wasi_uv_errno(int uv_err) {
  switch (uv_err) {
    case 0:
      return WASI_ESUCCESS;
    case UV_E2BIG:
      return WASI_E2BIG;
    case UV_EACCES:
      return WASI_EACCES;
    case UV_EADDRINUSE:
      return WASI_EADDRINUSE;
    case UV_EADDRNOTAVAIL:
      return WASI_EADDRNOTAVAIL;
    case UV_EAFNOSUPPORT:
      return WASI_EAFNOSUPPORT;
    case UV_EAGAIN:
      return WASI_EAGAIN;
    case UV_EALREADY:
      return WASI_EALREADY;
    case UV_EBADF:
      return WASI_EBADF;
    case UV_EBUSY:
      return WASI_EBUSY;
    case UV_ECANCELED:
      return WASI_ECANCELED;
    case UV_ECHARSET:
      return WASI_EILSEQ;
    case UV_ECONNABORTED:
      return WASI_ECONNABORTED;
    case UV_ECONNREFUSED:
      return WASI_ECONNREFUSED;
    case UV_ECONNRESET:
      return WASI_ECONNRESET;
    case UV_EDESTADDRREQ:
      return WASI_EDESTADDRREQ;
    case UV_EEXIST:
      return WASI_EEXIST;
    case UV_EFAULT:
      return WASI_EFAULT;
    case UV_EFBIG:
      return WASI_EFBIG;
    case UV_EFTYPE:
      return WASI_EINVAL;
    case UV_EHOSTDOWN:
    case UV_EHOSTUNREACH:
      return WASI_EHOSTUNREACH;
    case UV_EILSEQ:
      return WASI_EILSEQ;
    case UV_EINTR:
      return WASI_EINTR;
    case UV_EINVAL:
      return WASI_EINVAL;
    case UV_EISCONN:
      return WASI_EISCONN;
    case UV_EISDIR:
      return WASI_EISDIR;
    case UV_ELOOP:
      return WASI_ELOOP;
    case UV_EMFILE:
      return WASI_EMFILE;
    case UV_EMLINK:
      return WASI_EMLINK;
    case UV_EMSGSIZE:
      return WASI_EMSGSIZE;
    case UV_ENAMETOOLONG:
      return WASI_ENAMETOOLONG;
    case UV_ENETDOWN:
      return WASI_ENETDOWN;
    case UV_ENONET:
    case UV_ENETUNREACH:
      return WASI_ENETUNREACH;
    case UV_ENFILE:
      return WASI_ENFILE;
    case UV_ENOBUFS:
      return WASI_ENOBUFS;
    case UV_ENODEV:
      return WASI_ENODEV;
    case UV_ENOENT:
      return WASI_ENOENT;
    case UV_ENOMEM:
      return WASI_ENOMEM;
    case UV_ENOPROTOOPT:
      return WASI_ENOPROTOOPT;
    case UV_ENOSPC:
      return WASI_ENOSPC;
    case UV_ENOSYS:
      return WASI_ENOSYS;
    case UV_ENOTCONN:
      return WASI_ENOTCONN;
    case UV_ENOTDIR:
      return WASI_ENOTDIR;
    case UV_ENOTEMPTY:
      return WASI_ENOTEMPTY;
    case UV_ENOTSOCK:
      return WASI_ENOTSOCK;
    case UV_ESOCKTNOSUPPORT:
    case UV_ENOTSUP:
      return WASI_ENOTSUP;
    case UV_ENOTTY:
      return WASI_ENOTTY;
    case UV_ENXIO:
      return WASI_ENXIO;
    case UV_EOVERFLOW:
      return WASI_EOVERFLOW;
    case UV_EPERM:
      return WASI_EPERM;
    case UV_ESHUTDOWN:
    case UV_EPIPE:
      return WASI_EPIPE;
    case UV_EPROTO:
      return WASI_EPROTO;
    case UV_EPROTONOSUPPORT:
      return WASI_EPROTONOSUPPORT;
    case UV_EPROTOTYPE:
      return WASI_EPROTOTYPE;
    case UV_ERANGE:
      return WASI_ERANGE;
    case UV_EROFS:
      return WASI_EROFS;
    case UV_ESPIPE:
      return WASI_ESPIPE;
    case UV_ESRCH:
      return WASI_ESRCH;
    case UV_ETIMEDOUT:
      return WASI_ETIMEDOUT;
    case UV_ETXTBSY:
      return WASI_ETXTBSY;
    case UV_EXDEV:
      return WASI_EXDEV;
    default:
      return WASI_EIO;
  }
}
