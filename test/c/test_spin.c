/* test_spin.c: the park layer's adaptive spin policy (wtp_park.c,
 * "Spinning"): the decision from synthetic evidence, the record's update,
 * hostile evidence, and the record a real word builds up. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "../../src/core/wtp_park.h"
#include "../../src/os/wtp_wait.h"
#include "harness.h"

/* A quiet 2-CPU machine: a spawner, alone spinning, awaiting the one
 * running guest thread, with no record yet. */
static wtp__spin_evidence_t quiet(void) {
  wtp__spin_evidence_t e = {.cpus = 2,
                            .spinning = 1,
                            .running = 1,
                            .awaits = WTP_PARK_AWAITS_FINISH,
                            .score = 0,
                            .typical = 0,
                            .waits = 1,
                            .cpu_wait_permille = 0};
  return e;
}

static void test_spawner_awaiting_running_thread_spins_long(void) {
  wtp__spin_evidence_t e = quiet();
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
  e.cpu_wait_permille = -1; /* no signal (Windows): the same */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
  e.awaits = WTP_PARK_AWAITS_ANY; /* a worker awaiting a spawn */
  e.running = 0;
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
}

static void test_nothing_running_no_finish_to_await(void) {
  wtp__spin_evidence_t e = quiet();
  e.running = 0;
  CHECK_EQ(wtp__spin_decide(&e), 0);
}

static void test_own_demand_beyond_cpus(void) {
  wtp__spin_evidence_t e = quiet();
  e.running = 2; /* 2 running + this spinner on 2 CPUs */
  CHECK_EQ(wtp__spin_decide(&e), 0);
  e.cpus = 16; /* the same demand on 16 CPUs */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
  e.running = 10;
  e.spinning = 7; /* 17 > 16 */
  CHECK_EQ(wtp__spin_decide(&e), 0);
  e = quiet();
  e.cpus = 1;
  CHECK_EQ(wtp__spin_decide(&e), 0);
  /* A worker awaiting a spawn while a wave's other 6 workers are parked:
   * the spawns wake them, they want the CPUs. A spawner awaiting a finish
   * is not held back by them. */
  e = quiet();
  e.parked = 6;
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
  e.awaits = WTP_PARK_AWAITS_ANY;
  e.running = 0;
  CHECK_EQ(wtp__spin_decide(&e), 0);
  e.parked = 1; /* the spawner parked, being woken: 1 + 1 */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
}

static void test_record_shortens_spin(void) {
  wtp__spin_evidence_t e = quiet();
  e.typical = 1000; /* recent catches took 1 us */
  CHECK_EQ(wtp__spin_decide(&e), 2 * 1000 + WTP_PARK_SHORT_SPIN_NS);
  e.typical = WTP_PARK_LONG_SPIN_NS; /* never longer than the long spin */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
}

static void test_failing_word_only_probes(void) {
  wtp__spin_evidence_t e = quiet();
  e.score = -WTP_PARK_SCORE_GIVE_UP + 1; /* not yet given up */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_LONG_SPIN_NS);
  e.score = -WTP_PARK_SCORE_GIVE_UP;
  int spun = 0;
  for (unsigned w = 0; w < 4 * WTP_PARK_PROBE_EVERY; w++) {
    e.waits = w;
    if (wtp__spin_decide(&e) > 0) spun++;
  }
  CHECK_EQ(spun, 4);
}

static void test_oversubscribed_machine(void) {
  wtp__spin_evidence_t e = quiet();
  e.cpu_wait_permille = WTP_PARK_CONTENDED_PERMILLE;
  /* A fresh word: the contended spin. */
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_CONTENDED_SPIN_NS);
  e.score = -1; /* more misses than its catches pay for: probes only */
  CHECK_EQ(wtp__spin_decide(&e), 0);
  e.waits = WTP_PARK_PROBE_EVERY;
  CHECK_EQ(wtp__spin_decide(&e), WTP_PARK_CONTENDED_SPIN_NS);
  e.waits = 1;
  e.score = 1;
  e.typical = 100; /* quick catches: their own, shorter limit */
  CHECK_EQ(wtp__spin_decide(&e), 2 * 100 + WTP_PARK_SHORT_SPIN_NS);
  e.cpu_wait_permille = WTP_PARK_CONTENDED_PERMILLE - 1;
  e.score = -1; /* not contended: a negative record still spins */
  CHECK_EQ(wtp__spin_decide(&e), 2 * 100 + WTP_PARK_SHORT_SPIN_NS);
}

/* Any evidence gives a limit in [0, WTP_PARK_LONG_SPIN_NS], without
 * overflow (the asan build runs with -fsanitize=undefined). */
static void test_hostile_evidence(void) {
  static const int ints[] = {INT_MIN, -1000, -1, 0, 1, 3, 1000, INT_MAX};
  int bad = 0;
  for (size_t a = 0; a < sizeof ints / sizeof *ints; a++)
    for (size_t b = 0; b < sizeof ints / sizeof *ints; b++) {
      wtp__spin_evidence_t e = {.cpus = ints[a],
                                .spinning = ints[b],
                                .running = ints[(a + b) % 8],
                                .parked = ints[(a + 3 * b) % 8],
                                .awaits = ints[(a * 3 + b) % 8],
                                .score = ints[(a + 5 * b) % 8],
                                .typical = ints[(7 * a + b) % 8],
                                .waits = (unsigned)ints[b],
                                .cpu_wait_permille = ints[(a + 2) % 8]};
      int limit = wtp__spin_decide(&e);
      if (limit < 0 || limit > WTP_PARK_LONG_SPIN_NS) bad++;
      int s = wtp__spin_score_after(ints[a], ints[b] & 1);
      if (s < -WTP_PARK_SCORE_MAX || s > WTP_PARK_SCORE_MAX) bad++;
      int t = wtp__spin_typical_after(ints[a], ints[b] & 2, ints[b]);
      if (t < 1 || t > WTP_PARK_LONG_SPIN_NS) bad++;
    }
  CHECK_EQ(bad, 0);
}

static void test_record_update(void) {
  CHECK_EQ(wtp__spin_score_after(0, 1), WTP_PARK_SCORE_CATCH);
  CHECK_EQ(wtp__spin_score_after(0, 0), -1);
  CHECK_EQ(wtp__spin_score_after(WTP_PARK_SCORE_MAX, 1), WTP_PARK_SCORE_MAX);
  CHECK_EQ(wtp__spin_score_after(-WTP_PARK_SCORE_MAX, 0), -WTP_PARK_SCORE_MAX);
  /* One catch in (WTP_PARK_SCORE_CATCH + 1) holds a record where it is. */
  int s = 0;
  for (int i = 0; i < 10; i++) {
    s = wtp__spin_score_after(s, 1);
    for (int k = 0; k < WTP_PARK_SCORE_CATCH; k++)
      s = wtp__spin_score_after(s, 0);
  }
  CHECK_EQ(s, 0);
  CHECK_EQ(wtp__spin_typical_after(0, 1, 4000), 4000); /* the first, whole */
  CHECK_EQ(wtp__spin_typical_after(4000, 1, 8000), 5000);
  CHECK_EQ(wtp__spin_typical_after(4000, 1, 2000), 3500);
  /* A miss at the limit 2 x 4000 + short: the limit becomes the figure,
   * so the next spin is about twice as long. */
  int limit = 2 * 4000 + WTP_PARK_SHORT_SPIN_NS;
  CHECK_EQ(wtp__spin_typical_after(4000, 0, limit), limit);
  CHECK_EQ(wtp__spin_typical_after(9000, 0, 2000), 9000); /* never lower */
}

/* A word nobody changes: its spins run out, its record falls to the
 * give-up mark, and then most of its waits no longer spin. */
static void test_unchanged_word_gives_up(void) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    printf("       skipped: one CPU, no spinner ticket\n");
    return;
  }
  wtp__park_set_cpu_wait(0); /* a quiet machine, whatever the load */
  static int32_t word;
  int score, typical;
  for (int i = 0; i < WTP_PARK_SCORE_GIVE_UP + 2; i++)
    CHECK_EQ(wtp__park(&word, 0, wtp__now_ns() + 1000000u, NULL, NULL),
             WTP_PARK_TIMEOUT);
  wtp__park_spin_record(&word, &score, &typical);
  CHECK(score <= -WTP_PARK_SCORE_GIVE_UP);
  CHECK_EQ(typical, WTP_PARK_LONG_SPIN_NS); /* every spin ran out */
  /* Given up: WTP_PARK_PROBE_EVERY more waits spin once (the probe). */
  for (int i = 0; i < WTP_PARK_PROBE_EVERY; i++)
    wtp__park(&word, 0, wtp__now_ns() + 200000u, NULL, NULL);
  wtp__park_spin_record(&word, &score, &typical);
  CHECK(score <= -WTP_PARK_SCORE_GIVE_UP);
  wtp__park_set_cpu_wait(-2);
}

/* A word that has already changed when the spin starts (the waiter's
 * expected value is stale): its spins catch at once, through the whole
 * park path (ticket, decision, spin, record), so the record rises and its
 * typical catch is short. (Deterministic: a change made by another thread
 * during the spin needs both threads on a CPU at once, which a loaded CI
 * machine does not grant; the bench rows measure that.) */
static void test_caught_spins_raise_the_record(void) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    printf("       skipped: one CPU, no spinner ticket\n");
    return;
  }
  wtp__park_set_cpu_wait(0);
  static int32_t word; /* holds 0; each wait expects 1 */
  int score, typical;
  /* First drive the record down with misses, to the give-up mark. */
  for (int i = 0; i < WTP_PARK_SCORE_GIVE_UP; i++)
    wtp__park(&word, 0, wtp__now_ns() + 100000u, NULL, NULL);
  wtp__park_spin_record(&word, &score, &typical);
  CHECK(score <= -WTP_PARK_SCORE_GIVE_UP);
  /* Given up, the word still probes: within WTP_PARK_PROBE_EVERY waits
   * one spins, catches, and the record rises by WTP_PARK_SCORE_CATCH;
   * the waits before it do not spin (the record stays). */
  int waits = 0, after_probe = score, typical_after_probe = typical;
  while (after_probe == score && waits < WTP_PARK_PROBE_EVERY) {
    waits++;
    CHECK_EQ(wtp__park(&word, 1, UINT64_MAX, NULL, NULL), WTP_PARK_CHANGED);
    wtp__park_spin_record(&word, &after_probe, &typical_after_probe);
  }
  CHECK_EQ(after_probe, score + WTP_PARK_SCORE_CATCH);
  /* Catches until the record is positive; the typical catch falls. */
  for (int i = 0; i < 3 * WTP_PARK_PROBE_EVERY; i++)
    CHECK_EQ(wtp__park(&word, 1, UINT64_MAX, NULL, NULL), WTP_PARK_CHANGED);
  wtp__park_spin_record(&word, &score, &typical);
  CHECK(score > 0);
  CHECK(typical < typical_after_probe);
  printf(
      "       probe after %d waits: score %d; then %d, typical catch %d ns\n",
      waits, after_probe, score, typical);
  wtp__park_set_cpu_wait(-2);
}

int main(void) {
  RUN(test_spawner_awaiting_running_thread_spins_long);
  RUN(test_nothing_running_no_finish_to_await);
  RUN(test_own_demand_beyond_cpus);
  RUN(test_record_shortens_spin);
  RUN(test_failing_word_only_probes);
  RUN(test_oversubscribed_machine);
  RUN(test_hostile_evidence);
  RUN(test_record_update);
  RUN(test_unchanged_word_gives_up);
  RUN(test_caught_spins_raise_the_record);
  return harness_summary("test_spin");
}
