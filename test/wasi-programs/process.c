/* How a program ends while its threads are busy, and one file read across
 * threads (test/browser-program.test.js runs it in a page).
 *
 *   process.wasm exit-from-thread N   a thread ends the program with
 *                                     proc_exit(N) while the main thread
 *                                     blocks reading stdin
 *   process.wasm trap-on-thread       a thread traps while the main thread
 *                                     waits to join it
 *   process.wasm read-across          /data/in.txt opened on one thread, read
 *                                     on a second and on the main thread
 * Prints "ok NAME" / "FAIL NAME: why" lines. */
#include <fcntl.h>
#include <time.h>

#include "common.h"

static int shared_fd = -1;

static void *exit_later(void *arg) {
  struct timespec ts = {0, 100 * 1000000};
  nanosleep(&ts, NULL);
  say("exiting from a thread\n");
  __wasi_proc_exit((__wasi_exitcode_t)(long)arg);
  return NULL;
}

static void *trap_now(void *arg) {
  (void)arg;
  say("trapping on a thread\n");
  __builtin_trap();
  return NULL;
}

static void *open_in(void *arg) {
  (void)arg;
  shared_fd = open("/data/in.txt", O_RDONLY);
  check(shared_fd >= 0, "open-on-thread", "%s", strerror(errno));
  return NULL;
}

static void *read_five(void *arg) {
  char buf[6] = {0};
  ssize_t n = read(shared_fd, buf, 5);
  check(n == 5 && !strcmp(buf, (const char *)arg), "read-on-other-thread",
        "read %zd \"%s\"", n, buf);
  return NULL;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  pthread_t t;
  if (!strcmp(which, "exit-from-thread") && argc > 2) {
    pthread_create(&t, NULL, exit_later, (void *)(long)atoi(argv[2]));
    char buf[16];
    ssize_t n = read(0, buf, sizeof buf);
    say("FAIL the main thread's read returned %zd\n", n);
    return 1;
  }
  if (!strcmp(which, "trap-on-thread")) {
    pthread_create(&t, NULL, trap_now, NULL);
    pthread_join(t, NULL);
    say("FAIL joined a thread that trapped\n");
    return 1;
  }
  if (!strcmp(which, "read-across")) {
    on_thread(open_in, NULL);
    on_thread(read_five, "hello");
    char buf[16] = {0};
    ssize_t n = read(shared_fd, buf, sizeof buf - 1);
    check(n == 6 && !strcmp(buf, " world"), "read-rest-on-main",
          "read %zd \"%s\"", n, buf);
    check(close(shared_fd) == 0, "close", "%s", strerror(errno));
    return finish();
  }
  say("FAIL unknown case \"%s\"\n", which);
  return 2;
}
