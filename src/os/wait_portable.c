/* wait_portable.c: wtp_wait.h on POSIX threads, for systems without a
 * futex-like primitive we know of.
 *
 * A fixed table of buckets, hashed by address, each a mutex, a condition
 * variable on CLOCK_MONOTONIC and a list of the threads waiting in it. A
 * waiter checks the word under its bucket's mutex and enqueues itself
 * before it sleeps; a waker takes the same mutex after changing the word,
 * so the check-and-sleep is atomic with respect to the wake, as with a
 * futex: if the waiter's check ran first, the waker finds it in the list;
 * if the waker ran first, its change (made before it locked) is visible to
 * the check (made after the waiter locked).
 *
 * Words of different addresses can share a bucket, so each waiter sleeps on
 * a condition variable of its own (on its stack, made per wait): a wake
 * finds the waiters of its address in the bucket's list, unlinks and marks
 * them, and signals only their condition variables. A waiter of another
 * word in the same bucket is never woken by it.
 *
 * Every pthread call's result is checked. The mutex and condition variable
 * calls can fail only on misuse (EINVAL, EPERM: an uninitialised or
 * foreign-owned object), which would be a bug here and never follows from
 * input: abort() rather than spin or lose a wake. A condition variable that
 * cannot be made (pthread_cond_init: EAGAIN, ENOMEM) turns that wait into a
 * spurious wake, which the contract allows: the caller re-reads and waits
 * again.
 *
 * Needs pthread_condattr_setclock (POSIX 2008). macOS lacks it and uses
 * wait_darwin.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "wtp_wait.h"

#define BUCKETS 64 /* a power of two */

typedef struct waiter {
  struct waiter* next;
  struct waiter* prev;
  const int32_t* addr;
  int woken;           /* written by a waker under the bucket mutex */
  pthread_cond_t cond; /* this waiter's own; signalled under the mutex */
} waiter_t;

typedef struct bucket {
  pthread_mutex_t mutex;
  waiter_t* head; /* every thread waiting in this bucket, any address */
} bucket_t;

static bucket_t buckets[BUCKETS];
static pthread_condattr_t monotonic; /* CLOCK_MONOTONIC, set once */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* See the top of the file: these fail only on misuse. */
static void must(int rc) {
  if (rc != 0) abort();
}

static void init_buckets(void) {
  must(pthread_condattr_init(&monotonic));
  must(pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC));
  for (int i = 0; i < BUCKETS; i++) {
    must(pthread_mutex_init(&buckets[i].mutex, NULL));
    buckets[i].head = NULL;
  }
}

static bucket_t* bucket_of(const int32_t* addr) {
  must(pthread_once(&once, init_buckets));
  return &buckets[wtp__hash_word(addr) & (BUCKETS - 1)];
}

static void unlink_waiter(bucket_t* b, waiter_t* w) {
  if (w->prev)
    w->prev->next = w->next;
  else
    b->head = w->next;
  if (w->next) w->next->prev = w->prev;
  w->next = w->prev = NULL;
}

int wtp__wait(int32_t* addr, int32_t expected, uint64_t deadline_ns) {
  bucket_t* b = bucket_of(addr);
  struct timespec ts;
  int timed = deadline_ns != UINT64_MAX;
  if (timed) {
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
    if (ts.tv_sec < 0) timed = 0; /* past time_t: never */
  }

  waiter_t self = {NULL, NULL, addr, 0, PTHREAD_COND_INITIALIZER};
  if (pthread_cond_init(&self.cond, &monotonic) != 0)
    return 1; /* no condition variable: a spurious wake (top of the file) */

  must(pthread_mutex_lock(&b->mutex));
  /* Relaxed: the mutex orders this load after any change a waker made
   * before it locked (see the top of the file). */
  if (atomic_load_explicit((_Atomic int32_t*)addr, memory_order_relaxed) !=
      expected) {
    must(pthread_mutex_unlock(&b->mutex));
    must(pthread_cond_destroy(&self.cond));
    return 1;
  }
  self.next = b->head;
  if (b->head) b->head->prev = &self;
  b->head = &self;

  int result = 1;
  while (!self.woken) {
    /* pthread_cond_(timed)wait never fails with EINTR: a signal handler
     * runs and the wait resumes against the same absolute deadline. */
    int rc = timed ? pthread_cond_timedwait(&self.cond, &b->mutex, &ts)
                   : pthread_cond_wait(&self.cond, &b->mutex);
    if (rc == ETIMEDOUT) {
      if (!self.woken) {
        /* ETIMEDOUT from an absolute CLOCK_MONOTONIC deadline: it passed. */
        unlink_waiter(b, &self);
        result = 0;
      }
      break;
    }
    must(rc);
  }
  /* A waker that set self.woken has already unlinked us and signalled
   * self.cond under the mutex, so nothing touches self.cond after this
   * unlock. */
  must(pthread_mutex_unlock(&b->mutex));
  must(pthread_cond_destroy(&self.cond));
  return result;
}

static void wake(int32_t* addr, int all) {
  bucket_t* b = bucket_of(addr);
  must(pthread_mutex_lock(&b->mutex));
  waiter_t* w = b->head;
  while (w != NULL) {
    waiter_t* next = w->next;
    if (w->addr == addr) {
      unlink_waiter(b, w);
      w->woken = 1;
      /* Under the mutex: the waiter's frame (its node and its condition
       * variable) stays valid until it reacquires the mutex, which we
       * hold. */
      must(pthread_cond_signal(&w->cond));
      if (!all) break;
    }
    w = next;
  }
  must(pthread_mutex_unlock(&b->mutex));
}

void wtp__wake_one(int32_t* addr) { wake(addr, 0); }

void wtp__wake_all(int32_t* addr) { wake(addr, 1); }

/* wtp_wait.h: no portable scheduler signal; unknown. */
int wtp__os_cpu_wait_permille(void) { return -1; }
