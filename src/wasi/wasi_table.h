/* wasi_table.h: the program's WASI object and its fd table entries, for the
 * files that implement the calls on descriptors (wasi_table.c, wasi_fd.c,
 * wasi_poll.c, wasi_misc.c and their OS layers, wasi_host.h). The path layer
 * uses the accessors of wasi_internal.h instead. The locking is documented
 * in wasi_table.c.
 *
 * Host descriptors: an int on every OS. On Windows it holds a HANDLE as
 * HandleToLong gives it (64-bit Windows handles are 32-bit values by
 * design; LongToHandle turns it back); -1 means none. */
#ifndef WTP_WASI_TABLE_H
#define WTP_WASI_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../os/wtp_mutex.h"
#include "wasi_internal.h"

/* How a descriptor's reads and writes reach the OS (the OS layers of
 * wasi_fd.c and wasi_poll.c). WASI_IO_FILE on every OS; the others are one
 * OS's own. */
enum wasi_io_kind {
  /* Regular file, directory, block device: never waits; read/write as is.
   * The OS-neutral files test only this kind (ESPIPE for any other). */
  WASI_IO_FILE = 0,
  /* POSIX (wasi_fd_posix.c, wasi_poll_posix.c): */
  /* A pipe, FIFO, terminal or socket with a description of our own marked
   * O_NONBLOCK (io_fd): EAGAIN, then poll() with the stop's wake-up fd. */
  WASI_IO_NONBLOCKING = 1,
  /* A socket shared with the host process (stdio; a stream of type UNKNOWN
   * to the program): recv/send with MSG_DONTWAIT. */
  WASI_IO_SOCKET = 2,
  /* A pipe, FIFO or terminal shared with other processes whose description
   * we could neither reopen nor mark non-blocking (not Linux, or the reopen
   * failed): poll() first, then one blocking read, or a write of at most
   * PIPE_BUF bytes; the entry's lock serialises the program's threads. The
   * residual case: another process takes the data between the poll and the
   * read (see wasi_poll.c). */
  WASI_IO_SHARED_BLOCKING = 3,
  /* Windows (wasi_fd_windows.c, wasi_poll_windows.c): */
  /* An anonymous or named pipe: PeekNamedPipe, then a read of what is
   * there; a write waits for room (see wasi_fd_windows.c). */
  WASI_IO_WIN_PIPE = 4,
  /* A console input or screen buffer. */
  WASI_IO_WIN_CONSOLE = 5,
  /* A character device that never waits (NUL): ReadFile/WriteFile as is,
   * but no seek. */
  WASI_IO_WIN_CHAR = 6,
};

struct wtp__wasi_entry {
  /* References: the slot that holds the entry (one), plus one per call in
   * flight. Taken only by wtp__wasi_fd_get's compare-and-swap from a
   * non-zero count; the put that takes it to zero closes the descriptors and
   * recycles the entry (wasi_table.c, "The table"). */
  atomic_uint refs;
  /* Immutable while the entry is referenced (written before it is
   * published in a slot, read after). */
  int host_fd; /* the program's descriptor; owned */
  int io_fd; /* reads and writes go here: host_fd, or a private reopen (owned) */
  uint8_t filetype; /* WASI filetype */
  uint8_t io_kind;  /* enum wasi_io_kind */
  /* The rights (wasi_table.c, "Rights"): set before the entry is published,
   * then only ever narrowed (fd_fdstat_set_rights: a compare-and-swap loop
   * that never sets a bit, so concurrent narrowings compose). Relaxed: each
   * word is read on its own and publishes no other data. */
  _Atomic uint64_t rights_base, rights_inheriting;
  char *preopen; /* the guest name of a preopened directory, or NULL */
  /* The guest's fdflags, all of them the entry's own (no host description
   * carries them: APPEND, NONBLOCK, DSYNC, RSYNC and SYNC are emulated,
   * wasi_fd.c). Any thread may change them (fd_fdstat_set_flags): relaxed
   * loads and stores of a single word, which publishes no other data. */
  atomic_ushort fdflags;
  /* Serialises fd_readdir's state (the path layer), the reads and writes
   * of a WASI_IO_SHARED_BLOCKING descriptor, and the seek-then-write of an
   * APPEND write where RWF_APPEND is missing (wasi_fd.c). Never held across
   * a wait the stop cannot end. */
  wtp__mutex lock;
  void *readdir_state;
  void (*free_readdir_state)(void *);
  struct wtp_wasi *wasi;       /* the owner (for recycling) */
  wtp__wasi_entry *next_free;  /* the table's free list (under table_lock) */
  wtp__wasi_entry *next_entry; /* every entry ever made (under table_lock) */
};

#define WASI_FD_CHUNK 64u
#define WASI_FD_CHUNKS 1024u
#define WASI_FD_MAX (WASI_FD_CHUNK * WASI_FD_CHUNKS)

typedef _Atomic(wtp__wasi_entry *) wasi_slot;

struct wtp_wasi {
  atomic_uint refs;
  /* The stop: set once (0 -> 1, seq_cst) by wtp_wasi_stop, which then
   * signals the OS's wake-up object for good (wtp__wasi_host_stop_signal);
   * a waiter waits on that object with its descriptor and checks stopped
   * before every wait (wasi_poll_posix.c, wasi_poll_windows.c). */
  atomic_int stopped;
#ifdef _WIN32
  /* A manual-reset event (a HANDLE), set by the stop and never reset. */
  void *stop_event;
  /* The calls blocked (or about to block) in a pipe or console read or
   * write, which the stop cancels (wasi_host_windows.c, "The stop"): a
   * list of records on their threads' stacks, under blocking_lock. */
  struct wtp__wasi_blocking *blocking;
  wtp__mutex blocking_lock;
  int canceller_running; /* under blocking_lock */
#else
  int wake_fd;       /* eventfd (Linux) or a pipe's read end, never read */
  int wake_write_fd; /* what the stop writes: wake_fd itself for an eventfd */
#endif
  /* The table (wasi_table.c, "The table"). */
  wtp__mutex table_lock;
  _Atomic(wasi_slot *) chunks[WASI_FD_CHUNKS];
  wtp__wasi_entry *free_entries; /* under table_lock */
  wtp__wasi_entry *all_entries;  /* under table_lock */
  /* Immutable after create: args and environment, each a blob of
   * NUL-terminated strings and the offset of each in the blob. */
  char *args_blob, *env_blob;
  uint32_t *args_offsets, *env_offsets;
  uint32_t args_count, env_count;
  uint32_t args_size, env_size;
};

/* What a new entry holds (wasi_table.c fills the slot from it; the OS
 * layer, wasi_host.h, fills it for stdio and the descriptors the path layer
 * opens). */
typedef struct wtp__wasi_entry_init {
  int host_fd, io_fd;
  uint8_t filetype, io_kind;
  uint16_t fdflags;
  uint64_t rights_base, rights_inheriting;
  char *preopen;
} wtp__wasi_entry_init;

/* wasi_table.c: fd_close's and fd_renumber's table changes (EBADF if an fd
 * is not open). Renumber replaces `to` and removes `from` in one critical
 * section of table_lock; `to`'s old entry loses the slot's reference. */
uint32_t wtp__wasi_table_remove(wtp_wasi *wasi, uint32_t fd);
uint32_t wtp__wasi_table_renumber(wtp_wasi *wasi, uint32_t from, uint32_t to);

/* wasi_table.c: fd_fdstat_set_rights (ENOTCAPABLE if it would widen). */
uint32_t wtp__wasi_entry_narrow(wtp__wasi_entry *entry, uint64_t base,
                                uint64_t inheriting);

/* wtp__wasi_wait_fd (wasi_poll.c) is declared in wasi_internal.h: after a
 * wake-up for a peer that hung up or failed, the caller retries its call
 * and gets the outcome. */

#endif /* WTP_WASI_TABLE_H */
