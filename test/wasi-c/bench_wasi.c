/* bench_wasi.c: the cost of a call through the import table against the
 * bare system call it makes (`make bench`): fd_write and fd_pread of 4 KiB
 * on a regular file, clock_time_get. Prints ns per call. */
#include "wasi_harness.h"

#define ROUNDS 200000

static double ns_per(double started_ms, int rounds) {
  return (now_ms() - started_ms) * 1e6 / rounds;
}

int main(void) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/bench", dir);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  uint32_t fd = add_file(wasi, path, O_RDWR | O_CREAT | O_TRUNC);
  int raw = open(path, O_RDWR);
  wtp_wasi_memory m = guest_memory(65536);
  put_iovec(&m, 0, 1024, 4096);
  const wtp_wasi_import *fd_write = wtp_wasi_find_import("fd_write");
  const wtp_wasi_import *fd_pread = wtp_wasi_find_import("fd_pread");
  const wtp_wasi_import *clock = wtp_wasi_find_import("clock_time_get");
  for (int pass = 0; pass < 2; pass++) {
    double t = now_ms();
    for (int i = 0; i < ROUNDS; i++) {
      if (i % 256 == 0) CALL(wasi, &m, "fd_seek", fd, 0, WASI_WHENCE_SET, 64);
      fd_write->call(wasi, &m, (const uint64_t[]){fd, 0, 1, 64});
    }
    double wasi_write = ns_per(t, ROUNDS);
    t = now_ms();
    for (int i = 0; i < ROUNDS; i++) {
      if (i % 256 == 0) lseek(raw, 0, SEEK_SET);
      if (write(raw, m.base + 1024, 4096) != 4096) abort();
    }
    double raw_write = ns_per(t, ROUNDS);
    t = now_ms();
    for (int i = 0; i < ROUNDS; i++)
      fd_pread->call(wasi, &m, (const uint64_t[]){fd, 0, 1, 0, 64});
    double wasi_pread = ns_per(t, ROUNDS);
    t = now_ms();
    for (int i = 0; i < ROUNDS; i++) {
      if (pread(raw, m.base + 1024, 4096, 0) != 4096) abort();
    }
    double raw_pread = ns_per(t, ROUNDS);
    t = now_ms();
    for (int i = 0; i < ROUNDS * 10; i++)
      clock->call(wasi, &m, (const uint64_t[]){WASI_CLOCK_MONOTONIC, 0, 64});
    double wasi_clock = ns_per(t, ROUNDS * 10);
    struct timespec ts;
    t = now_ms();
    for (int i = 0; i < ROUNDS * 10; i++) clock_gettime(CLOCK_MONOTONIC, &ts);
    double raw_clock = ns_per(t, ROUNDS * 10);
    if (pass == 1) {
      printf("fd_write 4 KiB      %7.0f ns   write()          %7.0f ns\n",
             wasi_write, raw_write);
      printf("fd_pread 4 KiB      %7.0f ns   pread()          %7.0f ns\n",
             wasi_pread, raw_pread);
      printf("clock_time_get      %7.0f ns   clock_gettime()  %7.0f ns\n",
             wasi_clock, raw_clock);
    }
  }
  close(raw);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
  rmdir(dir);
  return 0;
}
