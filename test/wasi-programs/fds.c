/* One fd table per program: an fd is the same file on every thread, with one
 * offset and one set of flags; close and renumber act for every thread; and
 * stdio is the program's (dup2/freopen onto stdout, close(1); never a
 * socket, whatever the host's is).
 *
 *   fds.wasm CASE     with a preopened directory /data (empty)
 *
 * CASE: share, offsets, renumber, dup2-stdout, freopen-stdout, close-stdout,
 * stdio-not-sockets.
 * Prints "ok NAME" / "FAIL NAME: why" lines and "done"; exits 1 on a
 * failure. The test also reads the files on the host. */
#include <fcntl.h>
#include <sys/socket.h>

#include "common.h"

static int fd_a = -1, fd_b = -1;

static int open_file(const char *path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd < 0) say("FAIL open %s: %s\n", path, strerror(errno));
  return fd;
}

static ssize_t write_text(int fd, const char *text) {
  return write(fd, text, strlen(text));
}

/* share: opened on one thread, written on another, closed on a third. */
static void *share_open(void *arg) {
  (void)arg;
  fd_a = open_file("/data/a.txt", O_WRONLY | O_CREAT | O_TRUNC);
  return NULL;
}
static void *share_write(void *arg) {
  (void)arg;
  /* With one table per thread this open takes the number fd_a has on the
   * opening thread, and the write below lands in decoy.txt. */
  int decoy = open_file("/data/decoy.txt", O_WRONLY | O_CREAT | O_TRUNC);
  ssize_t n = write_text(fd_a, "written by another thread\n");
  check(n == 26, "write-on-second-thread", "write returned %zd (%s)", n,
        n < 0 ? strerror(errno) : "short");
  say("info decoy fd %d, a fd %d\n", decoy, fd_a);
  return NULL;
}
static void *share_close(void *arg) {
  (void)arg;
  int r = close(fd_a);
  check(r == 0, "close-on-third-thread", "close: %s", strerror(errno));
  return NULL;
}
static void case_share(void) {
  on_thread(share_open, NULL);
  on_thread(share_write, NULL);
  on_thread(share_close, NULL);
  ssize_t n = write_text(fd_a, "after close\n");
  check(n < 0 && errno == EBADF, "closed-for-every-thread",
        "write after close returned %zd (%s)", n, strerror(errno));
}

/* offsets: one offset and one set of flags for every thread. */
static void *write_aaaa(void *arg) {
  (void)arg;
  check(write_text(fd_a, "AAAA") == 4, "write-AAAA", "%s", strerror(errno));
  return NULL;
}
static void *write_bbbb(void *arg) {
  (void)arg;
  check(write_text(fd_a, "BBBB") == 4, "write-BBBB", "%s", strerror(errno));
  return NULL;
}
static void *rewind_fd(void *arg) {
  (void)arg;
  off_t at = lseek(fd_a, 0, SEEK_SET);
  check(at == 0, "seek-on-thread", "lseek returned %lld", (long long)at);
  return NULL;
}
static void *read_four(void *arg) {
  char buf[5] = {0};
  ssize_t n = read(fd_a, buf, 4);
  check(n == 4 && strcmp(buf, (const char *)arg) == 0, "read-after-seek",
        "read %zd bytes \"%s\", expected \"%s\"", n, buf, (const char *)arg);
  return NULL;
}
static void *set_append(void *arg) {
  (void)arg;
  check(fcntl(fd_a, F_SETFL, O_APPEND) == 0, "set-append-on-thread", "%s",
        strerror(errno));
  return NULL;
}
static void case_offsets(void) {
  fd_a = open_file("/data/o.txt", O_RDWR | O_CREAT | O_TRUNC);
  on_thread(write_aaaa, NULL);
  on_thread(write_bbbb, NULL);
  off_t at = lseek(fd_a, 0, SEEK_CUR);
  check(at == 8, "offset-shared",
        "offset on the main thread is %lld, expected 8", (long long)at);
  on_thread(rewind_fd, NULL);
  on_thread(read_four, "AAAA");
  read_four("BBBB");
  on_thread(set_append, NULL);
  int flags = fcntl(fd_a, F_GETFL);
  check(flags >= 0 && (flags & O_APPEND), "flags-shared",
        "F_GETFL on the main thread: %#x", flags);
  lseek(fd_a, 0, SEEK_SET);
  check(write_text(fd_a, "Z") == 1, "append-write", "%s", strerror(errno));
  close(fd_a);
}

/* renumber: fd_renumber on one thread moves the file for every thread. */
static void *open_two(void *arg) {
  (void)arg;
  fd_a = open_file("/data/x.txt", O_WRONLY | O_CREAT | O_TRUNC);
  fd_b = open_file("/data/y.txt", O_WRONLY | O_CREAT | O_TRUNC);
  return NULL;
}
static void *renumber_x_onto_y(void *arg) {
  (void)arg;
  __wasi_errno_t e = __wasi_fd_renumber((__wasi_fd_t)fd_a, (__wasi_fd_t)fd_b);
  check(e == 0, "renumber-on-thread", "fd_renumber: errno %d", e);
  return NULL;
}
static void case_renumber(void) {
  on_thread(open_two, NULL);
  on_thread(renumber_x_onto_y, NULL);
  ssize_t n = write_text(fd_b, "to x through y\n");
  check(n == 15, "write-renumbered", "write returned %zd (%s)", n,
        strerror(errno));
  n = write_text(fd_a, "stale\n");
  check(n < 0 && errno == EBADF, "source-closed",
        "write to the old number returned %zd", n);
}

/* dup2-stdout: a file renumbered onto fd 1 on one thread takes every
 * thread's later stdout. wasi-libc has no dup2: fd_renumber is its WASI
 * form (freopen uses it too). */
static void *renumber_onto_stdout(void *arg) {
  (void)arg;
  __wasi_errno_t e = __wasi_fd_renumber((__wasi_fd_t)fd_a, 1);
  check(e == 0, "renumber-onto-1", "fd_renumber: errno %d", e);
  return NULL;
}
static void *write_stdout_thread(void *arg) {
  ssize_t n = write_text(1, (const char *)arg);
  check(n == (ssize_t)strlen(arg), "thread-writes-1",
        "write(1) returned %zd (%s)", n, strerror(errno));
  return NULL;
}
static void case_dup2_stdout(void) {
  report_fd = 2;
  write_text(1, "before\n");
  fd_a = open_file("/data/out.txt", O_WRONLY | O_CREAT | O_TRUNC);
  on_thread(renumber_onto_stdout, NULL);
  on_thread(write_stdout_thread, "from a thread\n");
  write_stdout_thread("from main\n");
}

/* freopen-stdout: freopen of stdout, then printf from threads. */
static void *printf_thread(void *arg) {
  printf("%s", (const char *)arg);
  check(fflush(stdout) == 0, "thread-printf", "fflush: %s", strerror(errno));
  return NULL;
}
static void case_freopen_stdout(void) {
  report_fd = 2;
  printf("before\n");
  fflush(stdout);
  FILE *f = freopen("/data/out.txt", "w", stdout);
  check(f != NULL, "freopen", "%s", strerror(errno));
  on_thread(printf_thread, "printf from a thread\n");
  printf_thread("printf from main\n");
}

/* close-stdout: the program closes its fd 1; the host's stays open. */
static void *write_closed_stdout(void *arg) {
  (void)arg;
  ssize_t n = write_text(1, "lost\n");
  check(n < 0 && errno == EBADF, "thread-sees-closed-1",
        "write(1) returned %zd (%s)", n, strerror(errno));
  return NULL;
}
static void case_close_stdout(void) {
  report_fd = 2;
  write_text(1, "before\n");
  check(close(1) == 0, "close-1", "%s", strerror(errno));
  on_thread(write_closed_stdout, NULL);
}

/* stdio-not-sockets: fds 0-2 are no sockets to the program, whatever the
 * host's are (a parent's spawn with stdio "pipe" hands socketpairs on
 * Linux): no socket type, no SOCK_SHUTDOWN right, and shutdown, send and
 * recv fail with ENOTSOCK. Every line after those calls (each "ok") is a
 * write to the host's stdout; then the program reads stdin, which the test
 * writes to when it sees "tried", and echoes it. */
static void case_stdio_not_sockets(void) {
  int bad = 0;
  char first[160] = "";
  for (int fd = 0; fd < 3; fd++) {
    __wasi_fdstat_t st;
    __wasi_errno_t err = __wasi_fd_fdstat_get(fd, &st);
    if (err == 0 && st.fs_filetype != __WASI_FILETYPE_SOCKET_STREAM &&
        st.fs_filetype != __WASI_FILETYPE_SOCKET_DGRAM &&
        !(st.fs_rights_base & __WASI_RIGHTS_SOCK_SHUTDOWN))
      continue;
    if (!bad++)
      snprintf(first, sizeof first,
               "fd %d: errno %d, filetype %d, rights %#llx", fd, err,
               st.fs_filetype, (unsigned long long)st.fs_rights_base);
  }
  check(!bad, "stdio-type-not-socket", "%s", first);
  static const int hows[] = {SHUT_RD, SHUT_WR, SHUT_RDWR};
  bad = 0;
  for (int fd = 0; fd < 3; fd++) {
    for (int i = 0; i < 3; i++) {
      errno = 0;
      int r = shutdown(fd, hows[i]);
      if (r == -1 && errno == ENOTSOCK) continue;
      if (!bad++)
        snprintf(first, sizeof first, "shutdown(%d, %d): %d (%s)", fd, hows[i],
                 r, strerror(errno));
    }
  }
  check(!bad, "shutdown-enotsock", "%s", first);
  char byte = 'x';
  errno = 0;
  ssize_t n = send(1, &byte, 1, 0);
  check(n == -1 && errno == ENOTSOCK, "send-enotsock", "send(1): %zd (%s)", n,
        strerror(errno));
  errno = 0;
  n = recv(0, &byte, 1, 0);
  check(n == -1 && errno == ENOTSOCK, "recv-enotsock", "recv(0): %zd (%s)", n,
        strerror(errno));
  say("tried\n");
  char text[64];
  n = read(0, text, sizeof text - 1);
  check(n > 0, "stdin-after", "read(0): %zd (%s)", n,
        n < 0 ? strerror(errno) : "end of file");
  if (n > 0) {
    text[n] = 0;
    say("read: %s", text);
  }
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (!strcmp(which, "share"))
    case_share();
  else if (!strcmp(which, "offsets"))
    case_offsets();
  else if (!strcmp(which, "renumber"))
    case_renumber();
  else if (!strcmp(which, "dup2-stdout"))
    case_dup2_stdout();
  else if (!strcmp(which, "freopen-stdout"))
    case_freopen_stdout();
  else if (!strcmp(which, "close-stdout"))
    case_close_stdout();
  else if (!strcmp(which, "stdio-not-sockets"))
    case_stdio_not_sockets();
  else {
    say("FAIL unknown case \"%s\"\n", which);
    return 2;
  }
  return finish();
}
