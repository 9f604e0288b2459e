/* test_wasi_misc.c: args, environment, clocks, random, sched_yield,
 * proc_raise, and EFAULT-means-nothing-happened for each of them. */
#include "wasi_harness.h"

#define MEM 4096

static void test_args_and_env(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "args_sizes_get", 0, 4), 0);
  CHECK_EQ(wtp__wasi_load32(&m, 0), 2);
  CHECK_EQ(wtp__wasi_load32(&m, 4), strlen("prog") + 1 + strlen("arg one") + 1);
  CHECK_EQ(CALL(wasi, &m, "args_get", 100, 200), 0);
  CHECK_EQ(wtp__wasi_load32(&m, 100), 200);
  CHECK(strcmp((char *)m.base + wtp__wasi_load32(&m, 100), "prog") == 0);
  CHECK(strcmp((char *)m.base + wtp__wasi_load32(&m, 104), "arg one") == 0);
  CHECK_EQ(CALL(wasi, &m, "environ_sizes_get", 0, 4), 0);
  CHECK_EQ(wtp__wasi_load32(&m, 0), 2);
  CHECK_EQ(wtp__wasi_load32(&m, 4), strlen("A=1") + 1 + strlen("EMPTY=") + 1);
  CHECK_EQ(CALL(wasi, &m, "environ_get", 300, 400), 0);
  CHECK(strcmp((char *)m.base + wtp__wasi_load32(&m, 300), "A=1") == 0);
  CHECK(strcmp((char *)m.base + wtp__wasi_load32(&m, 304), "EMPTY=") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
}

static uint64_t load64(const wtp_wasi_memory *m, uint64_t at) {
  return (uint64_t)wtp__wasi_load32(m, at) |
         (uint64_t)wtp__wasi_load32(m, at + 4) << 32;
}

static void test_clocks(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  uint64_t last = 0;
  for (int i = 0; i < 10000; i++) {
    CHECK_EQ(CALL(wasi, &m, "clock_time_get", WASI_CLOCK_MONOTONIC, 1, 8), 0);
    uint64_t t = load64(&m, 8);
    if (t < last) CHECK(t >= last); /* monotonic */
    last = t;
  }
  CHECK_EQ(CALL(wasi, &m, "clock_time_get", WASI_CLOCK_REALTIME, 1, 8), 0);
  uint64_t real = load64(&m, 8);
  uint64_t host = (uint64_t)time(NULL) * 1000000000u;
  CHECK(real + 5000000000u > host && real < host + 5000000000u);
  for (uint64_t id = 0; id < 4; id++) {
    CHECK_EQ(CALL(wasi, &m, "clock_res_get", id, 16), 0);
    CHECK(load64(&m, 16) > 0);
    CHECK_EQ(CALL(wasi, &m, "clock_time_get", id, 0, 24), 0);
  }
  /* CPU time moves when the thread computes. */
  CALL(wasi, &m, "clock_time_get", WASI_CLOCK_THREAD_CPUTIME_ID, 0, 24);
  uint64_t before = load64(&m, 24);
  volatile uint64_t spin = 0;
  for (int i = 0; i < 20000000; i++) spin += (uint64_t)i;
  CALL(wasi, &m, "clock_time_get", WASI_CLOCK_THREAD_CPUTIME_ID, 0, 24);
  CHECK(load64(&m, 24) > before);
  CHECK_EQ(CALL(wasi, &m, "clock_time_get", 4, 0, 8), WASI_EINVAL);
  CHECK_EQ(CALL(wasi, &m, "clock_res_get", 99, 8), WASI_EINVAL);
  free(m.base);
  wtp_wasi_release(wasi);
}

static void test_random(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "random_get", 64, 1024), 0);
  CHECK_EQ(CALL(wasi, &m, "random_get", 2048, 1024), 0);
  int zero = 0;
  for (int i = 64; i < 64 + 1024; i++) zero += m.base[i] == 0;
  CHECK(zero < 32);                                     /* ~4 expected */
  CHECK(memcmp(m.base + 64, m.base + 2048, 1024) != 0); /* two draws differ */
  CHECK(m.base[63] == 0 && m.base[64 + 1024] == 0);     /* nothing outside */
  CHECK_EQ(CALL(wasi, &m, "random_get", MEM, 0), 0);    /* empty at the end */
  CHECK_EQ(CALL(wasi, &m, "sched_yield", 0), 0);
  CHECK_EQ(CALL(wasi, &m, "proc_raise", 6), WASI_ENOSYS);
  free(m.base);
  wtp_wasi_release(wasi);
}

/* Hostile pointers: EFAULT, and not one byte of memory changed. */
static void test_efault(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (int i = 0; i < MEM; i++) m.base[i] = (uint8_t)(i * 7);
  uint8_t *copy = malloc(MEM);
  memcpy(copy, m.base, MEM);
  const uint64_t big = UINT32_MAX;
  struct {
    const char *name;
    uint64_t args[3];
  } calls[] = {
      {"args_sizes_get", {0, MEM - 3}},
      {"args_sizes_get", {big, 0}},
      {"args_get", {MEM - 4, 0}},
      {"args_get", {0, MEM - 5}},
      {"args_get", {big, big}},
      {"environ_sizes_get", {MEM, 0}},
      {"environ_get", {0, MEM - 1}},
      {"environ_get", {MEM - 7, 0}},
      {"clock_time_get", {1, 0, MEM - 7}},
      {"clock_time_get", {0, 0, big}},
      {"clock_res_get", {1, MEM - 1}},
      {"random_get", {MEM - 1, 2}},
      {"random_get", {big, big}},
      {"random_get", {1, big}},
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    uint32_t err = call_import(wasi, &m, calls[i].name, calls[i].args);
    if (err != WASI_EFAULT)
      fprintf(stderr, "%s #%zu: %u\n", calls[i].name, i, err);
    CHECK_EQ(err, WASI_EFAULT);
    CHECK(memcmp(copy, m.base, MEM) == 0);
  }
  free(copy);
  free(m.base);
  wtp_wasi_release(wasi);
}

int main(void) {
  RUN(test_args_and_env);
  RUN(test_clocks);
  RUN(test_random);
  RUN(test_efault);
  return harness_summary("test_wasi_misc");
}
