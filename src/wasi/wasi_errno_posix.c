/* wasi_errno_posix.c: what Linux and macOS answer, as WASI: errno values,
 * file types, struct stat as a filestat. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sys/stat.h>

#include "wasi_errno.h"
#include "wasi_table.h"

uint32_t wtp__wasi_errno(int host_errno) {
  switch (host_errno) {
    case 0:
      return WASI_ESUCCESS;
    case E2BIG:
      return WASI_E2BIG;
    case EACCES:
      return WASI_EACCES;
    case EADDRINUSE:
      return WASI_EADDRINUSE;
    case EADDRNOTAVAIL:
      return WASI_EADDRNOTAVAIL;
    case EAFNOSUPPORT:
      return WASI_EAFNOSUPPORT;
    case EAGAIN:
      return WASI_EAGAIN;
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
      return WASI_EAGAIN;
#endif
    case EALREADY:
      return WASI_EALREADY;
    case EBADF:
      return WASI_EBADF;
    case EBADMSG:
      return WASI_EBADMSG;
    case EBUSY:
      return WASI_EBUSY;
    case ECANCELED:
      return WASI_ECANCELED;
    case ECHILD:
      return WASI_ECHILD;
    case ECONNABORTED:
      return WASI_ECONNABORTED;
    case ECONNREFUSED:
      return WASI_ECONNREFUSED;
    case ECONNRESET:
      return WASI_ECONNRESET;
    case EDEADLK:
      return WASI_EDEADLK;
    case EDESTADDRREQ:
      return WASI_EDESTADDRREQ;
    case EDOM:
      return WASI_EDOM;
    case EDQUOT:
      return WASI_EDQUOT;
    case EEXIST:
      return WASI_EEXIST;
    case EFAULT:
      return WASI_EFAULT;
    case EFBIG:
      return WASI_EFBIG;
    case EHOSTUNREACH:
      return WASI_EHOSTUNREACH;
    case EIDRM:
      return WASI_EIDRM;
    case EILSEQ:
      return WASI_EILSEQ;
    case EINPROGRESS:
      return WASI_EINPROGRESS;
    case EINTR:
      return WASI_EINTR;
    case EINVAL:
      return WASI_EINVAL;
    case EIO:
      return WASI_EIO;
    case EISCONN:
      return WASI_EISCONN;
    case EISDIR:
      return WASI_EISDIR;
    case ELOOP:
      return WASI_ELOOP;
    case EMFILE:
      return WASI_EMFILE;
    case EMLINK:
      return WASI_EMLINK;
    case EMSGSIZE:
      return WASI_EMSGSIZE;
    case EMULTIHOP:
      return WASI_EMULTIHOP;
    case ENAMETOOLONG:
      return WASI_ENAMETOOLONG;
    case ENETDOWN:
      return WASI_ENETDOWN;
    case ENETRESET:
      return WASI_ENETRESET;
    case ENETUNREACH:
      return WASI_ENETUNREACH;
    case ENFILE:
      return WASI_ENFILE;
    case ENOBUFS:
      return WASI_ENOBUFS;
    case ENODEV:
      return WASI_ENODEV;
    case ENOENT:
      return WASI_ENOENT;
    case ENOEXEC:
      return WASI_ENOEXEC;
    case ENOLCK:
      return WASI_ENOLCK;
    case ENOLINK:
      return WASI_ENOLINK;
    case ENOMEM:
      return WASI_ENOMEM;
    case ENOMSG:
      return WASI_ENOMSG;
    case ENOPROTOOPT:
      return WASI_ENOPROTOOPT;
    case ENOSPC:
      return WASI_ENOSPC;
    case ENOSYS:
      return WASI_ENOSYS;
    case ENOTCONN:
      return WASI_ENOTCONN;
    case ENOTDIR:
      return WASI_ENOTDIR;
    case ENOTEMPTY:
      return WASI_ENOTEMPTY;
    case ENOTRECOVERABLE:
      return WASI_ENOTRECOVERABLE;
    case ENOTSOCK:
      return WASI_ENOTSOCK;
    case ENOTSUP:
      return WASI_ENOTSUP;
#if EOPNOTSUPP != ENOTSUP
    case EOPNOTSUPP:
      return WASI_ENOTSUP;
#endif
    case ENOTTY:
      return WASI_ENOTTY;
    case ENXIO:
      return WASI_ENXIO;
    case EOVERFLOW:
      return WASI_EOVERFLOW;
    case EOWNERDEAD:
      return WASI_EOWNERDEAD;
    case EPERM:
      return WASI_EPERM;
    case EPIPE:
      return WASI_EPIPE;
    case EPROTO:
      return WASI_EPROTO;
    case EPROTONOSUPPORT:
      return WASI_EPROTONOSUPPORT;
    case EPROTOTYPE:
      return WASI_EPROTOTYPE;
    case ERANGE:
      return WASI_ERANGE;
    case EROFS:
      return WASI_EROFS;
    case ESPIPE:
      return WASI_ESPIPE;
    case ESRCH:
      return WASI_ESRCH;
    case ESTALE:
      return WASI_ESTALE;
    case ETIMEDOUT:
      return WASI_ETIMEDOUT;
    case ETXTBSY:
      return WASI_ETXTBSY;
    case EXDEV:
      return WASI_EXDEV;
    default:
      return WASI_EIO;
  }
}

uint8_t wtp__wasi_filetype(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return WASI_FILETYPE_REGULAR_FILE;
    case S_IFDIR:
      return WASI_FILETYPE_DIRECTORY;
    case S_IFCHR:
      return WASI_FILETYPE_CHARACTER_DEVICE;
    case S_IFBLK:
      return WASI_FILETYPE_BLOCK_DEVICE;
    case S_IFLNK:
      return WASI_FILETYPE_SYMBOLIC_LINK;
    case S_IFSOCK:
      return WASI_FILETYPE_SOCKET_STREAM;
    default:
      return WASI_FILETYPE_UNKNOWN; /* FIFOs too, as wasmtime reports them */
  }
}

#ifdef __APPLE__
#define STAT_NS(st, which)                                     \
  ((uint64_t)(st)->st_##which##timespec.tv_sec * 1000000000u + \
   (uint64_t)(st)->st_##which##timespec.tv_nsec)
#else
#define STAT_NS(st, which)                                \
  ((uint64_t)(st)->st_##which##tim.tv_sec * 1000000000u + \
   (uint64_t)(st)->st_##which##tim.tv_nsec)
#endif

void wtp__wasi_write_filestat(uint8_t *dst, const struct stat *st) {
  wtp__wasi_filestat fs;
  wtp__wasi_posix_filestat(st, &fs);
  wtp__wasi_put_filestat(dst, &fs);
}

void wtp__wasi_posix_filestat(const struct stat *st, wtp__wasi_filestat *out) {
  out->dev = (uint64_t)st->st_dev;
  out->ino = (uint64_t)st->st_ino;
  out->filetype = wtp__wasi_filetype(st->st_mode);
  out->nlink = (uint64_t)st->st_nlink;
  out->size = (uint64_t)st->st_size;
  out->atim = STAT_NS(st, a);
  out->mtim = STAT_NS(st, m);
  out->ctim = STAT_NS(st, c);
}
