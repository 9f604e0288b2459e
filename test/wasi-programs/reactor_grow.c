/* A reactor guest for the SDK host path (issue 26): run() starts THREADS
 * pthreads that malloc blocks of growing sizes while the others fill
 * theirs (dlmalloc grows the memory on one thread, another touches it at
 * once), checks every block and returns the number of wrong bytes or
 * failed mallocs (0 when right), or -1 when a thread could not start.
 * Built with -mexec-model=reactor (scripts/build-wasi-programs.sh). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define BLOCKS 12

static long bad[THREADS];

static void *allocator(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int b = 1; b <= BLOCKS; b++) {
    size_t size = (size_t)b * 40 * 1024 + (size_t)id * 4096;
    unsigned char *p = malloc(size);
    if (p == NULL) {
      bad[id]++;
      continue;
    }
    memset(p, id * 16 + b, size);
    for (size_t i = 0; i < size; i += 509)
      if (p[i] != (unsigned char)(id * 16 + b)) bad[id]++;
    if (b % 3 != 0) free(p); /* keep some: the heap must grow */
  }
  return NULL;
}

__attribute__((export_name("run"))) int run(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    bad[i] = 0;
    if (pthread_create(&t[i], NULL, allocator, (void *)(intptr_t)i) != 0)
      return -1;
  }
  long total = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    total += bad[i];
  }
  return (int)total;
}
