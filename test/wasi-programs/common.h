/* What the WASI behaviour programs share: run a function on a new thread
 * and join it, report a step as "ok NAME" or "FAIL NAME: why" on stdout
 * (unbuffered, so that a line is out before anything later can end the
 * program), threads that stay alive for the whole case, and the number of the first preopened directory. */
#ifndef WASI_PROGRAMS_COMMON_H
#define WASI_PROGRAMS_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

static int failures;
/* Where say() writes: 1, or 2 in the cases that take stdout away. */
static int report_fd = 1;

/* One line on report_fd with one write, whatever stdout's buffering. */
static void say(const char *format, ...) {
  char line[512];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  if (n > (int)sizeof line - 1) n = sizeof line - 1;
  (void)write(report_fd, line, (size_t)n);
}

__attribute__((unused)) static void check(int ok, const char *name,
                                          const char *format, ...) {
  if (ok) {
    say("ok %s\n", name);
    return;
  }
  char why[384];
  va_list ap;
  va_start(ap, format);
  vsnprintf(why, sizeof why, format, ap);
  va_end(ap);
  say("FAIL %s: %s\n", name, why);
  failures++;
}

/* on_thread(fn, arg): runs fn(arg) on a new thread and returns when fn has
 * returned; the thread then stays alive (held) until finish(). So every step
 * of a case runs on a thread of its own, and no two steps can share a
 * worker (a pool reuses an idle worker for the next thread). */
#define MAX_HELD 32
struct held_job {
  void *(*fn)(void *);
  void *arg;
};
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static int hold_released, held_done, held_count;
static pthread_t held[MAX_HELD];
static struct held_job held_jobs[MAX_HELD];

static void *held_main(void *p) {
  struct held_job *job = p;
  job->fn(job->arg);
  pthread_mutex_lock(&hold_lock);
  held_done++;
  pthread_cond_broadcast(&hold_cond);
  while (!hold_released) pthread_cond_wait(&hold_cond, &hold_lock);
  pthread_mutex_unlock(&hold_lock);
  return NULL;
}

__attribute__((unused)) static void on_thread(void *(*fn)(void *), void *arg) {
  if (held_count == MAX_HELD) {
    say("FAIL too many threads\n");
    exit(70);
  }
  held_jobs[held_count] = (struct held_job){fn, arg};
  if (pthread_create(&held[held_count], NULL, held_main,
                     &held_jobs[held_count]) != 0) {
    say("FAIL pthread_create: %s\n", strerror(errno));
    exit(70);
  }
  held_count++;
  pthread_mutex_lock(&hold_lock);
  while (held_done < held_count) pthread_cond_wait(&hold_cond, &hold_lock);
  pthread_mutex_unlock(&hold_lock);
}

static void release_threads(void) {
  pthread_mutex_lock(&hold_lock);
  hold_released = 1;
  pthread_cond_broadcast(&hold_cond);
  pthread_mutex_unlock(&hold_lock);
  for (int i = 0; i < held_count; i++) pthread_join(held[i], NULL);
}

/* The first preopened directory's fd (3 under every runtime here). */
__attribute__((unused)) static __wasi_fd_t first_preopen(void) {
  for (__wasi_fd_t fd = 3; fd < 64; fd++) {
    __wasi_prestat_t prestat;
    if (__wasi_fd_prestat_get(fd, &prestat) == 0 &&
        prestat.tag == __WASI_PREOPENTYPE_DIR)
      return fd;
  }
  say("FAIL no preopened directory\n");
  exit(70);
}

__attribute__((unused)) static int finish(void) {
  release_threads();
  say(failures ? "done with %d failures\n" : "done\n", failures);
  return failures ? 1 : 0;
}

#endif
