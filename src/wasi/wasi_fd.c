/* wasi_fd.c: the fd_* calls on an open descriptor, stdio, and sock_*: the
 * guest's side, for every OS (the OS's side: wasi_io.h).
 *
 * Every call takes a reference on its entry (wtp__wasi_fd_get: no lock) and
 * drops it at the end; the I/O runs on the referenced entry with no table
 * lock held. iovec lists are read straight from guest memory into a stack
 * array (at most WASI_IOV_MAX entries and WASI_IO_BYTES_MAX bytes per call:
 * a longer list is a short read or write, as POSIX allows), every buffer
 * checked before the first side effect.
 *
 * fdflags: all of them the entry's own (no host description carries them):
 *   APPEND    per descriptor, never the host description's:
 *             fd_fdstat_set_flags changes no host description (stdio's is
 *             shared with the shell and other processes), and a positioned
 *             write (fd_pwrite) writes at its offset, as wasmtime does. How
 *             fd_write appends: the OS layer (wasi_fd_posix.c,
 *             wasi_fd_windows.c).
 *   NONBLOCK  emulated: a call that would wait answers EAGAIN instead.
 *   DSYNC, SYNC  emulated: a data or full sync after each write.
 *   RSYNC     accepted and reported; a read already sees every completed
 *             write.
 *
 * Rights: each call needs its right (wasi_table.c, "Rights"), checked
 * after the descriptor's kind (a seek on a pipe is ESPIPE, on a directory
 * EBADF, whatever its rights).
 *
 * Sockets: no descriptor is a socket to the program, as none is in
 * wasmtime's preview1. The only sockets a program can reach are the host's
 * stdio (a parent's socketpair, a connection, a listener), which it shares
 * with the host: they are its streams, of type UNKNOWN (wasi_host_posix.c),
 * read and written by fd_read and fd_write, and no call may change their
 * state (a shutdown ends the host's socket for every process holding it).
 * So sock_recv, sock_send, sock_shutdown and sock_accept check their
 * arguments (guest ranges, flags), then answer EBADF for an fd that is not
 * open and ENOTSOCK for any other, on every OS.
 */
#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_host.h"
#include "wasi_io.h"

/* ---- iovecs ---- */

/* Reads the guest's iovec list (8 bytes each: buf, len) into iov, clamped
 * to WASI_IOV_MAX entries and WASI_IO_BYTES_MAX bytes. EFAULT if the list
 * or a buffer that will be used lies outside memory. */
static uint32_t load_iovecs(const wtp_wasi_memory *memory, uint64_t list,
                            uint64_t count, wtp__wasi_iov *iov,
                            int *iov_count) {
  if (!wtp__wasi_range_ok(memory, list, count * 8)) return WASI_EFAULT;
  if (count > WASI_IOV_MAX) count = WASI_IOV_MAX;
  uint64_t total = 0;
  int used = 0;
  for (uint64_t i = 0; i < count && total < WASI_IO_BYTES_MAX; i++) {
    uint64_t buf = wtp__wasi_load32(memory, list + 8 * i),
             len = wtp__wasi_load32(memory, list + 8 * i + 4);
    if (!wtp__wasi_range_ok(memory, buf, len)) return WASI_EFAULT;
    if (len > WASI_IO_BYTES_MAX - total) len = WASI_IO_BYTES_MAX - total;
    iov[used].iov_base = memory->base + buf;
    iov[used].iov_len = (size_t)len;
    total += len;
    used++;
  }
  *iov_count = used;
  return WASI_ESUCCESS;
}

/* fd_read / fd_write: the iovec list at args, the byte count stored at
 * result_ptr. */
static uint32_t fd_transfer(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                            uint32_t fd, uint64_t list, uint64_t list_count,
                            uint64_t result_ptr, wtp__wasi_transfer *t) {
  wtp__wasi_iov iov[WASI_IOV_MAX];
  int count;
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  uint32_t err = load_iovecs(memory, list, list_count, iov, &count);
  if (err != WASI_ESUCCESS) return err;
  wtp__wasi_entry *entry;
  err = wtp__wasi_fd_get(wasi, fd, &entry);
  if (err != WASI_ESUCCESS) return err;
  size_t done = 0;
  err = wtp__wasi_entry_need(
      entry, t->write ? WASI_RIGHTS_FD_WRITE : WASI_RIGHTS_FD_READ);
  if (err == WASI_ESUCCESS)
    err = wtp__wasi_io_transfer(wasi, entry, iov, count, t, &done);
  wtp__wasi_fd_put(entry);
  if (err == WASI_ESUCCESS)
    wtp__wasi_store32(memory, result_ptr, (uint32_t)done);
  return err;
}

WTP__WASI_CALL(fd_read) {
  wtp__wasi_transfer t = {0};
  return fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2], args[3],
                     &t);
}

WTP__WASI_CALL(fd_write) {
  wtp__wasi_transfer t = {1};
  return fd_transfer(wasi, memory, (uint32_t)args[0], args[1], args[2], args[3],
                     &t);
}

/* ---- positioned I/O ---- */

static uint32_t fd_positioned(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                              const uint64_t *args, int write) {
  wtp__wasi_iov iov[WASI_IOV_MAX];
  int count;
  uint64_t offset = args[3], result_ptr = args[4];
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  uint32_t err = load_iovecs(memory, args[1], args[2], iov, &count);
  if (err != WASI_ESUCCESS) return err;
  if (offset > INT64_MAX) return WASI_EINVAL;
  wtp__wasi_entry *entry;
  err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  size_t done = 0;
  err = wtp__wasi_entry_need(
      entry, write ? WASI_RIGHTS_FD_WRITE : WASI_RIGHTS_FD_READ);
  if (err == WASI_ESUCCESS) {
    err =
        entry->io_kind != WASI_IO_FILE
            ? WASI_ESPIPE
            : wtp__wasi_io_positioned(entry, iov, count, offset, write, &done);
  }
  wtp__wasi_fd_put(entry);
  if (err == WASI_ESUCCESS)
    wtp__wasi_store32(memory, result_ptr, (uint32_t)done);
  return err;
}

WTP__WASI_CALL(fd_pread) { return fd_positioned(wasi, memory, args, 0); }
WTP__WASI_CALL(fd_pwrite) { return fd_positioned(wasi, memory, args, 1); }

/* ---- seek, tell ---- */

/* fd_seek needs FD_SEEK, except a seek by 0 from the current position,
 * which only tells (FD_TELL), as in wasi-common. */
static uint32_t seek(wtp_wasi *wasi, uint32_t fd, int64_t offset,
                     uint8_t whence, uint64_t *position) {
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, fd, &entry);
  if (err != WASI_ESUCCESS) return err;
  uint64_t needed = whence == WASI_WHENCE_CUR && offset == 0
                        ? WASI_RIGHTS_FD_TELL
                        : WASI_RIGHTS_FD_SEEK;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) {
    /* A directory's position belongs to fd_readdir's cookies: wasmtime
     * answers EBADF, as the wasi-testsuite expects. */
    err = WASI_EBADF;
  } else if (entry->io_kind != WASI_IO_FILE) {
    err = WASI_ESPIPE;
  } else if (!(err = wtp__wasi_entry_need(entry, needed))) {
    err = wtp__wasi_io_seek(entry, offset, whence, position);
  }
  wtp__wasi_fd_put(entry);
  return err;
}

WTP__WASI_CALL(fd_seek) {
  uint64_t position, result_ptr = args[3];
  if (!wtp__wasi_range_ok(memory, result_ptr, 8)) return WASI_EFAULT;
  if (args[2] > WASI_WHENCE_END) return WASI_EINVAL;
  uint32_t err = seek(wasi, (uint32_t)args[0], (int64_t)args[1],
                      (uint8_t)args[2], &position);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, result_ptr, position);
  return err;
}

WTP__WASI_CALL(fd_tell) {
  uint64_t position;
  if (!wtp__wasi_range_ok(memory, args[1], 8)) return WASI_EFAULT;
  uint32_t err = seek(wasi, (uint32_t)args[0], 0, WASI_WHENCE_CUR, &position);
  if (err == WASI_ESUCCESS) wtp__wasi_store64(memory, args[1], position);
  return err;
}

/* ---- close, renumber ---- */

WTP__WASI_CALL(fd_close) {
  (void)memory;
  return wtp__wasi_table_remove(wasi, (uint32_t)args[0]);
}

WTP__WASI_CALL(fd_renumber) {
  (void)memory;
  return wtp__wasi_table_renumber(wasi, (uint32_t)args[0], (uint32_t)args[1]);
}

/* ---- calls that run one host function on the descriptor ---- */

typedef uint32_t (*entry_op)(wtp__wasi_entry *entry, const uint64_t *args);

/* Runs op on the fd's entry if it holds `needed` (the op's own kind checks
 * come first where the op makes them: see op_set_size). */
static uint32_t with_entry(wtp_wasi *wasi, const uint64_t *args, entry_op op,
                           uint64_t needed) {
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_need(entry, needed);
  if (err == WASI_ESUCCESS) err = op(entry, args);
  wtp__wasi_fd_put(entry);
  return err;
}

static uint32_t op_datasync(wtp__wasi_entry *entry, const uint64_t *args) {
  (void)args;
  return wtp__wasi_io_sync(entry, 1);
}

static uint32_t op_sync(wtp__wasi_entry *entry, const uint64_t *args) {
  (void)args;
  return wtp__wasi_io_sync(entry, 0);
}

static uint32_t op_advise(wtp__wasi_entry *entry, const uint64_t *args) {
  if (args[3] > WASI_ADVICE_NOREUSE || args[1] > INT64_MAX ||
      args[2] > INT64_MAX)
    return WASI_EINVAL;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) return WASI_EBADF;
  if (entry->io_kind != WASI_IO_FILE) return WASI_ESPIPE;
  return wtp__wasi_io_advise(entry, args[1], args[2], (uint8_t)args[3]);
}

static uint32_t op_allocate(wtp__wasi_entry *entry, const uint64_t *args) {
  uint64_t offset = args[1], len = args[2];
  if (offset > INT64_MAX || len > INT64_MAX || offset + len > INT64_MAX)
    return WASI_EINVAL;
  if (entry->filetype == WASI_FILETYPE_DIRECTORY) return WASI_EBADF;
  if (entry->io_kind != WASI_IO_FILE) return WASI_ESPIPE;
  return wtp__wasi_io_allocate(entry, offset, len);
}

/* A directory holds no FD_FILESTAT_SET_SIZE, and a descriptor not open for
 * writing cannot truncate: EBADF for both, as wasmtime answers. */
static uint32_t op_set_size(wtp__wasi_entry *entry, const uint64_t *args) {
  if (entry->filetype == WASI_FILETYPE_DIRECTORY ||
      wtp__wasi_entry_need(entry, WASI_RIGHTS_FD_FILESTAT_SET_SIZE))
    return WASI_EBADF; /* an access-mode right: never ENOTCAPABLE */
  if (args[1] > INT64_MAX) return WASI_EINVAL;
  return wtp__wasi_io_set_size(entry, args[1]);
}

/* fstflags as WASI gives them: no unknown bit, never SET and NOW for one
 * time. */
static uint32_t op_set_times(wtp__wasi_entry *entry, const uint64_t *args) {
  uint64_t flags = args[3];
  if (flags & ~(uint64_t)0xf) return WASI_EINVAL;
  if ((flags & WASI_FSTFLAGS_ATIM) && (flags & WASI_FSTFLAGS_ATIM_NOW))
    return WASI_EINVAL;
  if ((flags & WASI_FSTFLAGS_MTIM) && (flags & WASI_FSTFLAGS_MTIM_NOW))
    return WASI_EINVAL;
  return wtp__wasi_io_set_times(entry, args[1], args[2], (uint16_t)flags);
}

static uint32_t op_set_flags(wtp__wasi_entry *entry, const uint64_t *args) {
  uint64_t flags = args[1];
  if (flags & ~(uint64_t)WASI_FDFLAGS_ALL) return WASI_EINVAL;
  /* Every flag lives in the entry; no host description changes (see the
   * top of this file). */
  atomic_store_explicit(&entry->fdflags, (uint16_t)flags, memory_order_relaxed);
  return WASI_ESUCCESS;
}

/* The calls whose whole job is one op on the fd's entry (with_entry). */
#define ENTRY_CALL(name, op, right)                         \
  WTP__WASI_CALL(name) {                                    \
    (void)memory;                                           \
    return with_entry(wasi, args, op, WASI_RIGHTS_##right); \
  }
ENTRY_CALL(fd_datasync, op_datasync, FD_DATASYNC)
ENTRY_CALL(fd_sync, op_sync, FD_SYNC)
ENTRY_CALL(fd_advise, op_advise, FD_ADVISE)
ENTRY_CALL(fd_allocate, op_allocate, FD_ALLOCATE)
ENTRY_CALL(fd_filestat_set_times, op_set_times, FD_FILESTAT_SET_TIMES)
ENTRY_CALL(fd_fdstat_set_flags, op_set_flags, FD_FDSTAT_SET_FLAGS)

/* The directory's EBADF comes before the rights (a directory has none). */
WTP__WASI_CALL(fd_filestat_set_size) {
  (void)memory;
  return with_entry(wasi, args, op_set_size, 0);
}

/* Narrows the fd's rights (wasi_table.c, "Rights"): ENOTCAPABLE if it
 * asks for a right the fd does not hold; EBADF if it is not open. */
WTP__WASI_CALL(fd_fdstat_set_rights) {
  wtp__wasi_entry *entry;
  (void)memory;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_narrow(entry, args[1], args[2]);
  wtp__wasi_fd_put(entry);
  return err;
}

/* ---- calls that write a record ---- */

WTP__WASI_CALL(fd_fdstat_get) {
  /* fdstat: filetype u8 @0, flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16. */
  uint64_t at = args[1];
  if (!wtp__wasi_range_ok(memory, at, 24)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  uint16_t flags = atomic_load_explicit(&entry->fdflags, memory_order_relaxed);
  memset(memory->base + at, 0, 24);
  memory->base[at] = entry->filetype;
  memory->base[at + 2] = (uint8_t)flags;
  memory->base[at + 3] = (uint8_t)(flags >> 8);
  wtp__wasi_store64(
      memory, at + 8,
      atomic_load_explicit(&entry->rights_base, memory_order_relaxed));
  wtp__wasi_store64(memory, at + 16, wtp__wasi_entry_inheriting(entry));
  wtp__wasi_fd_put(entry);
  return WASI_ESUCCESS;
}

WTP__WASI_CALL(fd_filestat_get) {
  uint64_t at = args[1];
  wtp__wasi_filestat st;
  if (!wtp__wasi_range_ok(memory, at, 64)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  err = wtp__wasi_entry_need(entry, WASI_RIGHTS_FD_FILESTAT_GET);
  if (err == WASI_ESUCCESS)
    err = wtp__wasi_host_filestat(entry->host_fd, entry->filetype, &st);
  if (err == WASI_ESUCCESS) {
    st.filetype = entry->filetype; /* what fdstat says (a FIFO is unknown
                                      there too) */
    wtp__wasi_put_filestat(memory->base + at, &st);
  }
  wtp__wasi_fd_put(entry);
  return err;
}

WTP__WASI_CALL(fd_prestat_get) {
  /* prestat: tag u8 @0 (0: dir), name_len u32 @4. */
  uint64_t at = args[1];
  if (!wtp__wasi_range_ok(memory, at, 8)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  if (entry->preopen == NULL) {
    err = WASI_EBADF;
  } else {
    memset(memory->base + at, 0, 8);
    memory->base[at] = WASI_PREOPENTYPE_DIR;
    wtp__wasi_store32(memory, at + 4, (uint32_t)strlen(entry->preopen));
  }
  wtp__wasi_fd_put(entry);
  return err;
}

WTP__WASI_CALL(fd_prestat_dir_name) {
  uint64_t at = args[1], len = args[2];
  if (!wtp__wasi_range_ok(memory, at, len)) return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, (uint32_t)args[0], &entry);
  if (err != WASI_ESUCCESS) return err;
  if (entry->preopen == NULL) {
    err = WASI_EBADF;
  } else {
    size_t name_len = strlen(entry->preopen);
    if (len < name_len) {
      err = WASI_ENAMETOOLONG;
    } else {
      memcpy(memory->base + at, entry->preopen, name_len);
    }
  }
  wtp__wasi_fd_put(entry);
  return err;
}

/* ---- sockets ---- */

/* What every sock_* call answers once its arguments are checked: EBADF for
 * an fd that is not open, ENOTSOCK for any other (see "Sockets" above). */
static uint32_t not_a_socket(wtp_wasi *wasi, uint32_t fd) {
  wtp__wasi_entry *entry;
  uint32_t err = wtp__wasi_fd_get(wasi, fd, &entry);
  if (err != WASI_ESUCCESS) return err;
  wtp__wasi_fd_put(entry);
  return WASI_ENOTSOCK;
}

/* sock_recv / sock_send: the iovec list and the byte count's word in range,
 * then not_a_socket. */
static uint32_t sock_io_answer(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                               uint32_t fd, uint64_t list, uint64_t list_count,
                               uint64_t result_ptr) {
  wtp__wasi_iov iov[WASI_IOV_MAX];
  int count;
  if (!wtp__wasi_range_ok(memory, result_ptr, 4)) return WASI_EFAULT;
  uint32_t err = load_iovecs(memory, list, list_count, iov, &count);
  return err != WASI_ESUCCESS ? err : not_a_socket(wasi, fd);
}

WTP__WASI_CALL(sock_recv) {
  /* fd, ri_data, ri_data_len, ri_flags, ro_datalen_ptr, ro_flags_ptr */
  uint64_t flags = args[3];
  if (!wtp__wasi_range_ok(memory, args[5], 2)) return WASI_EFAULT;
  if (flags & ~(uint64_t)(WASI_RIFLAGS_RECV_PEEK | WASI_RIFLAGS_RECV_WAITALL))
    return WASI_EINVAL;
  return sock_io_answer(wasi, memory, (uint32_t)args[0], args[1], args[2],
                        args[4]);
}

WTP__WASI_CALL(sock_send) {
  /* fd, si_data, si_data_len, si_flags (none defined), so_datalen_ptr */
  if (args[3] != 0) return WASI_EINVAL;
  return sock_io_answer(wasi, memory, (uint32_t)args[0], args[1], args[2],
                        args[4]);
}

WTP__WASI_CALL(sock_shutdown) {
  /* fd, how (sdflags: RD, WR) */
  (void)memory;
  if (args[1] & ~(uint64_t)(WASI_SDFLAGS_RD | WASI_SDFLAGS_WR))
    return WASI_EINVAL;
  return not_a_socket(wasi, (uint32_t)args[0]);
}

WTP__WASI_CALL(sock_accept) {
  /* fd, flags (fdflags: only NONBLOCK), result fd ptr */
  if (!wtp__wasi_range_ok(memory, args[2], 4)) return WASI_EFAULT;
  if (args[1] & ~(uint64_t)WASI_FDFLAGS_NONBLOCK) return WASI_EINVAL;
  return not_a_socket(wasi, (uint32_t)args[0]);
}
