/* wasi_io.h: the OS layer of the fd_* and sock_* calls (wasi_fd.c).
 *
 *   wasi_fd_posix.c     Linux and macOS: readv/writev, pread/pwrite,
 *                       pwritev2(RWF_APPEND), non-blocking streams waited
 *                       for with poll (wasi_poll_posix.c)
 *   wasi_fd_windows.c   Windows: ReadFile/WriteFile on handles, pipes and
 *                       consoles waited for where the stop can end it
 *
 * wasi_fd.c has checked, before any of these runs: every guest range, the
 * descriptor's rights, its kind where the answer does not depend on the OS
 * (a seek on a directory: EBADF; positioned I/O, seek, advise, allocate on
 * anything but WASI_IO_FILE: ESPIPE), and every argument's range (whence,
 * advice, fstflags, offsets <= INT64_MAX). Each answers a WASI errno (or
 * WTP_WASI_STOPPED where it waits); the entry is referenced by the caller.
 */
#ifndef WTP_WASI_IO_H
#define WTP_WASI_IO_H

#include <stddef.h>
#include <stdint.h>

#include "wasi_table.h"

#ifdef _WIN32
/* One buffer of guest memory (the POSIX struct iovec's fields). */
typedef struct wtp__wasi_iov {
  void *iov_base;
  size_t iov_len;
} wtp__wasi_iov;
#else
#include <sys/uio.h>
typedef struct iovec wtp__wasi_iov;
#endif

/* At most this many buffers and bytes per call: a longer list is a short
 * read or write, as POSIX allows. */
#define WASI_IOV_MAX 1024
#define WASI_IO_BYTES_MAX INT32_MAX

/* One fd_read or fd_write. */
typedef struct wtp__wasi_transfer {
  int write; /* 1: write, 0: read */
} wtp__wasi_transfer;

/* The whole transfer: a read returns after the first transfer that moves
 * bytes (or EOF), a write goes on until every byte is written (a stream
 * waits for its peer as long as it takes, unless the guest's NONBLOCK
 * answers EAGAIN, and the stop ends it). *done counts the bytes; bytes
 * moved before an error are a short transfer (success), the stop wins.
 * APPEND, DSYNC and SYNC (the entry's fdflags) are the OS layer's to honour. */
uint32_t wtp__wasi_io_transfer(wtp_wasi *wasi, wtp__wasi_entry *entry,
                               wtp__wasi_iov *iov, int count,
                               wtp__wasi_transfer *t, size_t *done);

/* fd_pread/fd_pwrite on a WASI_IO_FILE entry: at offset, the descriptor's
 * position unchanged. */
uint32_t wtp__wasi_io_positioned(wtp__wasi_entry *entry, wtp__wasi_iov *iov,
                                 int count, uint64_t offset, int write,
                                 size_t *done);

/* fd_seek on a WASI_IO_FILE entry that is no directory: whence is WASI's
 * (WASI_WHENCE_*); *position the new offset. */
uint32_t wtp__wasi_io_seek(wtp__wasi_entry *entry, int64_t offset,
                           uint8_t whence, uint64_t *position);

/* fd_sync (data_only 0) and fd_datasync (1). */
uint32_t wtp__wasi_io_sync(wtp__wasi_entry *entry, int data_only);

/* fd_advise (advice: WASI_ADVICE_*) and fd_allocate on a WASI_IO_FILE entry
 * that is no directory; offset + len <= INT64_MAX. */
uint32_t wtp__wasi_io_advise(wtp__wasi_entry *entry, uint64_t offset,
                             uint64_t len, uint8_t advice);
uint32_t wtp__wasi_io_allocate(wtp__wasi_entry *entry, uint64_t offset,
                               uint64_t len);

/* fd_filestat_set_size on an entry that holds the right (size <=
 * INT64_MAX). */
uint32_t wtp__wasi_io_set_size(wtp__wasi_entry *entry, uint64_t size);

/* fd_filestat_set_times; fstflags already checked (no SET and NOW for one
 * time, no unknown bit). */
uint32_t wtp__wasi_io_set_times(wtp__wasi_entry *entry, uint64_t atim,
                                uint64_t mtim, uint16_t fstflags);

#endif /* WTP_WASI_IO_H */
