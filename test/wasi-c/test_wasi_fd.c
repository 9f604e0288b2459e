/* test_wasi_fd.c: the fd table across threads, stdio over the host's
 * descriptors, renumber and close, close racing reads, blocking pipes ended
 * by the stop, a slow reader that loses nothing, guest NONBLOCK, stdio that
 * is never a socket to the program, hostile pointers. */
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "wasi_harness.h"

#define MEM 65536
/* Guest layout used below: iovec list at 0, result word at 64, data at 1024. */
#define IOV 0
#define RESULT 64
#define DATA 1024

static uint32_t write_str(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd,
                          const char *s) {
  memcpy(m->base + DATA, s, strlen(s));
  put_iovec(m, IOV, DATA, (uint32_t)strlen(s));
  return CALL(wasi, m, "fd_write", fd, IOV, 1, RESULT);
}

static void read_host_file(const char *path, char *buf, size_t size) {
  memset(buf, 0, size);
  int fd = open(path, O_RDONLY);
  ssize_t n = read(fd, buf, size - 1);
  (void)n;
  close(fd);
}

/* ---- one fd across threads ---- */

typedef struct shared_fd {
  wtp_wasi *wasi;
  char path[256];
  uint32_t fd;
  uint32_t result;
  const char *text;
} shared_fd;

static void *open_on_thread(void *arg) {
  shared_fd *s = arg;
  s->fd = add_file(s->wasi, s->path, O_RDWR | O_CREAT | O_TRUNC);
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

static void run_thread(void *(*fn)(void *), void *arg) {
  pthread_t t;
  pthread_create(&t, NULL, fn, arg);
  pthread_join(t, NULL);
}

static void test_fd_across_threads(void) {
  char dir[64];
  temp_dir(dir, sizeof dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  shared_fd s = {.wasi = wasi};
  snprintf(s.path, sizeof s.path, "%s/shared", dir);
  run_thread(open_on_thread, &s);
  CHECK_EQ(s.fd, 0); /* lowest free: no stdio here */
  s.text = "abc";
  run_thread(write_on_thread, &s);
  CHECK_EQ(s.result, 0);
  s.text = "def";
  run_thread(write_on_thread, &s); /* one offset: appends after abc */
  CHECK_EQ(s.result, 0);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_tell", s.fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 6);
  run_thread(close_on_thread, &s);
  CHECK_EQ(s.result, 0);
  CHECK_EQ(write_str(wasi, &m, s.fd, "x"), WASI_EBADF);
  char buf[64];
  read_host_file(s.path, buf, sizeof buf);
  CHECK(strcmp(buf, "abcdef") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(s.path);
  rmdir(dir);
}

/* A call in flight keeps the host descriptor open across a close. */
static void test_reference_outlives_close(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/f", dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  uint32_t fd = add_file(wasi, path, O_RDWR | O_CREAT);
  wtp__wasi_entry *entry;
  CHECK_EQ(wtp__wasi_fd_get(wasi, fd, &entry), 0);
  int host = wtp__wasi_entry_host_fd(entry);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), 0);
  CHECK(host_fd_open(host)); /* the reference holds it */
  uint32_t other = add_file(wasi, path, O_RDONLY);
  CHECK_EQ(other, fd); /* the number is reused at once */
  wtp__wasi_fd_put(entry);
  CHECK(!host_fd_open(host) ||
        host == wtp__wasi_entry_host_fd(entry)); /* closed by the last put */
  CHECK_EQ(CALL(wasi, &m, "fd_close", other), 0);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
  rmdir(dir);
}

/* Readers on several threads while another closes and reopens the same
 * number on files of other contents: every read returns EBADF or one
 * file's byte, never crashes (ASan) or races (TSan); no descriptor leaks. */
#define RACE_FILES 4
typedef struct race {
  wtp_wasi *wasi;
  atomic_int done;
  atomic_int reads, bad;
} race;

static void *race_reader(void *arg) {
  race *r = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  while (!atomic_load(&r->done)) {
    put_iovec(&m, IOV, DATA, 1);
    m.base[DATA] = 0xff;
    uint32_t err = CALL(r->wasi, &m, "fd_pread", 0, IOV, 1, 0, RESULT);
    if (err == 0) {
      atomic_fetch_add(&r->reads, 1);
      if (wtp__wasi_load32(&m, RESULT) != 1 || m.base[DATA] >= RACE_FILES)
        atomic_fetch_add(&r->bad, 1);
    } else if (err != WASI_EBADF) {
      atomic_fetch_add(&r->bad, 1);
    }
    CALL(r->wasi, &m, "fd_fdstat_get", 0, RESULT);
  }
  free(m.base);
  return NULL;
}

static int count_open_fds(void) {
  int n = 0;
  for (int fd = 0; fd < 1024; fd++) n += host_fd_open(fd);
  return n;
}

static void test_close_races_reads(void) {
  char dir[64], paths[RACE_FILES][128];
  temp_dir(dir, sizeof dir);
  for (int i = 0; i < RACE_FILES; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/f%d", dir, i);
    int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char byte = (char)i;
    CHECK_EQ(write(fd, &byte, 1), 1);
    close(fd);
  }
  int before = count_open_fds();
  race r = {.wasi = make_wasi(-1, -1, -1, NULL)};
  pthread_t readers[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&readers[i], NULL, race_reader, &r);
  wtp_wasi_memory m = guest_memory(MEM);
  for (int round = 0; round < 3000; round++) {
    uint32_t fd = add_file(r.wasi, paths[round % RACE_FILES], O_RDONLY);
    CHECK_EQ(fd, 0);
    if (round % 2) sched_yield();
    CHECK_EQ(CALL(r.wasi, &m, "fd_close", fd), 0);
  }
  atomic_store(&r.done, 1);
  for (int i = 0; i < 3; i++) pthread_join(readers[i], NULL);
  CHECK_EQ(atomic_load(&r.bad), 0);
  CHECK(atomic_load(&r.reads) > 0);
  wtp_wasi_release(r.wasi);
  CHECK_EQ(count_open_fds(), before);
  free(m.base);
  for (int i = 0; i < RACE_FILES; i++) unlink(paths[i]);
  rmdir(dir);
}

/* ---- stdio ---- */

static void test_renumber_onto_stdout(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out", dir);
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(-1, pipe_fds[1], -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(write_str(wasi, &m, 1, "to the pipe\n"), 0);
  uint32_t fd = add_file(wasi, path, O_WRONLY | O_CREAT | O_TRUNC);
  CHECK_EQ(CALL(wasi, &m, "fd_renumber", fd, 1),
           0); /* dup2(fd, 1); close(fd) */
  CHECK_EQ(write_str(wasi, &m, 1, "to the file\n"), 0);
  CHECK_EQ(write_str(wasi, &m, fd, "x"), WASI_EBADF); /* from is gone */
  CHECK_EQ(CALL(wasi, &m, "fd_renumber", 1, 77),
           WASI_EBADF); /* to must be open */
  CHECK(host_fd_open(pipe_fds[1]));
  CHECK_EQ(write(pipe_fds[1], "host\n", 5),
           5); /* the host's stdout still works */
  char buf[64] = {0};
  CHECK_EQ(read(pipe_fds[0], buf, sizeof buf - 1), 17);
  CHECK(strcmp(buf, "to the pipe\nhost\n") == 0);
  read_host_file(path, buf, sizeof buf);
  CHECK(strcmp(buf, "to the file\n") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
  CHECK(host_fd_open(pipe_fds[1])); /* release closes only the WASI's dups */
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  unlink(path);
  rmdir(dir);
}

static void test_close_stdout(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], pipe_fds[1], pipe_fds[1], NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_close", 1), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_close", 0), 0);
  CHECK_EQ(write_str(wasi, &m, 1, "x"), WASI_EBADF);
  CHECK_EQ(write_str(wasi, &m, 2, "still\n"), 0); /* fd 2 is its own entry */
  CHECK(host_fd_open(pipe_fds[0]) && host_fd_open(pipe_fds[1]));
  CHECK_EQ(write(pipe_fds[1], "host\n", 5), 5);
  char buf[64] = {0};
  CHECK_EQ(read(pipe_fds[0], buf, sizeof buf - 1), 11);
  CHECK(strcmp(buf, "still\nhost\n") == 0);
  /* The lowest free number is reused. */
  CHECK_EQ(wtp__wasi_fd_add(wasi, dup(pipe_fds[1]), WASI_FILETYPE_UNKNOWN, 0, 0,
                            0, (uint32_t *)(m.base + RESULT)),
           0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 0);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static void test_stdio_not_made_nonblocking(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], pipe_fds[1], -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(write_str(wasi, &m, 1, "ab"), 0);
  put_iovec(&m, IOV, DATA, 16);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 2);
  CHECK_EQ(fcntl(pipe_fds[0], F_GETFL) & O_NONBLOCK, 0);
  CHECK_EQ(fcntl(pipe_fds[1], F_GETFL) & O_NONBLOCK, 0);
  /* fdstat: a pipe is a stream (no seek or tell), not a regular file. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 1, RESULT), 0);
  CHECK_EQ(m.base[RESULT], WASI_FILETYPE_UNKNOWN);
  uint64_t rights = wtp__wasi_load32(&m, RESULT + 8);
  CHECK(!(rights & WASI_RIGHTS_FD_SEEK) && (rights & WASI_RIGHTS_FD_WRITE) &&
        !(rights & WASI_RIGHTS_FD_READ));
  CHECK_EQ(CALL(wasi, &m, "fd_seek", 0, 0, WASI_WHENCE_CUR, RESULT),
           WASI_ESPIPE);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

/* ---- blocking and the stop ---- */

typedef struct blocked {
  wtp_wasi *wasi;
  uint32_t fd;
  int write;
  size_t bytes;
  atomic_int returned;
  uint32_t result;
  double returned_at;
} blocked;

static void *blocked_call(void *arg) {
  blocked *b = arg;
  wtp_wasi_memory m = guest_memory(b->bytes + DATA);
  put_iovec(&m, IOV, DATA, (uint32_t)b->bytes);
  b->result = CALL(b->wasi, &m, b->write ? "fd_write" : "fd_read", b->fd, IOV,
                   1, RESULT);
  b->returned_at = now_ms();
  atomic_store(&b->returned, 1);
  free(m.base);
  return NULL;
}

static void stop_ends(int write) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  if (write) fcntl(pipe_fds[1], F_SETPIPE_SZ, 4096);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], pipe_fds[1], -1, NULL);
  blocked b = {.wasi = wasi,
               .fd = write ? 1 : 0,
               .write = write,
               .bytes = write ? 1 << 20 : 64};
  pthread_t t;
  pthread_create(&t, NULL, blocked_call, &b);
  sleep_ms(300);
  CHECK_EQ(atomic_load(&b.returned), 0); /* it waits for the peer */
  double stopped_at = now_ms();
  wtp_wasi_stop(wasi);
  pthread_join(t, NULL);
  CHECK_EQ(b.result, WTP_WASI_STOPPED);
  CHECK(b.returned_at - stopped_at < 2000);
  /* After the stop, a call that would wait returns at once. */
  b.returned = 0;
  run_thread(blocked_call, &b);
  CHECK_EQ(b.result, WTP_WASI_STOPPED);
  CHECK(wtp_wasi_stopped(wasi));
  wtp_wasi_stop(wasi); /* idempotent */
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static void test_stop_ends_pipe_read(void) { stop_ends(0); }
static void test_stop_ends_full_pipe_write(void) { stop_ends(1); }

/* Two threads wait to read one pipe; one byte comes: one of them gets it,
 * the other goes on waiting (not stuck in a read the stop cannot end), and
 * the stop ends it. */
static void test_two_readers_one_pipe(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], -1, -1, NULL);
  blocked b[2] = {{.wasi = wasi, .fd = 0, .bytes = 64},
                  {.wasi = wasi, .fd = 0, .bytes = 64}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, blocked_call, &b[i]);
  sleep_ms(200);
  CHECK_EQ(write(pipe_fds[1], "x", 1), 1);
  double deadline = now_ms() + 5000;
  while (atomic_load(&b[0].returned) + atomic_load(&b[1].returned) == 0 &&
         now_ms() < deadline)
    sleep_ms(5);
  sleep_ms(200);
  CHECK_EQ(atomic_load(&b[0].returned) + atomic_load(&b[1].returned), 1);
  double stopped_at = now_ms();
  wtp_wasi_stop(wasi);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK_EQ((b[0].result == 0) + (b[1].result == 0), 1);
  CHECK_EQ(
      (b[0].result == WTP_WASI_STOPPED) + (b[1].result == WTP_WASI_STOPPED), 1);
  CHECK(b[0].returned_at - stopped_at < 2000 &&
        b[1].returned_at - stopped_at < 2000);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

/* A terminal as stdin (a pty's slave): the read waits, gets a line typed
 * on the master, the stop ends a later wait, and the terminal's shared
 * description never becomes non-blocking. */
static void test_terminal_stdin(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    printf("  (no pty here: skipped)\n");
    if (master >= 0) close(master);
    return;
  }
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  CHECK(slave >= 0);
  wtp_wasi *wasi = make_wasi(slave, slave, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 0, RESULT), 0);
  CHECK_EQ(m.base[RESULT], WASI_FILETYPE_CHARACTER_DEVICE);
  uint64_t rights = wtp__wasi_load32(&m, RESULT + 8);
  CHECK(!(rights & (WASI_RIGHTS_FD_SEEK |
                    WASI_RIGHTS_FD_TELL))); /* what isatty() looks for */
  blocked b = {.wasi = wasi, .fd = 0, .bytes = 64};
  pthread_t t;
  pthread_create(&t, NULL, blocked_call, &b);
  sleep_ms(200);
  CHECK_EQ(atomic_load(&b.returned), 0);
  CHECK_EQ(write(master, "typed\n", 6), 6);
  pthread_join(t, NULL);
  CHECK_EQ(b.result, 0);
  b.returned = 0;
  pthread_create(&t, NULL, blocked_call, &b);
  sleep_ms(200);
  CHECK_EQ(atomic_load(&b.returned), 0);
  wtp_wasi_stop(wasi);
  pthread_join(t, NULL);
  CHECK_EQ(b.result, WTP_WASI_STOPPED);
  CHECK_EQ(fcntl(slave, F_GETFL) & O_NONBLOCK, 0);
  free(m.base);
  wtp_wasi_release(wasi);
  close(slave);
  close(master);
}

/* A reader that pauses: every byte arrives, every write reports all. */
#define SLOW_TOTAL (1 << 20)
typedef struct slow_writer {
  wtp_wasi *wasi;
  int failures;
} slow_writer;

static void *slow_write(void *arg) {
  slow_writer *w = arg;
  wtp_wasi_memory m = guest_memory(DATA + 65536);
  for (size_t sent = 0; sent < SLOW_TOTAL; sent += 65536) {
    for (size_t i = 0; i < 65536; i++)
      m.base[DATA + i] = (uint8_t)((sent + i) % 251);
    put_iovec(&m, IOV, DATA, 65536);
    uint32_t err = CALL(w->wasi, &m, "fd_write", 1, IOV, 1, RESULT);
    if (err != 0 || wtp__wasi_load32(&m, RESULT) != 65536) w->failures++;
  }
  free(m.base);
  return NULL;
}

static void test_slow_reader_loses_nothing(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(-1, pipe_fds[1], -1, NULL);
  slow_writer w = {wasi, 0};
  pthread_t t;
  pthread_create(&t, NULL, slow_write, &w);
  sleep_ms(500); /* the pipe fills; the writer waits */
  size_t got = 0;
  int wrong = 0;
  uint8_t buf[16384];
  while (got < SLOW_TOTAL) {
    struct pollfd pfd = {pipe_fds[0], POLLIN, 0};
    if (poll(&pfd, 1, 10000) != 1)
      break; /* the writer gave up: fail, do not hang */
    ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; i++)
      wrong += buf[i] != (uint8_t)((got + (size_t)i) % 251);
    got += (size_t)n;
    if ((got / sizeof buf) % 8 == 0) sleep_ms(10); /* pauses along the way */
  }
  pthread_join(t, NULL);
  CHECK_EQ(got, SLOW_TOTAL);
  CHECK_EQ(wrong, 0);
  CHECK_EQ(w.failures, 0);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static void test_guest_nonblock(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 0, WASI_FDFLAGS_NONBLOCK), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 0, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2], WASI_FDFLAGS_NONBLOCK);
  put_iovec(&m, IOV, DATA, 16);
  double t0 = now_ms();
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), WASI_EAGAIN);
  CHECK(now_ms() - t0 < 1000);
  CHECK_EQ(write(pipe_fds[1], "hi", 2), 2);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 2);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 0, 0x20), WASI_EINVAL);
  CHECK_EQ(fcntl(pipe_fds[0], F_GETFL) & O_NONBLOCK,
           0); /* the host's is untouched */
  close(pipe_fds[1]);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), 0); /* EOF */
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 0);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
}

/* ---- files: the calls on a descriptor ---- */

static void test_file_calls(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/f", dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = add_file(wasi, path, O_RDWR | O_CREAT | O_TRUNC);
  CHECK_EQ(fd, 0);
  /* Two iovecs in one write, then pread/pwrite leave the offset alone. */
  memcpy(m.base + DATA, "hello ", 6);
  memcpy(m.base + DATA + 100, "world", 5);
  put_iovec(&m, IOV, DATA, 6);
  put_iovec(&m, IOV + 8, DATA + 100, 5);
  CHECK_EQ(CALL(wasi, &m, "fd_write", fd, IOV, 2, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 11);
  memcpy(m.base + DATA, "W", 1);
  put_iovec(&m, IOV, DATA, 1);
  CHECK_EQ(CALL(wasi, &m, "fd_pwrite", fd, IOV, 1, 6, RESULT), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_tell", fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 11);
  put_iovec(&m, IOV, DATA, 64);
  CHECK_EQ(CALL(wasi, &m, "fd_pread", fd, IOV, 1, 0, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 11);
  CHECK(memcmp(m.base + DATA, "hello World", 11) == 0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, (uint64_t)-5, WASI_WHENCE_END, RESULT),
           0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 6);
  CHECK_EQ(CALL(wasi, &m, "fd_read", fd, IOV, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 5);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 0, 3, RESULT), WASI_EINVAL);
  CHECK_EQ(
      CALL(wasi, &m, "fd_seek", fd, (uint64_t)-100, WASI_WHENCE_SET, RESULT),
      WASI_EINVAL);
  /* A directory has no offset to move or tell (wasmtime: EBADF). */
  CHECK_EQ(CALL(wasi, &m, "fd_seek", 3, 0, WASI_WHENCE_CUR, RESULT),
           WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_tell", 3, RESULT), WASI_EBADF);
  /* Size, times, stat, allocate, sync, advise. */
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", fd, 3), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 16], WASI_FILETYPE_REGULAR_FILE);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT + 32), 3);
  CHECK_EQ(CALL(wasi, &m, "fd_allocate", fd, 0, 100), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT + 32), 100);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_times", fd, 5000000000u, 7000000000u,
                WASI_FSTFLAGS_ATIM | WASI_FSTFLAGS_MTIM),
           0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT + 48), (uint32_t)7000000000u);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_times", fd, 0, 0,
                WASI_FSTFLAGS_ATIM | WASI_FSTFLAGS_ATIM_NOW),
           WASI_EINVAL);
  CHECK_EQ(CALL(wasi, &m, "fd_sync", fd), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_datasync", fd), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_advise", fd, 0, 10, WASI_ADVICE_SEQUENTIAL), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_advise", fd, 0, 10, 6), WASI_EINVAL);
  CHECK_EQ(
      CALL(wasi, &m, "fd_fdstat_set_rights", fd, WASI_RIGHTS_REGULAR_FILE, 0),
      0); /* what it holds: no change (narrowing: test_wasi_rights) */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", 999, 0, 0), WASI_EBADF);
  /* APPEND: writes go to the end whatever the offset. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", fd,
                WASI_FDFLAGS_APPEND | WASI_FDFLAGS_DSYNC),
           0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 0, WASI_WHENCE_SET, RESULT), 0);
  CHECK_EQ(write_str(wasi, &m, fd, "END"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT + 32), 103);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", fd, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2], WASI_FDFLAGS_APPEND | WASI_FDFLAGS_DSYNC);
  /* The preopen at 3 (no stdio here: 0 is the file) and its name. */
  CHECK_EQ(CALL(wasi, &m, "fd_prestat_get", 3, RESULT), 0);
  CHECK_EQ(m.base[RESULT], 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT + 4), 8);
  CHECK_EQ(CALL(wasi, &m, "fd_prestat_dir_name", 3, DATA, 8), 0);
  CHECK(memcmp(m.base + DATA, "/sandbox", 8) == 0);
  CHECK_EQ(CALL(wasi, &m, "fd_prestat_dir_name", 3, DATA, 7),
           WASI_ENAMETOOLONG);
  CHECK_EQ(CALL(wasi, &m, "fd_prestat_get", fd, RESULT), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_prestat_get", 4, RESULT), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 3, RESULT), 0);
  CHECK_EQ(m.base[RESULT], WASI_FILETYPE_DIRECTORY);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 3, IOV, 1, RESULT), WASI_EISDIR);
  CHECK_EQ(CALL(wasi, &m, "sock_shutdown", fd, WASI_SDFLAGS_WR), WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_close", UINT32_MAX), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_renumber", 3, 3), 0);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
  rmdir(dir);
}

/* ---- stdio is the program's: never a socket ---- */

/* What the program sees of a stdio fd whatever the host's descriptor is: a
 * type that is no socket (fd_fdstat_get and fd_filestat_get), no
 * SOCK_SHUTDOWN right, and ENOTSOCK from every sock_* call, as wasmtime's
 * stdio answer. */
static void check_not_socket(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd) {
  CHECK_EQ(CALL(wasi, m, "fd_fdstat_get", fd, RESULT), 0);
  uint8_t type = m->base[RESULT];
  CHECK(type != WASI_FILETYPE_SOCKET_STREAM &&
        type != WASI_FILETYPE_SOCKET_DGRAM);
  /* rights_base's low word: both socket rights are below bit 32 */
  CHECK(!(wtp__wasi_load32(m, RESULT + 8) &
          (uint32_t)(WASI_RIGHTS_SOCK_SHUTDOWN | WASI_RIGHTS_SOCK_ACCEPT)));
  CHECK_EQ(CALL(wasi, m, "fd_filestat_get", fd, RESULT), 0);
  CHECK_EQ(m->base[RESULT + 16], type);
  for (uint64_t how = 0; how <= (WASI_SDFLAGS_RD | WASI_SDFLAGS_WR); how++)
    CHECK_EQ(CALL(wasi, m, "sock_shutdown", fd, how), WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, m, "sock_shutdown", fd, 4), WASI_EINVAL);
  put_iovec(m, IOV, DATA, 4);
  CHECK_EQ(CALL(wasi, m, "sock_send", fd, IOV, 1, 0, RESULT), WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, m, "sock_recv", fd, IOV, 1, 0, RESULT, RESULT + 4),
           WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, m, "sock_recv", fd, IOV, 1, WASI_RIFLAGS_RECV_PEEK,
                RESULT, RESULT + 4),
           WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, m, "sock_accept", fd, 0, RESULT), WASI_ENOTSOCK);
}

/* Socketpair stdio (what a parent's spawn with stdio "pipe" hands a child
 * on Linux): the program reads and writes it, and nothing it does shuts
 * the host's socket or changes its flags. */
static void test_socket_stdio(void) {
  int pair[2];
  CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  wtp_wasi *wasi = make_wasi(pair[0], pair[0], pair[0], NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (uint32_t fd = 0; fd < 3; fd++) check_not_socket(wasi, &m, fd);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 1, RESULT), 0);
  CHECK_EQ(m.base[RESULT], WASI_FILETYPE_UNKNOWN); /* as wasmtime: no tty */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 1, WASI_FDFLAGS_NONBLOCK), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 1, 0), 0);
  /* Both directions still work, on the program's side and the host's. */
  CHECK_EQ(write_str(wasi, &m, 1, "after"), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 5);
  char buf[8] = {0};
  CHECK_EQ(read(pair[1], buf, sizeof buf), 5);
  CHECK(memcmp(buf, "after", 5) == 0);
  CHECK_EQ(send(pair[1], "pong", 4, MSG_NOSIGNAL), 4);
  put_iovec(&m, IOV, DATA, 8);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 4);
  CHECK(memcmp(m.base + DATA, "pong", 4) == 0);
  CHECK_EQ(CALL(wasi, &m, "sock_shutdown", 99, WASI_SDFLAGS_WR), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "sock_send", 99, IOV, 1, 0, RESULT), WASI_EBADF);
  CHECK_EQ(fcntl(pair[0], F_GETFL) & O_NONBLOCK, 0);
  free(m.base);
  wtp_wasi_release(wasi);
  /* The host's socket is as it was: the peer sees no end of file, and a
   * write from the host's side still reaches it. */
  struct pollfd pfd = {pair[1], POLLIN, 0};
  CHECK_EQ(poll(&pfd, 1, 0), 0);
  CHECK_EQ(write(pair[0], "host", 4), 4);
  CHECK_EQ(read(pair[1], buf, sizeof buf), 4);
  CHECK_EQ(send(pair[1], "back", 4, MSG_NOSIGNAL), 4);
  CHECK_EQ(read(pair[0], buf, sizeof buf), 4);
  close(pair[0]);
  close(pair[1]);
}

/* A listening socket as stdin: sock_accept answers ENOTSOCK and the waiting
 * connection stays the host's to accept. */
static void test_listener_stdin(void) {
  char dir[64];
  struct sockaddr_un addr;
  temp_dir(dir, sizeof dir);
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s/sock", dir);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK_EQ(bind(listener, (struct sockaddr *)&addr, sizeof addr), 0);
  CHECK_EQ(listen(listener, 4), 0);
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK_EQ(connect(client, (struct sockaddr *)&addr, sizeof addr), 0);
  wtp_wasi *wasi = make_wasi(listener, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  check_not_socket(wasi, &m, 0);
  CHECK_EQ(CALL(wasi, &m, "sock_accept", 0, WASI_FDFLAGS_NONBLOCK, RESULT),
           WASI_ENOTSOCK);
  CHECK_EQ(CALL(wasi, &m, "sock_accept", 0, WASI_FDFLAGS_APPEND, RESULT),
           WASI_EINVAL);
  free(m.base);
  wtp_wasi_release(wasi);
  int accepted = accept(listener, NULL, NULL);
  CHECK(accepted >= 0);
  close(accepted);
  close(client);
  close(listener);
  unlink(addr.sun_path);
  rmdir(dir);
}

/* Pipe, regular file, /dev/null and terminal stdio: the same answers. */
static void test_other_stdio_not_sockets(void) {
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/f", dir);
  int file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  int null = open("/dev/null", O_RDWR);
  CHECK(file >= 0 && null >= 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], pipe_fds[1], file, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (uint32_t fd = 0; fd < 3; fd++) check_not_socket(wasi, &m, fd);
  wtp_wasi_release(wasi);
  wasi = make_wasi(null, null, null, NULL);
  check_not_socket(wasi, &m, 0);
  wtp_wasi_release(wasi);
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0) {
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    CHECK(slave >= 0);
    wasi = make_wasi(slave, slave, slave, NULL);
    check_not_socket(wasi, &m, 1);
    wtp_wasi_release(wasi);
    close(slave);
  } else {
    printf("  (no pty here: the terminal skipped)\n");
  }
  if (master >= 0) close(master);
  free(m.base);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  close(file);
  close(null);
  unlink(path);
  rmdir(dir);
}

/* ---- hostile pointers: EFAULT and nothing happened ---- */

static void test_efault_no_side_effect(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/f", dir);
  int pipe_fds[2];
  CHECK_EQ(pipe(pipe_fds), 0);
  wtp_wasi *wasi = make_wasi(pipe_fds[0], pipe_fds[1], -1, dir);
  uint32_t fd = add_file(wasi, path, O_RDWR | O_CREAT | O_TRUNC);
  const uint64_t size = 4096, big = UINT32_MAX;
  wtp_wasi_memory m = guest_memory(size);
  for (uint64_t i = 0; i < size; i++) m.base[i] = (uint8_t)(i * 13);
  /* A valid iovec at 0 (8 bytes at 100), a hostile one at 16 (past the end)
   * and a list that runs off the end at size - 4. */
  put_iovec(&m, 0, 100, 8);
  put_iovec(&m, 8, size - 2, 8);
  put_iovec(&m, 16, big, 1);
  put_iovec(&m, size - 8, 100, 1);
  uint8_t *copy = malloc(size);
  memcpy(copy, m.base, size);
  CHECK_EQ(write(pipe_fds[1], "data", 4), 4);
  struct {
    const char *name;
    uint64_t args[6];
  } calls[] = {
      {"fd_write", {fd, 0, 1, size - 3}},
      {"fd_write", {fd, 0, 2, 64}},
      {"fd_write", {fd, 16, 1, 64}},
      {"fd_write", {fd, size - 8, 2, 64}},
      {"fd_write", {fd, 0, big, 64}},
      {"fd_write", {1, 8, 1, 64}},
      {"fd_read", {fd, 0, 2, 64}},
      {"fd_read", {0, 0, 1, big}},
      {"fd_read", {0, 8, 1, 64}},
      {"fd_pread", {fd, 0, 1, 0, size}},
      {"fd_pwrite", {fd, 16, 1, 0, 64}},
      {"fd_seek", {fd, 5, 0, size - 7}},
      {"fd_tell", {fd, big}},
      {"fd_fdstat_get", {fd, size - 23}},
      {"fd_filestat_get", {fd, size - 63}},
      {"fd_prestat_get", {3, size - 7}},
      {"fd_prestat_dir_name", {3, size - 7, 8}},
      {"sock_recv", {0, 0, 1, 0, 64, size}},
      {"sock_send", {1, 16, 1, 0, 64}},
      {"sock_accept", {0, 0, big}},
      {"poll_oneoff", {0, 1024, big, 64}},
      {"poll_oneoff", {0, 1024, 1, size}},
      {"poll_oneoff", {size - 40, 1024, 1, 64}},
      {"poll_oneoff", {0, size - 16, 1, 64}},
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    uint32_t err = call_import(wasi, &m, calls[i].name, calls[i].args);
    if (err != WASI_EFAULT)
      fprintf(stderr, "  %s #%zu: %u\n", calls[i].name, i, err);
    CHECK_EQ(err, WASI_EFAULT);
    CHECK(memcmp(copy, m.base, size) == 0);
  }
  /* Nothing reached the file, the pipe or the offsets. */
  struct stat st;
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 0);
  char buf[16] = {0};
  CHECK_EQ(read(pipe_fds[0], buf, sizeof buf), 4);
  CHECK(memcmp(buf, "data", 4) == 0);
  CHECK_EQ(CALL(wasi, &m, "poll_oneoff", 0, 1024, 0, 64), WASI_EINVAL);
  free(copy);
  free(m.base);
  wtp_wasi_release(wasi);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  unlink(path);
  rmdir(dir);
}

static void test_create_errors(void) {
  wtp_wasi_preopen preopen = {"/nonexistent/wtp", "/x"};
  wtp_wasi_config config = {NULL, 0, NULL, 0, &preopen, 1, {-1, -1, -1}};
  wtp_wasi *wasi = NULL;
  char error[256];
  CHECK_EQ(wtp_wasi_create(&config, &wasi, error, sizeof error), ENOENT);
  CHECK(strstr(error, "/nonexistent/wtp") != NULL);
  preopen.host_path = "/etc/hostname";
  CHECK_EQ(wtp_wasi_create(&config, &wasi, error, sizeof error), ENOTDIR);
  config.preopen_count = 0;
  config.stdio[1] = 999;
  CHECK_EQ(wtp_wasi_create(&config, &wasi, error, sizeof error), EBADF);
  CHECK(wasi == NULL);
}

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  signal(SIGPIPE, SIG_IGN); /* as Node does */
  RUN(test_fd_across_threads);
  RUN(test_reference_outlives_close);
  RUN(test_close_races_reads);
  RUN(test_renumber_onto_stdout);
  RUN(test_close_stdout);
  RUN(test_stdio_not_made_nonblocking);
  RUN(test_stop_ends_pipe_read);
  RUN(test_stop_ends_full_pipe_write);
  RUN(test_two_readers_one_pipe);
  RUN(test_terminal_stdin);
  RUN(test_slow_reader_loses_nothing);
  RUN(test_guest_nonblock);
  RUN(test_file_calls);
  RUN(test_socket_stdio);
  RUN(test_listener_stdin);
  RUN(test_other_stdio_not_sockets);
  RUN(test_efault_no_side_effect);
  RUN(test_create_errors);
  return harness_summary("test_wasi_fd");
}
