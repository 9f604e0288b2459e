/* swap_exchange.c: the host-side race of test_wasi_os_path's host swap
 * (scripts/wasi-c-windows.js builds it with the machine's cc and runs it on
 * the Linux side while the test runs under Wine). Exchanges each pair of
 * entries with renameat2(RENAME_EXCHANGE), pair after pair, as fast as it
 * can, until SIGTERM or SECONDS have passed; then prints how many
 * exchanges it made. Linux only.
 *
 *   swap_exchange SECONDS A1 B1 [A2 B2 ...]
 *
 * Exit 0, or 1 if no exchange could be made (a broken fixture). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc % 2 != 0) {
    fprintf(stderr, "usage: swap_exchange SECONDS A1 B1 [A2 B2 ...]\n");
    return 2;
  }
  double until = now() + atof(argv[1]);
  signal(SIGTERM, on_term);
  unsigned long made = 0, failed = 0;
  while (!stop && now() < until) {
    for (int i = 2; i + 1 < argc; i += 2) {
      if (syscall(SYS_renameat2, AT_FDCWD, argv[i], AT_FDCWD, argv[i + 1],
                  RENAME_EXCHANGE) == 0)
        made++;
      else
        failed++;
    }
  }
  printf("%lu exchanges, %lu failed\n", made, failed);
  return made ? 0 : 1;
}
