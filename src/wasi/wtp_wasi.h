/* wtp_wasi.h: one WASI preview1 host per program, shared by all of its threads.
 *
 * The room: src/wasi/ owns the program's WASI state (the fd table, the
 * preopens' sandbox, args and environment, the stop) and every
 * wasi_snapshot_preview1 call except proc_exit (the runner's: it ends the
 * program) and thread-spawn (the pool's). It may include the C library and
 * the OS; never Node-API, never the pool core. The binding
 * (src/node/binding_wasi.c) is the only caller from Node.
 *
 * Guest memory. Every call is given the calling thread's view of the guest's
 * linear memory (wtp_wasi_memory) and reads and writes guest data only inside
 * [base, base + size). Every pointer and length a call receives comes from
 * the guest and is hostile: a call checks every guest range it will touch
 * (iovec arrays and what they point at, paths, result words) BEFORE its first
 * side effect, and answers WTP_WASI_EFAULT if any is out of bounds. So
 * EFAULT means "nothing happened": the embedder may refresh its view of a
 * memory that grew (shared memory: same base, larger size; non-shared: the
 * buffer may have moved) and call again. A call never keeps base across
 * calls.
 *
 * Threads. Any number of threads call into one wtp_wasi at once; the locking
 * is documented in wasi_table.c where the table is declared.
 *
 * Blocking and stopping. A call that waits for a peer (a read of a pipe,
 * FIFO, terminal or socket with nothing to read, a write to a full pipe,
 * poll_oneoff) waits for as long as the peer takes, and returns
 * WTP_WASI_STOPPED as soon as wtp_wasi_stop has been called, from any thread.
 * A call that enters after the stop also returns WTP_WASI_STOPPED instead of
 * waiting. WTP_WASI_STOPPED is not a WASI errno: the embedder must not return
 * to the guest with it (the runner parks the thread until it is terminated).
 */
#ifndef WTP_WASI_H
#define WTP_WASI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wtp_wasi wtp_wasi;

/* The calling thread's view of the guest's linear memory, valid for one call. */
typedef struct wtp_wasi_memory {
  uint8_t *base;
  uint64_t size;
} wtp_wasi_memory;

typedef struct wtp_wasi_preopen {
  const char *host_path;  /* a directory on the host; opened at create */
  const char *guest_path; /* the name the program sees (fd_prestat_dir_name) */
} wtp_wasi_preopen;

typedef struct wtp_wasi_config {
  /* Copied at create. NUL-terminated; the embedder refuses arguments and
   * environment entries that contain a NUL before it gets here. */
  const char *const *args;
  uint32_t args_count;
  const char *const *env; /* "NAME=value" each */
  uint32_t env_count;
  const wtp_wasi_preopen *preopens; /* fds 3, 4, ... in this order */
  uint32_t preopen_count;
  /* Host descriptors that become the program's fds 0, 1 and 2. Each is
   * duplicated at create (the caller keeps and closes its own), so that the
   * program closing or renumbering its stdio never closes the host's. -1
   * leaves that fd closed in the program. */
  int stdio[3];
} wtp_wasi_config;

/* WASI errno values the embedder needs by name (the rest: wasi_errno.h). */
#define WTP_WASI_ESUCCESS 0
#define WTP_WASI_EBADF 8
#define WTP_WASI_EFAULT 21
#define WTP_WASI_EINVAL 28
#define WTP_WASI_ENOSYS 52
/* Not a WASI errno (above 16 bits): the program is stopping. */
#define WTP_WASI_STOPPED 0x10000u

/* Makes a program's WASI. Returns 0 and sets *out (one reference, owned by
 * the caller), or returns a host errno and writes a message naming what
 * failed (a preopen that is not a directory, ...) into error. */
int wtp_wasi_create(const wtp_wasi_config *config, wtp_wasi **out, char *error,
                    size_t error_size);

/* References: every thread that calls into the WASI holds one. The last
 * release closes every descriptor of the table and frees the WASI. */
void wtp_wasi_retain(wtp_wasi *wasi);
void wtp_wasi_release(wtp_wasi *wasi);

/* The program has ended: every call blocked now, and every blocking call
 * made later, returns WTP_WASI_STOPPED. Idempotent; any thread; async-signal
 * safety not promised. */
void wtp_wasi_stop(wtp_wasi *wasi);
int wtp_wasi_stopped(const wtp_wasi *wasi);

/* The calls, as one table the binding builds its imports from.
 *
 * args: the call's parameters in order, as the guest passed them: an i32 is
 * zero-extended (a guest pointer or length is unsigned), an i64 as is.
 * Returns a WASI errno (0 .. 76) or WTP_WASI_STOPPED. */
typedef uint32_t (*wtp_wasi_call_fn)(wtp_wasi *wasi,
                                     const wtp_wasi_memory *memory,
                                     const uint64_t *args);

typedef struct wtp_wasi_import {
  const char *name;   /* the wasi_snapshot_preview1 import name */
  const char *params; /* one letter per parameter: 'i' i32, 'I' i64 */
  wtp_wasi_call_fn call;
} wtp_wasi_import;

/* Every preview1 function but proc_exit; terminated by { NULL, NULL, NULL }. */
extern const wtp_wasi_import wtp_wasi_imports[];

/* The entry of that table by name, or NULL. */
const wtp_wasi_import *wtp_wasi_find_import(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* WTP_WASI_H */
