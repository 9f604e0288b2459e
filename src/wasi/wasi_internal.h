/* wasi_internal.h: what the files of src/wasi/ share (not for the binding).
 *
 *   wasi_table.c    the program's WASI object, its fd table and its stop
 *   wasi_fd.c       fd_* calls on an open descriptor, stdio, sockets
 *   wasi_poll.c     poll_oneoff
 *   wasi_misc.c     args, environment, clocks, random, sched_yield, proc_raise
 *   wasi_path.c     the sandbox's OS-neutral part: copying guest paths
 *   wasi_path_posix.c, wasi_path_windows.c  the sandbox: resolving a guest
 *                   path beneath a preopen (wasi_path.h), per OS
 *   wasi_path_calls.c  path_* calls and fd_readdir, the guest's side
 *   wasi_path_host_posix.c, wasi_path_host_windows.c  their host operations
 *                   (wasi_path_host.h), per OS
 *   wasi_imports.c  the import table (wtp_wasi_imports)
 *
 * Those files hold the guest's side (range checks, iovecs, rights, the
 * records written to guest memory) once, for every OS; what reaches the OS
 * is behind a contract header per concern, one file per OS (_posix.c:
 * Linux and macOS; _windows.c):
 *   wasi_host.h     descriptors (stdio, preopens, close), the stop's object
 *   wasi_io.h       the fd_* and sock_* operations on a descriptor
 *   wasi_wait.h     waiting for a peer and poll_oneoff's wait
 *   wasi_clock.h    clocks, random bytes, yield
 *   wasi_errno_posix.c / wasi_errno_windows.c   host errors as WASI errnos
 * (The path layer splits the same way: wasi_path.h, wasi_path_host.h above.)
 *
 * Also: wasi_errno.h (the preview1 constants), wasi_table.h (struct wtp_wasi
 * and the entry, for the table, fd, poll and misc files only).
 *
 * Changes since the first version of this contract: the readdir state
 * accessor's free_state is an input (see below); the rights accessors
 * (wtp__wasi_entry_need, _inheriting, wtp__wasi_kind_rights) are new;
 * nothing renamed.
 */
#ifndef WTP_WASI_INTERNAL_H
#define WTP_WASI_INTERNAL_H

#include <stdint.h>
#include <sys/stat.h>

#include "wtp_wasi.h"

/* One open descriptor of the program. Reference-counted: the table's slot
 * holds one reference, every call in flight on it holds one more, so a close
 * on one thread never closes the host fd under a read on another; the host
 * fd is closed when the last reference goes. The fields and their locking
 * are documented where the struct is defined (wasi_table.c). */
typedef struct wtp__wasi_entry wtp__wasi_entry;

/* Looks fd up and takes a reference: WTP_WASI_EBADF if fd is not open.
 * Never blocks on I/O; holds the table's lock only for the look-up. */
uint32_t wtp__wasi_fd_get(wtp_wasi *wasi, uint32_t fd, wtp__wasi_entry **out);
/* Drops the reference wtp__wasi_fd_get took. */
void wtp__wasi_fd_put(wtp__wasi_entry *entry);
/* Adds host_fd to the table at the lowest free number and stores it in
 * *fd_out. Takes ownership of host_fd: on failure it is closed. */
uint32_t wtp__wasi_fd_add(wtp_wasi *wasi, int host_fd, uint8_t filetype,
                          uint16_t fdflags, uint64_t rights_base,
                          uint64_t rights_inheriting, uint32_t *fd_out);

/* An entry's fields the path layer reads (immutable after the entry is made). */
int wtp__wasi_entry_host_fd(const wtp__wasi_entry *entry);
uint8_t wtp__wasi_entry_filetype(const wtp__wasi_entry *entry);
/* Rights (wasi_table.c, "Rights"): 0 if the entry holds every right in
 * `needed` that its kind can hold; else WASI EBADF if a missing one is an
 * access-mode right (read, write, set size, allocate), WASI ENOTCAPABLE
 * otherwise. */
uint32_t wtp__wasi_entry_need(const wtp__wasi_entry *entry, uint64_t needed);
/* The entry's inheriting rights now (path_open grants no more). */
uint64_t wtp__wasi_entry_inheriting(const wtp__wasi_entry *entry);
/* The most a descriptor of this WASI filetype can hold. */
uint64_t wtp__wasi_kind_rights(uint8_t filetype);
/* The guest name of a preopened directory, or NULL. */
const char *wtp__wasi_entry_preopen(const wtp__wasi_entry *entry);
/* fd_readdir's per-descriptor state (wasi_path_calls.c owns its contents):
 * returns the address of the entry's state slot (NULL at first). If
 * free_state is not NULL and *free_state is a function, the table records it
 * and calls it on the slot's value when the entry goes (its last reference).
 * The caller serialises on the entry's lock (wtp__wasi_entry_lock/unlock). */
void **wtp__wasi_entry_readdir_state(wtp__wasi_entry *entry,
                                     void (**free_state)(void *));
void wtp__wasi_entry_lock(wtp__wasi_entry *entry);
void wtp__wasi_entry_unlock(wtp__wasi_entry *entry);

/* A WASI filestat as the host knows it (wtp__wasi_put_filestat writes it
 * to guest memory; wasi_host.h's wtp__wasi_host_filestat reads a
 * descriptor's). Times in ns since 1970. */
typedef struct wtp__wasi_filestat {
  uint64_t dev, ino;
  uint8_t filetype;
  uint64_t nlink, size, atim, mtim, ctim;
} wtp__wasi_filestat;
/* Writes a WASI filestat (64 bytes, little-endian) at dst. */
void wtp__wasi_put_filestat(uint8_t *dst, const wtp__wasi_filestat *st);

/* A libuv error (UV_E*, negative; 0 is success) as a WASI errno
 * (wasi_errno_windows.c; EIO for one without a WASI twin; built on Windows
 * only, where the addon imports libuv from node.exe). On Windows every OS
 * error reaches the WASI through it: uv_translate_sys_error(GetLastError()),
 * NTSTATUS through RtlNtStatusToDosError first. */
uint32_t wtp__wasi_uv_errno(int uv_err);

#ifndef _WIN32
/* wasi_poll_posix.c: waits until fd is ready for events (POLLIN or POLLOUT),
 * the peer hung up or failed (0), or the program stops (WTP_WASI_STOPPED).
 * Never a timeout. */
uint32_t wtp__wasi_wait_fd(wtp_wasi *wasi, int fd, short events);

/* wasi_errno_posix.c: a host errno as a WASI errno. */
uint32_t wtp__wasi_errno(int host_errno);
/* A host file type (st_mode) as a WASI filetype. */
uint8_t wtp__wasi_filetype(mode_t mode);
/* Writes a WASI filestat (64 bytes, little-endian) at dst. */
void wtp__wasi_write_filestat(uint8_t *dst, const struct stat *st);
/* struct stat as the neutral record. */
void wtp__wasi_posix_filestat(const struct stat *st, wtp__wasi_filestat *out);
#else
/* wasi_errno_windows.c: a Win32 error (GetLastError()) as a WASI errno, and
 * an NTSTATUS as one. */
uint32_t wtp__wasi_win_errno(unsigned long win32_error);
uint32_t wtp__wasi_nt_errno(long ntstatus);
#endif

/* Guest memory: 1 if [ptr, ptr + len) lies inside memory (no overflow). */
static inline int wtp__wasi_range_ok(const wtp_wasi_memory *memory,
                                     uint64_t ptr, uint64_t len) {
  return ptr <= memory->size && len <= memory->size - ptr;
}
/* Little-endian loads and stores of guest words (callers checked the range). */
static inline uint32_t wtp__wasi_load32(const wtp_wasi_memory *m,
                                        uint64_t ptr) {
  const uint8_t *p = m->base + ptr;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static inline void wtp__wasi_store32(const wtp_wasi_memory *m, uint64_t ptr,
                                     uint32_t v) {
  uint8_t *p = m->base + ptr;
  p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
  p[3] = (uint8_t)(v >> 24);
}
static inline void wtp__wasi_store64(const wtp_wasi_memory *m, uint64_t ptr,
                                     uint64_t v) {
  wtp__wasi_store32(m, ptr, (uint32_t)v);
  wtp__wasi_store32(m, ptr + 4, (uint32_t)(v >> 32));
}

/* The calls. Each has the wtp_wasi_call_fn signature; args as documented in
 * wtp_wasi.h. Listed by the file that defines them. */
#define WTP__WASI_CALL(name)                                               \
  uint32_t wtp__wasi_##name(wtp_wasi *wasi, const wtp_wasi_memory *memory, \
                            const uint64_t *args)

/* wasi_misc.c */
WTP__WASI_CALL(args_get);
WTP__WASI_CALL(args_sizes_get);
WTP__WASI_CALL(environ_get);
WTP__WASI_CALL(environ_sizes_get);
WTP__WASI_CALL(clock_res_get);
WTP__WASI_CALL(clock_time_get);
WTP__WASI_CALL(random_get);
WTP__WASI_CALL(sched_yield);
WTP__WASI_CALL(proc_raise);
/* wasi_fd.c */
WTP__WASI_CALL(fd_advise);
WTP__WASI_CALL(fd_allocate);
WTP__WASI_CALL(fd_close);
WTP__WASI_CALL(fd_datasync);
WTP__WASI_CALL(fd_fdstat_get);
WTP__WASI_CALL(fd_fdstat_set_flags);
WTP__WASI_CALL(fd_fdstat_set_rights);
WTP__WASI_CALL(fd_filestat_get);
WTP__WASI_CALL(fd_filestat_set_size);
WTP__WASI_CALL(fd_filestat_set_times);
WTP__WASI_CALL(fd_pread);
WTP__WASI_CALL(fd_prestat_get);
WTP__WASI_CALL(fd_prestat_dir_name);
WTP__WASI_CALL(fd_pwrite);
WTP__WASI_CALL(fd_read);
WTP__WASI_CALL(fd_renumber);
WTP__WASI_CALL(fd_seek);
WTP__WASI_CALL(fd_sync);
WTP__WASI_CALL(fd_tell);
WTP__WASI_CALL(fd_write);
WTP__WASI_CALL(sock_accept);
WTP__WASI_CALL(sock_recv);
WTP__WASI_CALL(sock_send);
WTP__WASI_CALL(sock_shutdown);
/* wasi_poll.c */
WTP__WASI_CALL(poll_oneoff);
/* wasi_path_calls.c */
WTP__WASI_CALL(fd_readdir);
WTP__WASI_CALL(path_create_directory);
WTP__WASI_CALL(path_filestat_get);
WTP__WASI_CALL(path_filestat_set_times);
WTP__WASI_CALL(path_link);
WTP__WASI_CALL(path_open);
WTP__WASI_CALL(path_readlink);
WTP__WASI_CALL(path_remove_directory);
WTP__WASI_CALL(path_rename);
WTP__WASI_CALL(path_symlink);
WTP__WASI_CALL(path_unlink_file);

#endif /* WTP_WASI_INTERNAL_H */
