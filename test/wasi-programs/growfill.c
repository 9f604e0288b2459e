/* Memory that one thread grows, touched by another at once (issue 26).
 *
 * 1. grow: the main thread grows the memory by PAGES pages (memory.grow,
 *    as sbrk does) while the filler thread is inside a long memset of a
 *    block it already has, and publishes the new pages' address with an
 *    atomic store and a notify. The filler, straight out of its memset
 *    (no call, no loop: no stack check in between), fills the new pages
 *    and checks them. Correct on any engine; on one that checks accesses
 *    against a per-thread copy of the memory's size (V8 without its trap
 *    handler: linux-arm64) the filler traps unless the host prevents it.
 * 2. malloc: THREADS threads malloc blocks of growing sizes (dlmalloc grows
 *    the memory while the others fill theirs), fill and check them.
 *
 * Prints one line per part and "growfill: done"; any wrong byte is a FAIL
 * line. Deterministic output. */
#include "common.h"

#include <stdatomic.h>
#include <stdint.h>

#define ROUNDS 24
#define PAGES 4
#define PAGE 65536
#define BIG (256 * 1024)
#define THREADS 4
#define BLOCKS 12

static _Atomic int filling;   /* round the filler has started */
static unsigned char *fresh;  /* the newest grown pages */
static _Atomic int published; /* the round fresh belongs to */
static _Atomic int checked;   /* rounds the filler has checked */
static unsigned char *block;  /* the filler's own block */
static long grow_bad;

static void wait_while(_Atomic int *word, int value) {
  while (atomic_load(word) == value)
    __builtin_wasm_memory_atomic_wait32((int *)word, value, -1);
}

static void *filler(void *arg) {
  (void)arg;
  for (int r = 1; r <= ROUNDS; r++) {
    atomic_store(&filling, r);
    __builtin_wasm_memory_atomic_notify((int *)&filling, 1);
    memset(block, r, BIG); /* the main thread grows meanwhile */
    int seen = atomic_load(&published);
    if (seen != r) wait_while(&published, seen); /* not yet (rare) */
    unsigned char *p = fresh;
    memset(p, r, PAGES * PAGE);
    for (int i = 0; i < PAGES * PAGE; i += 4093)
      if (p[i] != (unsigned char)r) grow_bad++;
    atomic_store(&checked, r);
    __builtin_wasm_memory_atomic_notify((int *)&checked, 1);
  }
  return NULL;
}

static void grow_part(void) {
  block = malloc(BIG);
  pthread_t t;
  pthread_create(&t, NULL, filler, NULL);
  long pages = 0;
  for (int r = 1; r <= ROUNDS; r++) {
    wait_while(&filling, r - 1);
    long old = __builtin_wasm_memory_grow(0, PAGES);
    if (old < 0) {
      say("FAIL grow: memory.grow(%d) failed in round %d\n", PAGES, r);
      exit(1);
    }
    pages += PAGES;
    fresh = (unsigned char *)(old * PAGE);
    atomic_store(&published, r); /* seq_cst: fresh is visible first */
    __builtin_wasm_memory_atomic_notify((int *)&published, 1);
    wait_while(&checked, r - 1);
  }
  pthread_join(t, NULL);
  check(grow_bad == 0, "grow", "%ld wrong bytes", grow_bad);
  say("grow: %d rounds, %ld pages\n", ROUNDS, pages);
}

static long malloc_bad[THREADS];

static void *allocator(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int b = 1; b <= BLOCKS; b++) {
    size_t size = (size_t)b * 48 * 1024 + (size_t)id * 4096;
    unsigned char *p = malloc(size);
    if (p == NULL) {
      malloc_bad[id] = -1;
      return NULL;
    }
    memset(p, id * 16 + b, size);
    for (size_t i = 0; i < size; i += 1021)
      if (p[i] != (unsigned char)(id * 16 + b)) malloc_bad[id]++;
    if (b % 3 != 0) free(p); /* keep some: the heap must grow */
  }
  return NULL;
}

static void malloc_part(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, allocator, (void *)(intptr_t)i);
  long bad = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    bad += malloc_bad[i];
  }
  check(bad == 0, "malloc", "%ld wrong bytes or failed mallocs", bad);
  say("malloc: %d threads, %d blocks each\n", THREADS, BLOCKS);
}

int main(void) {
  grow_part();
  malloc_part();
  say("growfill: done\n");
  return failures ? 1 : 0;
}
