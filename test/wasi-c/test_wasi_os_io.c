/* test_wasi_os_io.c: what the OS layers of the descriptors must get right,
 * from one source on POSIX and on Windows (wasi_harness_os.h; on Windows
 * built by scripts/wasi-c-windows.js and run by node.exe under Wine). Where
 * the Windows layer (src/wasi/wasi_fd_windows.c) had to work for it:
 *
 *   - fd_pread/fd_pwrite leave the fd's position, even while another thread
 *     reads the same fd sequentially (a positioned ReadFile on a
 *     synchronous handle moves the file pointer: the layer puts it back
 *     under the entry's lock);
 *   - seek from the start, the position and the end; before 0 is EINVAL;
 *   - fd_filestat_get / set_size / allocate / set_times on a file (under
 *     Wine 8 GetFileType sets a file's access time: the stat must not ask
 *     it);
 *   - a directory: a read is EISDIR, a write EBADF;
 *   - a pipe: NONBLOCK with nothing there is EAGAIN; the writer gone is
 *     the end of file (and poll_oneoff's HANGUP); the reader gone is EPIPE;
 *     poll_oneoff says an empty pipe is writable;
 *   - stdio from a read-only host descriptor: no FD_WRITE, fd_write EBADF;
 *   - several threads blocked reading pipes (two on one fd, one on
 *     another) all end with WTP_WASI_STOPPED when a fourth stops the WASI;
 *   - clocks (every id, monotonic never going back), random bytes.
 */
#include "wasi_harness_stream.h"

/* fd_read of up to n bytes into DATA: the errno; *got the count. */
static uint32_t read_n(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd,
                       uint32_t n, uint32_t *got) {
  put_iovec(m, IOV, DATA, n);
  uint32_t err = CALL(wasi, m, "fd_read", fd, IOV, 1, RESULT);
  *got = err == 0 ? wtp__wasi_load32(m, RESULT) : 0;
  return err;
}

static uint64_t fd_position(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd) {
  if (CALL(wasi, m, "fd_tell", fd, RESULT) != 0) return UINT64_MAX;
  return (uint64_t)wtp__wasi_load32(m, RESULT) |
         (uint64_t)wtp__wasi_load32(m, RESULT + 4) << 32;
}

static uint64_t load64(const wtp_wasi_memory *m, uint64_t at) {
  return (uint64_t)wtp__wasi_load32(m, at) |
         (uint64_t)wtp__wasi_load32(m, at + 4) << 32;
}

/* ---- positioned I/O and the position ---- */

static void test_positioned_keeps_position(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "pos");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = os_add_file(wasi, path, OS_RDWR_CREATE, 0);
  CHECK_EQ(write_str(wasi, &m, fd, "0123456789"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 0, WASI_WHENCE_SET, RESULT), 0);
  put_iovec(&m, IOV, DATA, 3);
  CHECK_EQ(CALL(wasi, &m, "fd_pread", fd, IOV, 1, 5, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 3);
  CHECK(memcmp(m.base + DATA, "567", 3) == 0);
  CHECK_EQ(fd_position(wasi, &m, fd), 0);
  memcpy(m.base + DATA, "AB", 2);
  put_iovec(&m, IOV, DATA, 2);
  CHECK_EQ(CALL(wasi, &m, "fd_pwrite", fd, IOV, 1, 2, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 2);
  CHECK_EQ(fd_position(wasi, &m, fd), 0);
  uint32_t got;
  CHECK_EQ(read_n(wasi, &m, fd, 4, &got), 0);
  CHECK_EQ(got, 4);
  CHECK(memcmp(m.base + DATA, "01AB", 4) == 0);
  CHECK_EQ(fd_position(wasi, &m, fd), 4);
  /* A pread past the end reads nothing, successfully. */
  put_iovec(&m, IOV, DATA, 3);
  CHECK_EQ(CALL(wasi, &m, "fd_pread", fd, IOV, 1, 100, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 0);
  CHECK_EQ(fd_position(wasi, &m, fd), 4);
  free(m.base);
  wtp_wasi_release(wasi);
  os_remove(path);
  os_remove(dir);
}

#define PATTERN_SIZE 65536u
#define CHUNK 64u

typedef struct pread_race {
  wtp_wasi *wasi;
  uint32_t fd;
  atomic_int stop;
  int bad; /* a sequential read saw bytes from elsewhere */
} pread_race;

static uint8_t pattern_at(uint32_t i) { return (uint8_t)(i * 7u + i / 251u); }

static void *sequential_reader(void *arg) {
  pread_race *r = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  for (uint32_t at = 0; at < PATTERN_SIZE; at += CHUNK) {
    uint32_t got;
    if (read_n(r->wasi, &m, r->fd, CHUNK, &got) != 0 || got != CHUNK) {
      r->bad = 1;
      break;
    }
    for (uint32_t i = 0; i < CHUNK; i++)
      if (m.base[DATA + i] != pattern_at(at + i)) r->bad = 1;
    if (r->bad) break;
  }
  atomic_store(&r->stop, 1);
  free(m.base);
  return NULL;
}

static void *positioned_reader(void *arg) {
  pread_race *r = arg;
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t offset = 12345;
  while (!atomic_load(&r->stop)) {
    offset = (offset * 1103515245u + 12345u) % (PATTERN_SIZE - 16);
    put_iovec(&m, IOV, DATA, 16);
    CALL(r->wasi, &m, "fd_pread", r->fd, IOV, 1, offset, RESULT);
  }
  free(m.base);
  return NULL;
}

/* Another thread's preads never move the position a sequential reader
 * goes on from. */
static void test_pread_races_sequential_reads(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "race");
  uint8_t *data = malloc(PATTERN_SIZE);
  if (data == NULL) abort();
  for (uint32_t i = 0; i < PATTERN_SIZE; i++) data[i] = pattern_at(i);
  int host = os_open(path, OS_WRITE_TRUNC);
  CHECK_EQ(os_write(host, data, PATTERN_SIZE), PATTERN_SIZE);
  os_close(host);
  free(data);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  pread_race r = {.wasi = wasi};
  atomic_init(&r.stop, 0);
  r.fd = os_add_file(wasi, path, OS_READ, 0);
  os_thread a = os_thread_start(positioned_reader, &r);
  os_thread b = os_thread_start(positioned_reader, &r);
  os_run_thread(sequential_reader, &r);
  CHECK(os_thread_join_within(a, 10000));
  CHECK(os_thread_join_within(b, 10000));
  CHECK_EQ(r.bad, 0);
  wtp_wasi_release(wasi);
  os_remove(path);
  os_remove(dir);
}

static void test_seek(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "seek");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = os_add_file(wasi, path, OS_RDWR_CREATE, 0);
  CHECK_EQ(write_str(wasi, &m, fd, "0123456789"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 5, WASI_WHENCE_SET, RESULT), 0);
  CHECK_EQ(load64(&m, RESULT), 5);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, (uint64_t)-2, WASI_WHENCE_CUR, RESULT),
           0);
  CHECK_EQ(load64(&m, RESULT), 3);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, (uint64_t)-1, WASI_WHENCE_END, RESULT),
           0);
  CHECK_EQ(load64(&m, RESULT), 9);
  CHECK_EQ(
      CALL(wasi, &m, "fd_seek", fd, (uint64_t)-20, WASI_WHENCE_CUR, RESULT),
      WASI_EINVAL);
  CHECK_EQ(fd_position(wasi, &m, fd), 9); /* a refused seek moves nothing */
  free(m.base);
  wtp_wasi_release(wasi);
  os_remove(path);
  os_remove(dir);
}

/* The same on a file the path layer opened (path_open). */
static void test_seek_path_opened(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "f");
  os_write_file(path, "0123456789");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  memcpy(m.base + 3000, "f", 1);
  CHECK_EQ(CALL(wasi, &m, "path_open", 3, 0, 3000, 1, 0,
                WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL,
                0, 0, RESULT),
           0);
  uint32_t fd = wtp__wasi_load32(&m, RESULT);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 8, WASI_WHENCE_SET, RESULT), 0);
  CHECK_EQ(
      CALL(wasi, &m, "fd_seek", fd, (uint64_t)-100, WASI_WHENCE_CUR, RESULT),
      WASI_EINVAL);
  CHECK_EQ(fd_position(wasi, &m, fd), 8);
  free(m.base);
  wtp_wasi_release(wasi);
  os_remove(path);
  os_remove(dir);
}

/* ---- filestat, size, times ---- */

static void test_filestat_size_times(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "stat");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = os_add_file(wasi, path, OS_RDWR_CREATE, 0);
  CHECK_EQ(write_str(wasi, &m, fd, "hello"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(m.base[2048 + 16], WASI_FILETYPE_REGULAR_FILE);
  CHECK(load64(&m, 2048 + 24) >= 1);  /* nlink */
  CHECK_EQ(load64(&m, 2048 + 32), 5); /* size */
  CHECK(load64(&m, 2048 + 48) > 0);   /* mtim */
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", fd, 100), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 32), 100);
  CHECK_EQ(fd_position(wasi, &m, fd), 5); /* the position stays */
  CHECK_EQ(CALL(wasi, &m, "fd_allocate", fd, 50, 150), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 32), 200);
  CHECK_EQ(CALL(wasi, &m, "fd_allocate", fd, 0, 10), 0); /* never shrinks */
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 32), 200);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", fd, 3), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 32), 3);
  /* A time in whole microseconds: every host keeps it exactly (Windows
   * in 100 ns units). */
  uint64_t mtim = UINT64_C(1600000000123456000);
  CHECK_EQ(
      CALL(wasi, &m, "fd_filestat_set_times", fd, 0, mtim, WASI_FSTFLAGS_MTIM),
      0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 48), mtim);
  /* Both times, then mtim now: atim stays. */
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_times", fd, UINT64_C(5000000000),
                UINT64_C(7000000000), WASI_FSTFLAGS_ATIM | WASI_FSTFLAGS_MTIM),
           0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 40), UINT64_C(5000000000));
  CHECK_EQ(load64(&m, 2048 + 48), UINT64_C(7000000000));
  CHECK_EQ(
      CALL(wasi, &m, "fd_filestat_set_times", fd, 0, 0, WASI_FSTFLAGS_MTIM_NOW),
      0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, 2048), 0);
  CHECK_EQ(load64(&m, 2048 + 40), UINT64_C(5000000000));
  CHECK(load64(&m, 2048 + 48) > UINT64_C(1577836800000000000));
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_times", fd, 0, 0,
                WASI_FSTFLAGS_MTIM | WASI_FSTFLAGS_MTIM_NOW),
           WASI_EINVAL);
  free(m.base);
  wtp_wasi_release(wasi);
  os_remove(path);
  os_remove(dir);
}

/* A directory (the preopen): a read is EISDIR, a write EBADF. */
static void test_directory_read_write(void) {
  char dir[400];
  os_temp_dir(dir, sizeof dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t got;
  CHECK_EQ(read_n(wasi, &m, 3, 16, &got), WASI_EISDIR);
  CHECK_EQ(write_str(wasi, &m, 3, "x"), WASI_EBADF);
  free(m.base);
  wtp_wasi_release(wasi);
  os_remove(dir);
}

/* ---- stdio from a read-only descriptor ---- */

static void test_read_only_stdio(void) {
  char dir[400], path[512];
  os_temp_dir(dir, sizeof dir);
  os_join(path, sizeof path, dir, "ro");
  os_write_file(path, "input");
  int host = os_open(path, OS_READ);
  wtp_wasi *wasi = make_wasi(host, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 0, 2048), 0);
  CHECK_EQ(m.base[2048], WASI_FILETYPE_REGULAR_FILE);
  uint64_t rights = load64(&m, 2048 + 8);
  CHECK(rights & WASI_RIGHTS_FD_READ);
  CHECK(!(rights & WASI_RIGHTS_FD_WRITE));
  CHECK_EQ(write_str(wasi, &m, 0, "x"), WASI_EBADF);
  uint32_t got;
  CHECK_EQ(read_n(wasi, &m, 0, 16, &got), 0);
  CHECK_EQ(got, 5);
  free(m.base);
  wtp_wasi_release(wasi);
  os_close(host);
  os_remove(path);
  os_remove(dir);
}

/* ---- pipes ---- */

static void test_pipe_nonblock_eof_epipe(void) {
  int in[2], out[2];
  os_pipe(in);
  os_pipe(out);
  wtp_wasi *wasi = make_wasi(in[0], out[1], -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t got = 99;
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 0, WASI_FDFLAGS_NONBLOCK), 0);
  CHECK_EQ(read_n(wasi, &m, 0, 16, &got), WASI_EAGAIN);
  CHECK_EQ(os_write(in[1], "ab", 2), 2);
  CHECK_EQ(read_n(wasi, &m, 0, 16, &got), 0);
  CHECK_EQ(got, 2);
  CHECK(memcmp(m.base + DATA, "ab", 2) == 0);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 0, 0), 0);
  /* The writer gone: the end of file, and poll_oneoff's HANGUP. */
  os_close(in[1]);
  CHECK_EQ(read_n(wasi, &m, 0, 16, &got), 0);
  CHECK_EQ(got, 0);
  memset(m.base + 4096, 0, 96);
  m.base[4096 + 8] = WASI_EVENTTYPE_FD_READ;
  wtp__wasi_store32(&m, 4096 + 16, 0);
  CHECK_EQ(CALL(wasi, &m, "poll_oneoff", 4096, 8192, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 1);
  CHECK_EQ(m.base[8192 + 8], 0); /* no error */
  CHECK(m.base[8192 + 24] & WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP);
  /* An empty pipe is writable. */
  m.base[4096 + 8] = WASI_EVENTTYPE_FD_WRITE;
  wtp__wasi_store32(&m, 4096 + 16, 1);
  CHECK_EQ(CALL(wasi, &m, "poll_oneoff", 4096, 8192, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 1);
  CHECK_EQ(m.base[8192 + 10], WASI_EVENTTYPE_FD_WRITE);
  CHECK_EQ(m.base[8192 + 8], 0);
  /* The reader gone: EPIPE. */
  os_close(out[0]);
  CHECK_EQ(write_str(wasi, &m, 1, "lost"), WASI_EPIPE);
  free(m.base);
  wtp_wasi_release(wasi);
  os_close(in[0]);
  os_close(out[1]);
}

/* ---- many blocked readers and one stop ---- */

static uint32_t read_16(blocking_call *c, wtp_wasi_memory *m) {
  uint32_t got;
  return read_n(c->wasi, m, c->fd, 16, &got);
}

static void test_stop_ends_many_blocked_reads(void) {
  int a[2], b[2];
  os_pipe(a);
  os_pipe(b);
  wtp_wasi *wasi = make_wasi(a[0], -1, -1, NULL);
  /* The second pipe's read end as a descriptor the program opened. */
  uint32_t fd_b = UINT32_MAX;
  CHECK_EQ(wtp__wasi_fd_add(wasi, b[0], WASI_FILETYPE_UNKNOWN, 0,
                            WASI_RIGHTS_STREAM, 0, &fd_b),
           0);
  blocking_call readers[3] = {{.wasi = wasi, .call = read_16, .fd = 0},
                              {.wasi = wasi, .call = read_16, .fd = 0},
                              {.wasi = wasi, .call = read_16, .fd = fd_b}};
  os_thread threads[3];
  for (int i = 0; i < 3; i++) {
    atomic_init(&readers[i].started, 0);
    atomic_init(&readers[i].returned, 0);
    threads[i] = os_thread_start(run_blocking_call, &readers[i]);
  }
  for (int i = 0; i < 3; i++)
    while (!atomic_load(&readers[i].started)) os_sleep_ms(1);
  os_sleep_ms(200); /* in their reads (or waiting for the fd's turn) */
  for (int i = 0; i < 3; i++) CHECK_EQ(atomic_load(&readers[i].returned), 0);
  double stopped_at = os_now_ms();
  wtp_wasi_stop(wasi);
  for (int i = 0; i < 3; i++)
    ended_by_stop(threads[i], &readers[i], stopped_at);
  wtp_wasi_release(wasi);
  os_close(a[0]);
  os_close(a[1]);
  os_close(b[1]);
}

/* ---- clocks and random ---- */

static void test_clocks_random(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (uint32_t id = 0; id < 4; id++) {
    CHECK_EQ(CALL(wasi, &m, "clock_res_get", id, RESULT), 0);
    CHECK(load64(&m, RESULT) > 0);
    CHECK_EQ(CALL(wasi, &m, "clock_time_get", id, 0, RESULT), 0);
  }
  CHECK_EQ(CALL(wasi, &m, "clock_time_get", 4, 0, RESULT), WASI_EINVAL);
  CHECK_EQ(CALL(wasi, &m, "clock_time_get", WASI_CLOCK_REALTIME, 0, RESULT), 0);
  /* After 2020 and before 2100. */
  CHECK(load64(&m, RESULT) > UINT64_C(1577836800000000000));
  CHECK(load64(&m, RESULT) < UINT64_C(4102444800000000000));
  uint64_t last = 0;
  for (int i = 0; i < 10000; i++) {
    CHECK_EQ(CALL(wasi, &m, "clock_time_get", WASI_CLOCK_MONOTONIC, 0, RESULT),
             0);
    uint64_t now = load64(&m, RESULT);
    if (now < last) CHECK(now >= last); /* one failure, not 10000 checks */
    last = now;
  }
  CHECK_EQ(CALL(wasi, &m, "random_get", DATA, 64), 0);
  CHECK_EQ(CALL(wasi, &m, "random_get", DATA + 64, 64), 0);
  CHECK(memcmp(m.base + DATA, m.base + DATA + 64, 64) != 0);
  CHECK_EQ(CALL(wasi, &m, "sched_yield", 0), 0);
  free(m.base);
  wtp_wasi_release(wasi);
}

WTP_TEST_MAIN {
#ifndef _WIN32
  signal(SIGPIPE, SIG_IGN);
#endif
  RUN(test_positioned_keeps_position);
  RUN(test_pread_races_sequential_reads);
  RUN(test_seek);
  RUN(test_seek_path_opened);
  RUN(test_filestat_size_times);
  RUN(test_directory_read_write);
  RUN(test_read_only_stdio);
  RUN(test_pipe_nonblock_eof_epipe);
  RUN(test_stop_ends_many_blocked_reads);
  RUN(test_clocks_random);
  return harness_summary("test_wasi_os_io");
}
