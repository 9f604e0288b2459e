/* wasi_host.h: the OS layer of the WASI's descriptors and of its stop.
 *
 *   wasi_host_posix.c     Linux and macOS: dup, /proc/self/fd reopen, open,
 *                         eventfd or a pipe for the stop
 *   wasi_host_windows.c   Windows: DuplicateHandle, CreateFileW with
 *                         FILE_FLAG_BACKUP_SEMANTICS, a manual-reset event
 *                         for the stop
 *
 * The table (wasi_table.c) is OS-neutral; it calls these to make, classify
 * and close the host descriptors it holds (an int on every OS: a HANDLE as
 * HandleToLong gives it on Windows, wasi_table.h). Each answers as its
 * comment says; the host errnos are the C library's (<errno.h>), for
 * wtp_wasi_create's result, with a message naming what failed.
 */
#ifndef WTP_WASI_HOST_H
#define WTP_WASI_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "wasi_errno.h"
#include "wasi_table.h"

/* Regular files, directories and block devices never wait for a peer. */
static inline int wtp__wasi_never_waits(uint8_t filetype) {
  return filetype == WASI_FILETYPE_REGULAR_FILE ||
         filetype == WASI_FILETYPE_DIRECTORY ||
         filetype == WASI_FILETYPE_BLOCK_DEVICE;
}

/* Closes a host descriptor the table owned (an entry's host_fd or io_fd). */
void wtp__wasi_host_close(int host_fd);

/* Makes the program's stdio descriptor `which` (0, 1, 2) from the host's
 * `host` (a descriptor number on POSIX, a C runtime HANDLE value on
 * Windows: the binding converts Node's fds): duplicates it (the program's
 * close never touches the host's), then fills init (descriptors, filetype,
 * io_kind, fdflags, rights). Returns 0, or a host errno with a message. */
int wtp__wasi_host_stdio(int which, int host, wtp__wasi_entry_init *init,
                         char *error, size_t error_size);

/* Opens a preopen's directory (host_path: UTF-8) for the table; returns 0
 * and *out, or a host errno with a message (not a directory: ENOTDIR). */
int wtp__wasi_host_open_dir(const char *host_path, int *out, char *error,
                            size_t error_size);

/* wtp__wasi_fd_add: init holds a descriptor the path layer opened (its
 * description ours alone) with its filetype; sets init->io_kind (and
 * io_fd) for how its I/O reaches the OS. */
void wtp__wasi_host_classify(wtp__wasi_entry_init *init);

/* The stop's wake-up object: made at create (0, or a host errno with a
 * message), signalled for good by wtp_wasi_stop after `stopped` is set,
 * freed with the WASI (after every call has ended). */
int wtp__wasi_host_stop_make(wtp_wasi *wasi, char *error, size_t error_size);
void wtp__wasi_host_stop_signal(wtp_wasi *wasi);
void wtp__wasi_host_stop_free(wtp_wasi *wasi);

/* A descriptor's filestat (wasi_internal.h's wtp__wasi_filestat); a WASI
 * errno. filetype: the descriptor's, as its entry says (Windows asks the OS
 * only about a file or directory: a pipe or console has no stat there). */
uint32_t wtp__wasi_host_filestat(int host_fd, uint8_t filetype,
                                 wtp__wasi_filestat *out);

#endif /* WTP_WASI_HOST_H */
