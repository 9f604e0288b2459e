// A pthreads pool (issue 29's row "a pthreads pool, 8 threads, 20,000
// tasks"): N worker threads take tasks from one queue under a mutex and a
// condition variable, each task a few microseconds of integer work; the
// main thread queues them all, waits until all are done, joins, and prints
// the checksum. Built for wasm32-wasi-threads (bench/lib/real-guests.js) and
// natively (gcc -pthread) by bench/lib/program-costs.js.
//
//   pthread-pool [threads=8] [tasks=20000] [work=2000]

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready =
    PTHREAD_COND_INITIALIZER;  // a task queued, or the end
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;  // every task done
static int next_task, queued, done, stopping;
static int work;
static uint64_t checksum;

static uint64_t run_task(int task) {
  uint64_t x = (uint64_t)task * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < work; i++)
    x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x >> 17;
}

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (next_task == queued && !stopping) pthread_cond_wait(&ready, &lock);
    if (next_task == queued) break;
    int task = next_task++;
    pthread_mutex_unlock(&lock);
    uint64_t result = run_task(task);
    pthread_mutex_lock(&lock);
    checksum += result;
    if (++done == queued) pthread_cond_signal(&drained);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 8;
  int tasks = argc > 2 ? atoi(argv[2]) : 20000;
  work = argc > 3 ? atoi(argv[3]) : 2000;
  if (threads < 1 || threads > 64 || tasks < 1) return 2;
  pthread_t ids[64];
  for (int i = 0; i < threads; i++) {
    if (pthread_create(&ids[i], NULL, worker, NULL) != 0) return 1;
  }
  pthread_mutex_lock(&lock);
  for (int t = 0; t < tasks; t++) {
    queued++;
    pthread_cond_signal(&ready);
  }
  while (done < tasks) pthread_cond_wait(&drained, &lock);
  stopping = 1;
  pthread_cond_broadcast(&ready);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  printf("tasks %d threads %d checksum %llu\n", tasks, threads,
         (unsigned long long)checksum);
  return 0;
}
