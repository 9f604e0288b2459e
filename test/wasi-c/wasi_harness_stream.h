/* wasi_harness_stream.h: what test_wasi_os_fd.c and test_wasi_os_io.c share
 * on top of wasi_harness_os.h: their guest memory's layout, a write of a
 * string, and a WASI call made on a thread of its own for the tests of the
 * stop (the call, then its errno and when it returned). */
#ifndef WTP_WASI_HARNESS_STREAM_H
#define WTP_WASI_HARNESS_STREAM_H

#include "wasi_harness_os.h"

#define MEM 65536
/* Guest layout: iovec list at 0, result word at 64, data at 1024. */
#define IOV 0
#define RESULT 64
#define DATA 1024
/* Upper bound of "the stop ended it" (the stop itself is at once; this is
 * the loaded 2-core machine's and Wine's thread wake-up). */
#define STOP_BOUND_MS 2000

static uint32_t write_str(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd,
                          const char *s) {
  memcpy(m->base + DATA, s, strlen(s));
  put_iovec(m, IOV, DATA, (uint32_t)strlen(s));
  return CALL(wasi, m, "fd_write", fd, IOV, 1, RESULT);
}

/* call(c, m) makes the WASI call on a guest memory of its own (DATA + bytes,
 * at least MEM); fd, write and bytes are the call's to read. */
typedef struct blocking_call {
  wtp_wasi *wasi;
  uint32_t (*call)(struct blocking_call *c, wtp_wasi_memory *m);
  uint32_t fd;
  int write;
  size_t bytes;
  atomic_int started, returned;
  uint32_t result; /* read after the join */
  double returned_at;
} blocking_call;

static void *run_blocking_call(void *arg) {
  blocking_call *c = arg;
  wtp_wasi_memory m =
      guest_memory(DATA + c->bytes > MEM ? DATA + c->bytes : MEM);
  atomic_store(&c->started, 1);
  c->result = c->call(c, &m);
  c->returned_at = os_now_ms();
  atomic_store(&c->returned, 1);
  free(m.base);
  return NULL;
}

/* Joins the call's thread after a stop made at stopped_at: it must end,
 * with WTP_WASI_STOPPED, within STOP_BOUND_MS. Returns whether it ended (a
 * thread that did not keeps its WASI: the caller must not release it). */
static int ended_by_stop(os_thread t, blocking_call *c, double stopped_at) {
  int ended = os_thread_join_within(t, 10000);
  CHECK(ended);
  if (!ended) return 0;
  CHECK_EQ(c->result, WTP_WASI_STOPPED);
  CHECK(c->returned_at - stopped_at < STOP_BOUND_MS);
  return 1;
}

#endif /* WTP_WASI_HARNESS_STREAM_H */
