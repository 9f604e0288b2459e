/* A real-toolchain wasi-threads guest for the bench (bench/scenarios/
 * real-guest.js): wasi-libc's pthreads from ../shared/wasi-threads-sysroot,
 * built by clang-19 (bench/lib/real-guests.js has the command).
 *
 *   pthread-waves <lanes> <waves> <work>
 *
 * Each wave: the main thread creates lanes-1 threads with pthread_create,
 * each does <work> rounds of an integer mix over its stripe, and joins them.
 * Every thread is stamped with the WASI monotonic clock (the host's
 * process.hrtime clock): before and after pthread_create on the main
 * thread, at the thread function's entry and exit, and after its
 * pthread_join returned. The program prints one line:
 *
 *   STAMPS {"threads":N,"createUs":[p50,p90,p99,mean],"startUs":[...],
 *           "bodyUs":[...],"exitJoinUs":[...],"waveUs":[...],"wallUs":W,
 *           "pagesBefore":P,"pagesAfter":Q,"checksum":"..."}
 *
 * createUs     pthread_create's call (malloc of the stack and TLS block,
 *              the thread-spawn import: the host's spawn);
 * startUs      pthread_create called -> the thread function's first line
 *              (the host's wake, the thread's instance, wasi_thread_start's
 *              stack and TLS setup in libc);
 * bodyUs       the thread function's work;
 * exitJoinUs   the function's return -> pthread_join returned on the main
 *              thread (libc's thread exit, the host's finish, the join wake);
 * waveUs       one wave, first create -> last join (per wave, not thread);
 * pages        memory.size before and after: a grow per thread shows here. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_LANES 64

typedef struct {
  uint32_t begin, end, rounds, result;
  uint64_t entry_ns, exit_ns;
} lane_t;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

static void* lane(void* arg) {
  lane_t* w = arg;
  w->entry_ns = now_ns();
  uint32_t acc = 0;
  for (uint32_t i = w->begin; i < w->end; i++) {
    uint32_t v = i;
    for (uint32_t r = 0; r < w->rounds; r++) v = mix(v + r);
    acc += v;
  }
  w->result = acc;
  w->exit_ns = now_ns();
  return NULL;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* Prints "name":[p50,p90,p99,mean] in microseconds (sorts v). */
static void print_quantiles(const char* name, uint64_t* v, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += (double)v[i];
  qsort(v, n, sizeof *v, cmp_u64);
  double p50 = n ? v[n / 2] / 1000.0 : 0, p90 = n ? v[n * 9 / 10] / 1000.0 : 0;
  double p99 = n ? v[n * 99 / 100] / 1000.0 : 0,
         mean = n ? sum / (double)n / 1000.0 : 0;
  printf("\"%s\":[%.2f,%.2f,%.2f,%.2f],", name, p50, p90, p99, mean);
}

int main(int argc, char** argv) {
  int lanes = argc > 1 ? atoi(argv[1]) : 8;
  int waves = argc > 2 ? atoi(argv[2]) : 100;
  int rounds = argc > 3 ? atoi(argv[3]) : 16;
  if (lanes < 2 || lanes > MAX_LANES || waves < 1 || waves > 1000000 ||
      rounds < 0 || rounds > 1 << 20) {
    fprintf(stderr, "usage: pthread-waves <lanes 2..64> <waves> <rounds>\n");
    return 2;
  }
  size_t n = (size_t)waves * (size_t)(lanes - 1);
  uint64_t* create = calloc(n, sizeof *create);
  uint64_t* start = calloc(n, sizeof *start);
  uint64_t* body = calloc(n, sizeof *body);
  uint64_t* exit_join = calloc(n, sizeof *exit_join);
  uint64_t* wave_ns = calloc((size_t)waves, sizeof *wave_ns);
  if (!create || !start || !body || !exit_join || !wave_ns) return 3;
  size_t pages_before = __builtin_wasm_memory_size(0);
  uint32_t checksum = 0;
  uint64_t t_begin = now_ns();
  size_t k = 0;
  for (int wave = 0; wave < waves; wave++) {
    uint64_t wave_start = now_ns();
    lane_t work[MAX_LANES];
    pthread_t threads[MAX_LANES];
    uint64_t called[MAX_LANES];
    for (int l = 0; l < lanes; l++) {
      uint32_t base = (uint32_t)wave * 7u * 64u;
      work[l] = (lane_t){.begin = base + 64u * (uint32_t)l,
                         .end = base + 64u * (uint32_t)(l + 1),
                         .rounds = (uint32_t)rounds};
    }
    for (int l = 1; l < lanes; l++) {
      called[l] = now_ns();
      if (pthread_create(&threads[l], NULL, lane, &work[l]) != 0) {
        fprintf(stderr, "pthread_create failed in wave %d\n", wave);
        return 4;
      }
      create[k + (size_t)l - 1] = now_ns() - called[l];
    }
    lane(&work[0]);
    for (int l = 1; l < lanes; l++) {
      pthread_join(threads[l], NULL);
      uint64_t joined = now_ns();
      size_t at = k + (size_t)l - 1;
      start[at] = work[l].entry_ns - called[l];
      body[at] = work[l].exit_ns - work[l].entry_ns;
      exit_join[at] = joined - work[l].exit_ns;
    }
    wave_ns[wave] = now_ns() - wave_start;
    for (int l = 0; l < lanes; l++) checksum ^= work[l].result + (uint32_t)l;
    k += (size_t)(lanes - 1);
  }
  uint64_t wall = now_ns() - t_begin;
  printf("STAMPS {\"threads\":%zu,", n);
  print_quantiles("createUs", create, n);
  print_quantiles("startUs", start, n);
  print_quantiles("bodyUs", body, n);
  print_quantiles("exitJoinUs", exit_join, n);
  print_quantiles("waveUs", wave_ns, (size_t)waves);
  printf(
      "\"wallUs\":%.0f,\"pagesBefore\":%zu,\"pagesAfter\":%zu,\"checksum\":\"%08x\"}\n",
      wall / 1000.0, pages_before, (size_t)__builtin_wasm_memory_size(0),
      checksum);
  return 0;
}
