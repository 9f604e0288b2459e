/* spawn.c: a pthreads program for the runner's spawn tests and bench
 * (test/program-spawn.test.js, bench/lib/thread-start.js). Built for
 * wasm32-wasi-threads by scripts/build-c-guests.sh, and natively with gcc
 * -pthread as the bench's reference.
 *
 *   spawn burst N     starts N short threads (each adds 1 to a counter) as
 *                     fast as it can, then joins them all; prints
 *                     "burst: ran R of N, EAGAIN E, other O" and exits 0
 *                     when every thread ran, 1 otherwise.
 *   spawn limit M     starts M threads that stay alive until released; the
 *                     next pthread_create must fail with EAGAIN; after one
 *                     is released and joined, a create must succeed again.
 *                     Prints each step; exits 0 when all held, else 2-5.
 *   spawn alive N     starts N threads that stay alive until all N have
 *                     started, then releases and joins them; prints
 *                     "alive: N" (exits 1 if a create failed).
 *   spawn starts N    starts N threads that stay alive, one at a time, each
 *                     after the last has started (so each needs a worker of
 *                     its own); prints how long each took from
 *                     pthread_create to its first instruction, in ms.
 *   spawn together N  starts N threads that stay alive, back to back, at the
 *                     program's start (crossbeam-channel's `tick` tests'
 *                     shape: each times its start against its spawn); prints
 *                     how long each took from its pthread_create to its
 *                     first instruction, in ms.
 *   spawn late N      the same, after the main thread has slept for a
 *                     second (the runner's spare worker is up by then).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STACK_BYTES (16 * 1024)

static atomic_int ran;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int started;
static int released_all;
static int released_one = -1;

static void* short_thread(void* arg) {
  (void)arg;
  atomic_fetch_add(&ran, 1);
  return NULL;
}

/* Stays alive until released_all, or released_one == its index. */
static void* held_thread(void* arg) {
  int index = (int)(long)arg;
  pthread_mutex_lock(&lock);
  started++;
  pthread_cond_broadcast(&changed);
  while (!released_all && released_one != index)
    pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double first_instruction_ms;

/* Stamps its first instruction, then is a held thread. */
static void* stamped_thread(void* arg) {
  double t = now_ms();
  pthread_mutex_lock(&lock);
  first_instruction_ms = t;
  pthread_mutex_unlock(&lock);
  return held_thread(arg);
}

static int create(pthread_t* thread, void* (*fn)(void*), long arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, STACK_BYTES);
  int rc = pthread_create(thread, &attr, fn, (void*)arg);
  pthread_attr_destroy(&attr);
  return rc;
}

static void await_started(int n) {
  pthread_mutex_lock(&lock);
  while (started < n) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

static void release(int all, int one) {
  pthread_mutex_lock(&lock);
  if (all) released_all = 1;
  released_one = one;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static int burst(int n) {
  pthread_t* threads = calloc((size_t)n, sizeof *threads);
  char* made = calloc((size_t)n, 1);
  int eagain = 0, other = 0;
  for (int i = 0; i < n; i++) {
    int rc = create(&threads[i], short_thread, i);
    if (rc == 0)
      made[i] = 1;
    else if (rc == EAGAIN)
      eagain++;
    else
      other++;
  }
  for (int i = 0; i < n; i++)
    if (made[i]) pthread_join(threads[i], NULL);
  int r = atomic_load(&ran);
  printf("burst: ran %d of %d, EAGAIN %d, other %d\n", r, n, eagain, other);
  return r == n ? 0 : 1;
}

static int limit(int m) {
  pthread_t* threads = calloc((size_t)m + 1, sizeof *threads);
  for (int i = 0; i < m; i++) {
    int rc = create(&threads[i], held_thread, i);
    if (rc != 0) {
      printf("limit: create %d of %d failed: %s\n", i + 1, m, strerror(rc));
      return 2;
    }
  }
  await_started(m);
  printf("limit: %d threads alive\n", m);
  pthread_t extra;
  int rc = create(&extra, held_thread, m);
  printf("limit: create %d: %s\n", m + 1, rc == 0 ? "ok" : strerror(rc));
  if (rc != EAGAIN) return 3;
  release(0, 0);
  pthread_join(threads[0], NULL);
  rc = create(&threads[0], held_thread, m + 1);
  printf("limit: after a join, create: %s\n", rc == 0 ? "ok" : strerror(rc));
  if (rc != 0) return 4;
  await_started(m + 1);
  release(1, -1);
  for (int i = 0; i < m; i++) pthread_join(threads[i], NULL);
  printf("limit: done\n");
  return 0;
}

static int alive(int n) {
  pthread_t* threads = calloc((size_t)n, sizeof *threads);
  for (int i = 0; i < n; i++) {
    int rc = create(&threads[i], held_thread, i);
    if (rc != 0) {
      printf("alive: create %d of %d failed: %s\n", i + 1, n, strerror(rc));
      return 1;
    }
  }
  await_started(n);
  release(1, -1);
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
  printf("alive: %d\n", n);
  return 0;
}

static int starts(int n) {
  pthread_t* threads = calloc((size_t)n, sizeof *threads);
  for (int i = 0; i < n; i++) {
    double asked = now_ms();
    int rc = create(&threads[i], stamped_thread, i);
    if (rc != 0) return 1;
    await_started(i + 1);
    pthread_mutex_lock(&lock);
    double took = first_instruction_ms - asked;
    pthread_mutex_unlock(&lock);
    printf("starts: thread %d started %.1f ms after pthread_create\n", i + 1,
           took);
  }
  release(1, -1);
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
  return 0;
}

#define TOGETHER_MAX 64
static double together_asked[TOGETHER_MAX];
static double together_first[TOGETHER_MAX];

/* Stamps its own first instruction, then is a held thread. */
static void* together_thread(void* arg) {
  double t = now_ms();
  pthread_mutex_lock(&lock);
  together_first[(long)arg] = t;
  pthread_mutex_unlock(&lock);
  return held_thread(arg);
}

static int together(int n) {
  pthread_t threads[TOGETHER_MAX];
  if (n > TOGETHER_MAX) n = TOGETHER_MAX;
  for (int i = 0; i < n; i++) {
    pthread_mutex_lock(&lock);
    together_asked[i] = now_ms();
    pthread_mutex_unlock(&lock);
    if (create(&threads[i], together_thread, i) != 0) return 1;
  }
  await_started(n);
  for (int i = 0; i < n; i++) {
    pthread_mutex_lock(&lock);
    double took = together_first[i] - together_asked[i];
    pthread_mutex_unlock(&lock);
    printf("together: thread %d started %.1f ms after pthread_create\n", i + 1,
           took);
  }
  release(1, -1);
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3) {
    int n = atoi(argv[2]);
    if (n > 0 && strcmp(argv[1], "burst") == 0) return burst(n);
    if (n > 0 && strcmp(argv[1], "limit") == 0) return limit(n);
    if (n > 0 && strcmp(argv[1], "alive") == 0) return alive(n);
    if (n > 0 && strcmp(argv[1], "starts") == 0) return starts(n);
    if (n > 0 && strcmp(argv[1], "together") == 0) return together(n);
    if (n > 0 && strcmp(argv[1], "late") == 0) {
      struct timespec second = {1, 0};
      nanosleep(&second, NULL);
      return together(n);
    }
  }
  fprintf(stderr, "usage: spawn burst|limit|alive|starts|together|late N\n");
  return 64;
}
