/* wasi_path_host.h: the host operations of the path calls, one file per OS:
 * wasi_path_host_posix.c (Linux, macOS) and wasi_path_host_windows.c.
 * wasi_path_calls.c (every OS) does the guest's side of each call (range
 * checks, copies of guest paths, rights, trailing-slash rules, the records
 * written to guest memory, fd_readdir's cookies) and resolves every path
 * beneath its directory (wasi_path.h) before it calls one of these on the
 * resolved wtp__wasi_at. None of these ever follows at->name itself: the
 * sandbox has already followed what the call asked to follow.
 *
 * Every operation returns 0 or a WASI errno. */
#ifndef WTP_WASI_PATH_HOST_H
#define WTP_WASI_PATH_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "wasi_path.h"
#include "wtp_wasi.h"

/* WASI filestat record, as the guest gets it: dev @0, ino @8, filetype @16
 * (u8, padded), nlink @24, size @32, atim @40, mtim @48, ctim @56 (ns since
 * 1970), little-endian. */
#define WTP__WASI_FILESTAT_SIZE 64

/* The entry at->name (never followed) as a filestat record. */
uint32_t wtp__wasi_host_stat_at(const wtp__wasi_at *at,
                                uint8_t filestat[WTP__WASI_FILESTAT_SIZE]);
uint32_t wtp__wasi_host_mkdir_at(const wtp__wasi_at *at);
uint32_t wtp__wasi_host_rmdir_at(const wtp__wasi_at *at);
uint32_t wtp__wasi_host_unlink_at(const wtp__wasi_at *at);
uint32_t wtp__wasi_host_rename_at(const wtp__wasi_at *from,
                                  const wtp__wasi_at *to);
/* A hard link to from (a link itself is linked, never followed). */
uint32_t wtp__wasi_host_link_at(const wtp__wasi_at *from,
                                const wtp__wasi_at *to);
/* A symbolic link at at holding target (relative: the caller refused an
 * absolute one). */
uint32_t wtp__wasi_host_symlink_at(const char *target, const wtp__wasi_at *at);
/* The text of the link at at: at most size bytes into buf, its length in
 * *len (== size: maybe cut; the caller's buffer is WTP__WASI_PATH_MAX + 1). */
uint32_t wtp__wasi_host_readlink_at(const wtp__wasi_at *at, char *buf,
                                    size_t size, size_t *len);
/* Sets at's times (never followed). fstflags is valid (the caller checked
 * it: no time both given and NOW); a time not in it is left alone. */
uint32_t wtp__wasi_host_set_times_at(const wtp__wasi_at *at, uint64_t atim,
                                     uint64_t mtim, uint32_t fstflags);

/* path_open's host part: opens path beneath the directory base (a path the
 * caller copied and checked) with the guest's oflags and fdflags (checked)
 * for the rights rights_base (already narrowed to what the directory
 * grants), following the final component if follow. Waits the stop can end
 * (a FIFO's peer) are made here: WTP_WASI_STOPPED if the program stopped.
 * On success stores the new host descriptor (owned by the caller) and its
 * WASI filetype. */
uint32_t wtp__wasi_host_open(wtp_wasi *wasi, int base, const char *path,
                             uint32_t oflags, uint16_t fdflags,
                             uint64_t rights_base, int follow, int *host_fd,
                             uint8_t *filetype);

/* fd_readdir's host listing of a directory descriptor: entries in the
 * directory's order, "." and ".." included where the OS lists them. */
typedef struct wtp__wasi_host_dir wtp__wasi_host_dir;
typedef struct wtp__wasi_dirent {
  uint64_t ino;
  uint8_t type; /* WASI filetype */
  uint32_t name_len;
  char name[768]; /* UTF-8, cut to name_len < sizeof name */
} wtp__wasi_dirent;
uint32_t wtp__wasi_host_dir_open(int host_fd, wtp__wasi_host_dir **out);
/* 1 and *out filled, 0 at the end, or minus a WASI errno. */
int wtp__wasi_host_dir_next(wtp__wasi_host_dir *dir, wtp__wasi_dirent *out);
/* Back to the first entry. */
uint32_t wtp__wasi_host_dir_rewind(wtp__wasi_host_dir *dir);
void wtp__wasi_host_dir_close(wtp__wasi_host_dir *dir);

#endif /* WTP_WASI_PATH_HOST_H */
