/* harness.h: a minimal test harness for the C tests (no dependencies).
 *
 * CHECK(cond) records a failure with file:line and goes on; a test binary
 * exits non-zero if any check failed and prints one summary line that
 * test/c/Makefile collects. */
#ifndef WTP_TEST_HARNESS_H
#define WTP_TEST_HARNESS_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int harness_checks;
static atomic_int harness_failures;
static const char* harness_test = "";

/* Upper bounds of "at once" in timing checks. The tests run on 2-vCPU VMs
 * shared with other builds (load averages of 10-20 were seen), where a
 * runnable thread can wait tens of milliseconds for a CPU; every wait a
 * check tells apart from "at once" is longer than this. */
#define SLACK_MS 150

#define CHECK(cond)                                                   \
  do {                                                                \
    atomic_fetch_add(&harness_checks, 1);                             \
    if (!(cond)) {                                                    \
      atomic_fetch_add(&harness_failures, 1);                         \
      fprintf(stderr, "FAIL %s: %s:%d: %s\n", harness_test, __FILE__, \
              __LINE__, #cond);                                       \
    }                                                                 \
  } while (0)

#define CHECK_EQ(a, b)                                                       \
  do {                                                                       \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);          \
    atomic_fetch_add(&harness_checks, 1);                                    \
    if (check_a_ != check_b_) {                                              \
      atomic_fetch_add(&harness_failures, 1);                                \
      fprintf(stderr, "FAIL %s: %s:%d: %s == %s (%lld != %lld)\n",           \
              harness_test, __FILE__, __LINE__, #a, #b, check_a_, check_b_); \
    }                                                                        \
  } while (0)

#define RUN(fn)                                                             \
  do {                                                                      \
    int before_ = atomic_load(&harness_failures);                           \
    harness_test = #fn;                                                     \
    fn();                                                                   \
    printf("  %-4s %s\n",                                                   \
           atomic_load(&harness_failures) == before_ ? "ok" : "FAIL", #fn); \
    fflush(stdout);                                                         \
  } while (0)

static int harness_summary(const char* binary) {
  int f = atomic_load(&harness_failures);
  printf("%s: %s (%d checks, %d failed)\n", binary, f ? "FAIL" : "PASS",
         atomic_load(&harness_checks), f);
  return f ? 1 : 0;
}

#endif
