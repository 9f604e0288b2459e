/* test_wasi_os_fd.c: the fd table, stdio, blocking and the stop, from one
 * source on POSIX and on Windows (wasi_harness_os.h; on Windows built by
 * scripts/wasi-c-windows.js and run by node.exe under Wine):
 *
 *   - one fd across threads: opened on one, written on another, closed on a
 *     third, with one offset;
 *   - stdio is the program's own: closing fd 1 or renumbering a file onto it
 *     leaves the host's descriptor open and working; the release closes only
 *     the WASI's copies;
 *   - APPEND per descriptor;
 *   - a pipe read with nothing to read, and a write to a full pipe, wait for
 *     the peer and end with WTP_WASI_STOPPED when another thread stops the
 *     WASI; a stop racing the call's start (no sleep) never leaves it
 *     blocked; calls after the stop return at once;
 *   - poll_oneoff: a clock alone, a pipe and a clock (the clock's event when
 *     nothing comes, the fd's with nbytes when data is there), and the stop
 *     ending a poll that would wait for ever. */
#include "wasi_harness_stream.h"

/* ---- one fd across threads ---- */

typedef struct shared_fd {
  wtp_wasi *wasi;
  char path[512];
  uint32_t fd;
  uint32_t result;
  const char *text;
} shared_fd;

static void *open_on_thread(void *arg) {
  shared_fd *s = arg;
  s->fd = os_add_file(s->wasi, s->path, OS_RDWR_CREATE, 0);
  return NULL;
}

static void *write_on_thread(void *arg) {
  shared_fd *s = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  s->result = write_str(s->wasi, &m, s->fd, s->text);
  free(m.base);
  return NULL;
}

static void *close_on_thread(void *arg) {
  shared_fd *s = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  s->result = CALL(s->wasi, &m, "fd_close", s->fd);
  free(m.base);
  return NULL;
}

static void test_fd_across_threads(void) {
  char dir[400];
  os_temp_dir(dir, sizeof dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  shared_fd s = {.wasi = wasi};
  os_join(s.path, sizeof s.path, dir, "shared");
  os_run_thread(open_on_thread, &s);
  CHECK_EQ(s.fd, 0); /* the lowest free number: no stdio here */
  s.text = "abc";
  os_run_thread(write_on_thread, &s);
  CHECK_EQ(s.result, 0);
  s.text = "def";
  os_run_thread(write_on_thread, &s); /* one offset: after abc */
  CHECK_EQ(s.result, 0);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_tell", s.fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 6);
  os_run_thread(close_on_thread, &s);
  CHECK_EQ(s.result, 0);
  CHECK_EQ(write_str(wasi, &m, s.fd, "x"), WASI_EBADF);
  free(m.base);
  wtp_wasi_release(wasi);
  char buf[64];
  CHECK_EQ(os_read_file(s.path, buf, sizeof buf), 6);
  CHECK(strcmp(buf, "abcdef") == 0);
  os_remove(s.path);
  os_remove(dir);
}

/* ---- stdio ---- */

static void test_close_stdout_keeps_host(void) {
  int p[2];
  os_pipe(p);
  wtp_wasi *wasi = make_wasi(p[0], p[1], p[1], NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_close", 1), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_close", 0), 0);
  CHECK_EQ(write_str(wasi, &m, 1, "x"), WASI_EBADF);
  CHECK_EQ(write_str(wasi, &m, 2, "still\n"), 0); /* fd 2 is its own copy */
  CHECK(os_is_open(p[0]) && os_is_open(p[1]));
  CHECK_EQ(os_write(p[1], "host\n", 5), 5); /* the host's end still works */
  char buf[64] = {0};
  CHECK_EQ(os_read(p[0], buf, sizeof buf - 1), 11);
  CHECK(strcmp(buf, "still\nhost\n") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
  CHECK(os_is_open(p[0]) && os_is_open(p[1])); /* only the WASI's copies */
  os_close(p[0]);
  os_close(p[1]);
}

static void test_renumber_onto_stdout(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "out");
  int p[2];
  os_pipe(p);
  wtp_wasi *wasi = make_wasi(-1, p[1], -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(write_str(wasi, &m, 1, "to the pipe\n"), 0);
  uint32_t fd = os_add_file(wasi, path, OS_WRITE_TRUNC, 0);
  CHECK_EQ(CALL(wasi, &m, "fd_renumber", fd, 1), 0); /* dup2(fd, 1); close */
  CHECK_EQ(write_str(wasi, &m, 1, "to the file\n"), 0);
  CHECK_EQ(write_str(wasi, &m, fd, "x"), WASI_EBADF); /* from is gone */
  CHECK_EQ(CALL(wasi, &m, "fd_renumber", 1, 77), WASI_EBADF);
  CHECK(os_is_open(p[1]));
  CHECK_EQ(os_write(p[1], "host\n", 5), 5);
  char buf[64] = {0};
  CHECK_EQ(os_read(p[0], buf, sizeof buf - 1), 17);
  CHECK(strcmp(buf, "to the pipe\nhost\n") == 0);
  free(m.base);
  wtp_wasi_release(wasi); /* closes the file: it can be read and removed */
  CHECK_EQ(os_read_file(path, buf, sizeof buf), 12);
  CHECK(strcmp(buf, "to the file\n") == 0);
  CHECK(os_is_open(p[1]));
  os_close(p[0]);
  os_close(p[1]);
  os_remove(path);
  os_remove(dir);
}

/* APPEND is the descriptor's: a seek does not move where its writes land;
 * another descriptor of the same file without it writes at its offset. */
static void test_append(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "log");
  os_write_file(path, "0123");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t app = os_add_file(wasi, path, OS_RDWR_CREATE, WASI_FDFLAGS_APPEND);
  uint32_t plain = os_add_file(wasi, path, OS_RDWR_CREATE, 0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", app, 0, WASI_WHENCE_SET, RESULT), 0);
  CHECK_EQ(write_str(wasi, &m, app, "ab"), 0);
  CHECK_EQ(write_str(wasi, &m, plain, "X"), 0); /* at offset 0 */
  CHECK_EQ(write_str(wasi, &m, app, "cd"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", app, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2] & WASI_FDFLAGS_APPEND, WASI_FDFLAGS_APPEND);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", plain, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2] & WASI_FDFLAGS_APPEND, 0);
  free(m.base);
  wtp_wasi_release(wasi);
  char buf[64];
  CHECK_EQ(os_read_file(path, buf, sizeof buf), 8);
  CHECK(strcmp(buf, "X123abcd") == 0);
  os_remove(path);
  os_remove(dir);
}

/* ---- blocking and the stop ---- */

/* fd_read or fd_write of c->bytes at DATA. */
static uint32_t read_or_write(blocking_call *c, wtp_wasi_memory *m) {
  put_iovec(m, IOV, DATA, (uint32_t)c->bytes);
  return CALL(c->wasi, m, c->write ? "fd_write" : "fd_read", c->fd, IOV, 1,
              RESULT);
}

/* write: 1 MiB into a pipe nobody reads (far above any pipe's capacity). */
static void stop_ends(int write) {
  int p[2];
  os_pipe(p);
  wtp_wasi *wasi = make_wasi(p[0], p[1], -1, NULL);
  blocking_call b = {.wasi = wasi,
                     .call = read_or_write,
                     .fd = write ? 1 : 0,
                     .write = write,
                     .bytes = write ? 1 << 20 : 64};
  os_thread t = os_thread_start(run_blocking_call, &b);
  os_sleep_ms(300);
  CHECK_EQ(atomic_load(&b.returned), 0); /* it waits for the peer */
  double stopped_at = os_now_ms();
  wtp_wasi_stop(wasi);
  if (!ended_by_stop(t, &b, stopped_at)) return;
  /* After the stop, a call that would wait returns at once. */
  atomic_store(&b.returned, 0);
  os_run_thread(run_blocking_call, &b);
  CHECK_EQ(b.result, WTP_WASI_STOPPED);
  CHECK(wtp_wasi_stopped(wasi));
  wtp_wasi_stop(wasi); /* idempotent */
  wtp_wasi_release(wasi);
  os_close(p[0]);
  os_close(p[1]);
}

static void test_stop_ends_pipe_read(void) { stop_ends(0); }
static void test_stop_ends_full_pipe_write(void) { stop_ends(1); }

/* The stop lands while the reader is starting (no sleep between): whichever
 * comes first, the read ends with WTP_WASI_STOPPED (a stop that comes before
 * the thread is inside its blocking call must not be lost). */
static void test_stop_races_read_start(void) {
  int hung = 0, wrong = 0;
  for (int i = 0; i < 40 && !hung; i++) {
    int p[2];
    os_pipe(p);
    wtp_wasi *wasi = make_wasi(p[0], -1, -1, NULL);
    blocking_call b = {.wasi = wasi, .call = read_or_write, .bytes = 16};
    os_thread t = os_thread_start(run_blocking_call, &b);
    if (i % 2) os_sleep_ms(i % 4 == 1 ? 0 : 1);
    wtp_wasi_stop(wasi);
    if (!os_thread_join_within(t, 10000)) {
      hung = 1;
      break;
    }
    wrong += b.result != WTP_WASI_STOPPED;
    wtp_wasi_release(wasi);
    os_close(p[0]);
    os_close(p[1]);
  }
  CHECK_EQ(hung, 0);
  CHECK_EQ(wrong, 0);
}

/* ---- poll_oneoff ---- */

#define SUBS 0      /* subscriptions: 48 bytes each */
#define EVENTS 4096 /* events: 32 bytes each */
#define NEVENTS 8192

static void sub_clock(wtp_wasi_memory *m, int i, uint64_t userdata,
                      uint64_t timeout) {
  uint64_t at = SUBS + 48 * (uint64_t)i;
  memset(m->base + at, 0, 48);
  wtp__wasi_store64(m, at, userdata);
  m->base[at + 8] = WASI_EVENTTYPE_CLOCK;
  wtp__wasi_store32(m, at + 16, WASI_CLOCK_MONOTONIC);
  wtp__wasi_store64(m, at + 24, timeout);
}

static void sub_fd(wtp_wasi_memory *m, int i, uint64_t userdata, uint8_t type,
                   uint32_t fd) {
  uint64_t at = SUBS + 48 * (uint64_t)i;
  memset(m->base + at, 0, 48);
  wtp__wasi_store64(m, at, userdata);
  m->base[at + 8] = type;
  wtp__wasi_store32(m, at + 16, fd);
}

static uint64_t event_userdata(const wtp_wasi_memory *m, int i) {
  uint64_t at = EVENTS + 32 * (uint64_t)i;
  return wtp__wasi_load32(m, at) | (uint64_t)wtp__wasi_load32(m, at + 4) << 32;
}
static uint16_t event_error(const wtp_wasi_memory *m, int i) {
  uint64_t at = EVENTS + 32 * (uint64_t)i;
  return (uint16_t)(m->base[at + 8] | m->base[at + 9] << 8);
}
static uint64_t event_nbytes(const wtp_wasi_memory *m, int i) {
  uint64_t at = EVENTS + 32 * (uint64_t)i + 16;
  return wtp__wasi_load32(m, at) | (uint64_t)wtp__wasi_load32(m, at + 4) << 32;
}

static uint32_t poll_n(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t n) {
  return CALL(wasi, m, "poll_oneoff", SUBS, EVENTS, n, NEVENTS);
}

static void test_poll_clock(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  sub_clock(&m, 0, 7, 100000000u); /* 100 ms */
  double t0 = os_now_ms();
  CHECK_EQ(poll_n(wasi, &m, 1), 0);
  double took = os_now_ms() - t0;
  CHECK(took >= 95 && took < 100 + STOP_BOUND_MS);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 1);
  CHECK_EQ(event_userdata(&m, 0), 7);
  CHECK_EQ(event_error(&m, 0), 0);
  free(m.base);
  wtp_wasi_release(wasi);
}

static void test_poll_pipe_and_clock(void) {
  int p[2];
  os_pipe(p);
  wtp_wasi *wasi = make_wasi(p[0], -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  /* Nothing comes: the clock's event after ~200 ms, no fd event. */
  sub_fd(&m, 0, 11, WASI_EVENTTYPE_FD_READ, 0);
  sub_clock(&m, 1, 22, 200000000u);
  double t0 = os_now_ms();
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  double took = os_now_ms() - t0;
  CHECK(took >= 195 && took < 200 + STOP_BOUND_MS);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 1);
  CHECK_EQ(event_userdata(&m, 0), 22);
  /* Five bytes are there: the fd's event at once, with nbytes. */
  CHECK_EQ(os_write(p[1], "12345", 5), 5);
  sub_clock(&m, 1, 22, 10000000000u); /* 10 s: must not be waited for */
  t0 = os_now_ms();
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  CHECK(os_now_ms() - t0 < STOP_BOUND_MS);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 1);
  CHECK_EQ(event_userdata(&m, 0), 11);
  CHECK_EQ(event_error(&m, 0), 0);
  CHECK_EQ(event_nbytes(&m, 0), 5);
  free(m.base);
  wtp_wasi_release(wasi);
  os_close(p[0]);
  os_close(p[1]);
}

/* A poll of fd 0 and a clock that never comes. */
static uint32_t poll_forever(blocking_call *c, wtp_wasi_memory *m) {
  sub_fd(m, 0, 1, WASI_EVENTTYPE_FD_READ, 0);
  sub_clock(m, 1, 2, UINT64_MAX);
  return poll_n(c->wasi, m, 2);
}

static void test_stop_ends_poll(void) {
  int p[2];
  os_pipe(p);
  wtp_wasi *wasi = make_wasi(p[0], -1, -1, NULL);
  blocking_call pl = {.wasi = wasi, .call = poll_forever};
  os_thread t = os_thread_start(run_blocking_call, &pl);
  os_sleep_ms(300);
  CHECK_EQ(atomic_load(&pl.returned), 0);
  double stopped_at = os_now_ms();
  wtp_wasi_stop(wasi);
  if (!ended_by_stop(t, &pl, stopped_at)) return;
  /* A poll that starts after the stop returns at once. */
  atomic_store(&pl.returned, 0);
  os_run_thread(run_blocking_call, &pl);
  CHECK_EQ(pl.result, WTP_WASI_STOPPED);
  wtp_wasi_release(wasi);
  os_close(p[0]);
  os_close(p[1]);
}

WTP_TEST_MAIN {
#ifndef _WIN32
  signal(SIGPIPE, SIG_IGN);
#endif
  RUN(test_fd_across_threads);
  RUN(test_close_stdout_keeps_host);
  RUN(test_renumber_onto_stdout);
  RUN(test_append);
  RUN(test_stop_ends_pipe_read);
  RUN(test_stop_ends_full_pipe_write);
  RUN(test_stop_races_read_start);
  RUN(test_poll_clock);
  RUN(test_poll_pipe_and_clock);
  RUN(test_stop_ends_poll);
  return harness_summary("test_wasi_os_fd");
}
