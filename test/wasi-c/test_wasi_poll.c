/* test_wasi_poll.c: poll_oneoff with fds and clocks together, real
 * readiness (nbytes, hangup), regular files, bad fds, absolute clocks, and
 * the stop ending a poll. */
#include "wasi_harness.h"

#define MEM 65536
#define SUBS 0      /* subscriptions: 48 bytes each */
#define EVENTS 4096 /* events: 32 bytes each */
#define NEVENTS 8192

static void sub_clock(wtp_wasi_memory *m, int i, uint64_t userdata, uint32_t id,
                      uint64_t timeout, uint16_t flags) {
  uint64_t at = SUBS + 48 * (uint64_t)i;
  memset(m->base + at, 0, 48);
  wtp__wasi_store64(m, at, userdata);
  m->base[at + 8] = WASI_EVENTTYPE_CLOCK;
  wtp__wasi_store32(m, at + 16, id);
  wtp__wasi_store64(m, at + 24, timeout);
  m->base[at + 40] = (uint8_t)flags;
}

static void sub_fd(wtp_wasi_memory *m, int i, uint64_t userdata, uint8_t type,
                   uint32_t fd) {
  uint64_t at = SUBS + 48 * (uint64_t)i;
  memset(m->base + at, 0, 48);
  wtp__wasi_store64(m, at, userdata);
  m->base[at + 8] = type;
  wtp__wasi_store32(m, at + 16, fd);
}

typedef struct event {
  uint64_t userdata, nbytes;
  uint16_t error, flags;
  uint8_t type;
} event;

static event get_event(const wtp_wasi_memory *m, int i) {
  uint64_t at = EVENTS + 32 * (uint64_t)i;
  event e;
  e.userdata = wtp__wasi_load32(m, at) | (uint64_t)wtp__wasi_load32(m, at + 4)
                                             << 32;
  e.error = (uint16_t)(m->base[at + 8] | m->base[at + 9] << 8);
  e.type = m->base[at + 10];
  e.nbytes = wtp__wasi_load32(m, at + 16) |
             (uint64_t)wtp__wasi_load32(m, at + 20) << 32;
  e.flags = (uint16_t)(m->base[at + 24] | m->base[at + 25] << 8);
  return e;
}

static uint32_t poll_n(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t n) {
  return CALL(wasi, m, "poll_oneoff", SUBS, EVENTS, n, NEVENTS);
}

typedef struct late_writer {
  int fd, delay_ms;
} late_writer;

static void *write_late(void *arg) {
  late_writer *w = arg;
  sleep_ms(w->delay_ms);
  ssize_t n = write(w->fd, "12345", 5);
  (void)n;
  return NULL;
}

static void test_pipe_and_clock(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  /* Nothing comes: the clock's event, after ~200 ms, and no fd event. */
  sub_fd(&m, 0, 11, WASI_EVENTTYPE_FD_READ, 0);
  sub_clock(&m, 1, 22, WASI_CLOCK_MONOTONIC, 200000000u, 0);
  double t0 = now_ms();
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  double took = now_ms() - t0;
  CHECK(took >= 195 && took < 200 + 2000);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 1);
  event e = get_event(&m, 0);
  CHECK_EQ(e.userdata, 22);
  CHECK_EQ(e.type, WASI_EVENTTYPE_CLOCK);
  CHECK_EQ(e.error, 0);
  /* Data comes after 50 ms: the fd's event, with nbytes, before the clock. */
  late_writer w = {pipe_fds[1], 50};
  pthread_t t;
  pthread_create(&t, NULL, write_late, &w);
  t0 = now_ms();
  sub_clock(&m, 1, 22, WASI_CLOCK_MONOTONIC, 5000000000u, 0);
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  took = now_ms() - t0;
  pthread_join(t, NULL);
  CHECK(took >= 40 && took < 4000);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 1);
  e = get_event(&m, 0);
  CHECK_EQ(e.userdata, 11);
  CHECK_EQ(e.type, WASI_EVENTTYPE_FD_READ);
  CHECK_EQ(e.error, 0);
  CHECK_EQ(e.nbytes, 5);
  CHECK_EQ(e.flags, 0);
  /* The data is still there for the read that follows (poll took nothing). */
  put_iovec(&m, 40000, 41000, 64);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, 40000, 1, 40100), 0);
  CHECK_EQ(wtp__wasi_load32(&m, 40100), 5);
  /* The writer goes: readable with the hangup flag. */
  close(pipe_fds[1]);
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  e = get_event(&m, 0);
  CHECK_EQ(e.userdata, 11);
  CHECK_EQ(e.flags, WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
}

static void test_write_readiness_and_files(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/f", dir);
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(-1, pipe_fds[1], -1, NULL);
  uint32_t fd = add_file(wasi, path, O_RDWR | O_CREAT | O_TRUNC);
  int writer = open(path, O_WRONLY | O_CLOEXEC);
  CHECK_EQ(write(writer, "0123456789", 10), 10);
  close(writer);
  wtp_wasi_memory m = guest_memory(MEM);
  sub_fd(&m, 0, 1, WASI_EVENTTYPE_FD_WRITE, 1);
  sub_fd(&m, 1, 2, WASI_EVENTTYPE_FD_READ, fd);
  sub_fd(&m, 2, 3, WASI_EVENTTYPE_FD_READ, 999);
  sub_clock(&m, 3, 4, WASI_CLOCK_MONOTONIC, 10000000000u, 0);
  double t0 = now_ms();
  CHECK_EQ(poll_n(wasi, &m, 4), 0);
  CHECK(now_ms() - t0 < 1000);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 3);
  event e = get_event(&m, 0);
  CHECK_EQ(e.userdata, 1);
  CHECK_EQ(e.type, WASI_EVENTTYPE_FD_WRITE);
  CHECK(e.nbytes > 0); /* room in an empty pipe */
  e = get_event(&m, 1);
  CHECK_EQ(e.userdata, 2);
  CHECK_EQ(e.nbytes, 10); /* a file is ready: bytes to its end */
  e = get_event(&m, 2);
  CHECK_EQ(e.userdata, 3);
  CHECK_EQ(e.error, WASI_EBADF);
  /* An absolute clock in the past is due at once (realtime and monotonic). */
  sub_clock(&m, 0, 5, WASI_CLOCK_REALTIME, 1000, WASI_SUBCLOCKFLAGS_ABSTIME);
  sub_clock(&m, 1, 6, WASI_CLOCK_MONOTONIC, 1, WASI_SUBCLOCKFLAGS_ABSTIME);
  t0 = now_ms();
  CHECK_EQ(poll_n(wasi, &m, 2), 0);
  CHECK(now_ms() - t0 < 1000);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 2);
  /* An absolute realtime deadline 150 ms ahead. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t deadline =
      (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 150000000u;
  sub_clock(&m, 0, 7, WASI_CLOCK_REALTIME, deadline,
            WASI_SUBCLOCKFLAGS_ABSTIME);
  t0 = now_ms();
  CHECK_EQ(poll_n(wasi, &m, 1), 0);
  CHECK(now_ms() - t0 >= 140);
  /* A CPU-time clock cannot bound a wait: an EINVAL event. */
  sub_clock(&m, 0, 8, WASI_CLOCK_THREAD_CPUTIME_ID, 1000, 0);
  CHECK_EQ(poll_n(wasi, &m, 1), 0);
  CHECK_EQ(get_event(&m, 0).error, WASI_EINVAL);
  /* An unknown event type. */
  sub_fd(&m, 0, 9, 3, 0);
  CHECK_EQ(poll_n(wasi, &m, 1), WASI_EINVAL);
  /* Many subscriptions (past the stack arrays). */
  for (int i = 0; i < 40; i++)
    sub_fd(&m, i, (uint64_t)i, WASI_EVENTTYPE_FD_WRITE, 1);
  CHECK_EQ(poll_n(wasi, &m, 40), 0);
  CHECK_EQ(wtp__wasi_load32(&m, NEVENTS), 40);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  unlink(path);
  rmdir(dir);
}

typedef struct poller {
  wtp_wasi *wasi;
  uint32_t result;
  double returned_at;
  atomic_int returned;
} poller;

static void *poll_forever(void *arg) {
  poller *p = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  sub_fd(&m, 0, 1, WASI_EVENTTYPE_FD_READ, 0);
  sub_clock(&m, 1, 2, WASI_CLOCK_MONOTONIC, UINT64_MAX, 0);
  p->result = poll_n(p->wasi, &m, 2);
  p->returned_at = now_ms();
  atomic_store(&p->returned, 1);
  free(m.base);
  return NULL;
}

static void test_stop_ends_poll(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], -1, -1, NULL);
  poller p = {.wasi = wasi};
  pthread_t t;
  pthread_create(&t, NULL, poll_forever, &p);
  sleep_ms(300);
  CHECK_EQ(atomic_load(&p.returned), 0);
  double stopped_at = now_ms();
  wtp_wasi_stop(wasi);
  pthread_join(t, NULL);
  CHECK_EQ(p.result, WTP_WASI_STOPPED);
  CHECK(p.returned_at - stopped_at < 2000);
  /* A poll that starts after the stop returns at once. */
  p.returned = 0;
  pthread_create(&t, NULL, poll_forever, &p);
  pthread_join(t, NULL);
  CHECK_EQ(p.result, WTP_WASI_STOPPED);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  RUN(test_pipe_and_clock);
  RUN(test_write_readiness_and_files);
  RUN(test_stop_ends_poll);
  return harness_summary("test_wasi_poll");
}
