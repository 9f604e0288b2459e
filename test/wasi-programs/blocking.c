/* Blocking I/O that waits for as long as the peer takes and is stopped when
 * the program ends on another thread.
 *
 *   blocking.wasm lines N        N numbered lines of 100 bytes on stdout
 *   blocking.wasm fifo-read P    a thread blocks reading the FIFO P (its
 *                                writer never writes); proc_exit(7) on main
 *   blocking.wasm fifo-write P   a thread fills the FIFO P (its reader never
 *                                reads) and blocks; proc_exit(9) on main
 *   blocking.wasm stdout-exit    a thread writes lines to stdout until it
 *                                blocks (nobody reads); proc_exit(5) on main
 *   blocking.wasm poll-stdin     poll_oneoff on stdin and a 1 s clock; says
 *                                which came, then reads stdin
 *   blocking.wasm quiet          never touches stdin; exits 0 */
#include <fcntl.h>
#include <time.h>

#include "common.h"

static volatile int blocked_soon;

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

static int case_lines(int n) {
  char line[101];
  for (int i = 0; i < n; i++) {
    /* 100 bytes: the number, padding, a newline. */
    snprintf(line, sizeof line, "line %06d %087d\n", i, 0);
    ssize_t w = write(1, line, 100);
    if (w != 100) {
      report_fd = 2;
      say("FAIL write of line %d returned %zd (%s)\n", i, w, strerror(errno));
      return 1;
    }
  }
  return 0;
}

static void *fifo_reader(void *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) say("FAIL open %s: %s\n", (const char *)path, strerror(errno));
  say("reader opened\n");
  blocked_soon = 1;
  char buf[16];
  ssize_t n = read(fd, buf, sizeof buf);
  say("FAIL the read returned %zd\n", n);
  return NULL;
}

static void *fifo_writer(void *path) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) say("FAIL open %s: %s\n", (const char *)path, strerror(errno));
  say("writer opened\n");
  static char chunk[65536];
  memset(chunk, 'x', sizeof chunk);
  blocked_soon = 1;
  for (long total = 0;;) {
    ssize_t n = write(fd, chunk, sizeof chunk);
    if (n < 0) {
      say("FAIL the write failed: %s\n", strerror(errno));
      return NULL;
    }
    total += n;
    if (total > (64 << 20)) {
      say("FAIL the pipe never filled\n");
      return NULL;
    }
  }
}

static void *stdout_writer(void *arg) {
  (void)arg;
  char line[101];
  blocked_soon = 1;
  for (int i = 0;; i++) {
    snprintf(line, sizeof line, "line %06d %087d\n", i, 0);
    if (write(1, line, 100) != 100) {
      report_fd = 2;
      say("FAIL write of line %d: %s\n", i, strerror(errno));
      return NULL;
    }
  }
}

/* A thread blocks in a read or a write; the main thread ends the program
 * once the thread has been at it for settle_ms. */
static int case_blocked_thread(void *(*fn)(void *), const char *path, int code,
                               long settle_ms) {
  pthread_t t;
  pthread_create(&t, NULL, fn, (void *)path);
  /* At most 5 s: a thread stuck before its read or write (in the open) must
   * not keep the program from its end; the missing line tells. */
  for (int waited = 0; !blocked_soon && waited < 5000; waited += 10)
    sleep_ms(10);
  sleep_ms(settle_ms);
  say("exiting\n");
  __wasi_proc_exit(code);
}

static int case_poll_stdin(void) {
  __wasi_subscription_t subs[2] = {0};
  subs[0].userdata = 100;
  subs[0].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[0].u.u.fd_read.file_descriptor = 0;
  subs[1].userdata = 200;
  subs[1].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[1].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[1].u.u.clock.timeout = 1000000000ull; /* 1 s, relative */
  __wasi_event_t events[2];
  __wasi_size_t n = 0;
  long long t0 = now_ms();
  __wasi_errno_t e = __wasi_poll_oneoff(subs, events, 2, &n);
  long long waited = now_ms() - t0;
  if (e != 0) {
    say("FAIL poll_oneoff: errno %d\n", e);
    return 1;
  }
  for (__wasi_size_t i = 0; i < n; i++) {
    say("event %s errno %d after %lld ms\n",
        events[i].userdata == 100   ? "stdin"
        : events[i].userdata == 200 ? "clock"
                                    : "?",
        events[i].error, waited);
  }
  say("reading\n");
  char buf[64] = {0};
  ssize_t r = read(0, buf, sizeof buf - 1);
  say("read %zd: %s", r, buf);
  return 0;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (!strcmp(which, "lines") && argc > 2) return case_lines(atoi(argv[2]));
  if (!strcmp(which, "fifo-read") && argc > 2)
    return case_blocked_thread(fifo_reader, argv[2], 7, 300);
  if (!strcmp(which, "fifo-write") && argc > 2)
    return case_blocked_thread(fifo_writer, argv[2], 9, 300);
  if (!strcmp(which, "stdout-exit")) {
    report_fd = 2;
    /* A second: the socket pair of the test fills (hundreds of KiB). */
    return case_blocked_thread(stdout_writer, NULL, 5, 1000);
  }
  if (!strcmp(which, "poll-stdin")) return case_poll_stdin();
  if (!strcmp(which, "quiet")) return 0;
  say("FAIL unknown case \"%s\"\n", which);
  return 2;
}
