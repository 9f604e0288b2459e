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
 * Words of different addresses can share a bucket. Wakes therefore mark
 * individual waiters (by address) as woken and broadcast the bucket's
 * condition variable; a thread whose mark is not set goes back to sleep, so
 * wtp__wake_one wakes one waiter of that address, never a waiter of
 * another word in the same bucket. A collision costs extra context switches
 * only.
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
  int woken; /* written by a waker under the bucket mutex */
} waiter_t;

typedef struct bucket {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  waiter_t* head; /* every thread waiting in this bucket, any address */
} bucket_t;

static bucket_t buckets[BUCKETS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_buckets(void) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) abort();
  if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0) abort();
  for (int i = 0; i < BUCKETS; i++) {
    if (pthread_mutex_init(&buckets[i].mutex, NULL) != 0) abort();
    if (pthread_cond_init(&buckets[i].cond, &attr) != 0) abort();
    buckets[i].head = NULL;
  }
  pthread_condattr_destroy(&attr);
}

static bucket_t* bucket_of(const int32_t* addr) {
  pthread_once(&once, init_buckets);
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

  pthread_mutex_lock(&b->mutex);
  /* Relaxed: the mutex orders this load after any change a waker made
   * before it locked (see the top of the file). */
  if (atomic_load_explicit((_Atomic int32_t*)addr, memory_order_relaxed) !=
      expected) {
    pthread_mutex_unlock(&b->mutex);
    return 1;
  }
  waiter_t self = {b->head, NULL, addr, 0};
  if (b->head) b->head->prev = &self;
  b->head = &self;

  int result = 1;
  while (!self.woken) {
    /* pthread_cond_(timed)wait never fails with EINTR: a signal handler
     * runs and the wait resumes against the same absolute deadline. */
    int rc = timed ? pthread_cond_timedwait(&b->cond, &b->mutex, &ts)
                   : pthread_cond_wait(&b->cond, &b->mutex);
    if (rc == ETIMEDOUT && !self.woken) {
      /* ETIMEDOUT from an absolute CLOCK_MONOTONIC deadline: it passed. */
      unlink_waiter(b, &self);
      result = 0;
      break;
    }
  }
  /* A waker that set self.woken has already unlinked us. */
  pthread_mutex_unlock(&b->mutex);
  return result;
}

static void wake(int32_t* addr, int all) {
  bucket_t* b = bucket_of(addr);
  int any = 0;
  pthread_mutex_lock(&b->mutex);
  waiter_t* w = b->head;
  while (w != NULL) {
    waiter_t* next = w->next;
    if (w->addr == addr) {
      unlink_waiter(b, w);
      w->woken = 1;
      any = 1;
      if (!all) break;
    }
    w = next;
  }
  /* Broadcast under the mutex: a woken waiter's stack frame (its list
   * node) stays valid until it reacquires the mutex, which we hold. */
  if (any) pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->mutex);
}

void wtp__wake_one(int32_t* addr) { wake(addr, 0); }

void wtp__wake_all(int32_t* addr) { wake(addr, 1); }
