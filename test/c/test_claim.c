/* test_claim.c: the claim policy of a spawn (src/core/wtp_claim.h), driven from
 * tables without threads, atomics or a clock: which rule decides for each
 * combination of live slots, room to grow, the starvation memory and the
 * times, and the grow time and deadline a claim computes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../../src/core/wtp_claim.h"
#include "harness.h"

#define MS 1000000ull /* ns */

typedef struct claim_case {
  const char* name;
  wtp__claim_view_t view;
  wtp__claim_action_t action;
  int rule;
  uint64_t until;      /* WAIT only */
  int now_starved;     /* DECLINE only */
  wtp_reason_t reason; /* DECLINE only */
} claim_case_t;

/* Times: the claim started at 1000 ms, grows at 1002 ms, gives up at
 * 1250 ms (the default spawn wait). */
#define T0 (1000 * MS)
#define GROW (1002 * MS)
#define DEAD (1250 * MS)
#define VIEW(live, room, starved, starved_at, gen, now) \
  { (live), (room), (starved), (starved_at), (gen), (now), GROW, DEAD }

static const claim_case_t cases[] = {
    /* Rule 1: grow when nothing can come free, or once the delay passed. */
    {"dead pool with room grows at once", VIEW(0, 1, 0, 0, 5, T0),
     WTP__CLAIM_GROW, 1, 0, 0, WTP_REASON_NONE},
    {"busy pool with room grows after the delay", VIEW(3, 1, 0, 0, 5, GROW),
     WTP__CLAIM_GROW, 1, 0, 0, WTP_REASON_NONE},
    {"room beats the starvation memory", VIEW(3, 1, 1, 5, 5, GROW + 1),
     WTP__CLAIM_GROW, 1, 0, 0, WTP_REASON_NONE},
    {"room past the deadline still grows", VIEW(3, 1, 0, 0, 5, DEAD + MS),
     WTP__CLAIM_GROW, 1, 0, 0, WTP_REASON_NONE},
    /* Rule 5 with room: wait for a worker until the grow time. */
    {"busy pool with room waits until the grow time", VIEW(3, 1, 0, 0, 5, T0),
     WTP__CLAIM_WAIT, 5, GROW, 0, WTP_REASON_NONE},
    {"room: the starvation memory does not apply", VIEW(3, 1, 1, 5, 5, T0),
     WTP__CLAIM_WAIT, 5, GROW, 0, WTP_REASON_NONE},
    /* Rule 2: nothing can come free, no room: decline at once. */
    {"dead pool without room declines at once", VIEW(0, 0, 0, 0, 5, T0),
     WTP__CLAIM_DECLINE, 2, 0, 0, WTP_REASON_POOL_EXHAUSTED},
    {"dead pool declines even when starved", VIEW(0, 0, 1, 5, 5, T0),
     WTP__CLAIM_DECLINE, 2, 0, 0, WTP_REASON_POOL_EXHAUSTED},
    /* Rule 3: the no-second-wait rule. */
    {"starved at this generation declines at once", VIEW(2, 0, 1, 5, 5, T0),
     WTP__CLAIM_DECLINE, 3, 0, 0, WTP_REASON_POOL_EXHAUSTED},
    {"starved at another generation waits", VIEW(2, 0, 1, 4, 5, T0),
     WTP__CLAIM_WAIT, 5, DEAD, 0, WTP_REASON_NONE},
    {"starved_at is ignored when not starved", VIEW(2, 0, 0, 5, 5, T0),
     WTP__CLAIM_WAIT, 5, DEAD, 0, WTP_REASON_NONE},
    /* Rule 4: the deadline passed: decline and remember the generation. */
    {"deadline reached declines and starves", VIEW(2, 0, 0, 0, 5, DEAD),
     WTP__CLAIM_DECLINE, 4, 0, 1, WTP_REASON_POOL_EXHAUSTED},
    {"deadline passed declines and starves", VIEW(2, 0, 1, 4, 5, DEAD + 1),
     WTP__CLAIM_DECLINE, 4, 0, 1, WTP_REASON_POOL_EXHAUSTED},
    /* Rule 5 without room: wait until the deadline. */
    {"busy pool without room waits until the deadline", VIEW(1, 0, 0, 0, 5, T0),
     WTP__CLAIM_WAIT, 5, DEAD, 0, WTP_REASON_NONE},
    {"one ns before the deadline still waits", VIEW(1, 0, 0, 0, 5, DEAD - 1),
     WTP__CLAIM_WAIT, 5, DEAD, 0, WTP_REASON_NONE},
    {"negative generations compare as values", VIEW(1, 0, 1, -7, -7, T0),
     WTP__CLAIM_DECLINE, 3, 0, 0, WTP_REASON_POOL_EXHAUSTED},
};

static void test_claim_rules(void) {
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const claim_case_t* c = &cases[i];
    wtp__claim_step_t step = wtp__claim_next(&c->view);
    int ok = step.action == c->action && step.rule == c->rule;
    if (c->action == WTP__CLAIM_WAIT) ok = ok && step.until == c->until;
    if (c->action == WTP__CLAIM_DECLINE)
      ok = ok && step.now_starved == c->now_starved && step.reason == c->reason;
    if (c->action == WTP__CLAIM_GROW) ok = ok && step.reason == WTP_REASON_NONE;
    if (!ok)
      fprintf(stderr,
              "case \"%s\": action %d rule %d until %llu starved %d reason "
              "%d\n",
              c->name, (int)step.action, step.rule,
              (unsigned long long)step.until, step.now_starved,
              (int)step.reason);
    CHECK(ok);
  }
}

/* A wait never ends at or before now: a WAIT whose until has passed would
 * be a busy loop. Swept over live, room, starved and now around both
 * times. */
static void test_wait_is_in_the_future(void) {
  const uint64_t nows[] = {0,        T0,   GROW - 1, GROW,          GROW + 1,
                           DEAD - 1, DEAD, DEAD + 1, UINT64_MAX - 1};
  for (uint32_t live = 0; live < 3; live++)
    for (int room = 0; room < 2; room++)
      for (int starved = 0; starved < 2; starved++)
        for (size_t n = 0; n < sizeof(nows) / sizeof(nows[0]); n++) {
          wtp__claim_view_t v = VIEW(live, room, starved, 4, 5, nows[n]);
          wtp__claim_step_t step = wtp__claim_next(&v);
          if (step.action == WTP__CLAIM_WAIT) CHECK(step.until > nows[n]);
          CHECK(step.rule >= 1 && step.rule <= 5);
          CHECK(step.action != WTP__CLAIM_GROW || room);
        }
}

typedef struct times_case {
  double spawn_wait_ms;
  int can_block;
  uint64_t now;
  uint64_t grow_at, deadline;
} times_case_t;

static void test_claim_times(void) {
  const times_case_t cases_t[] = {
      {250, 1, T0, T0 + 2 * MS, T0 + 250 * MS},
      {1, 1, T0, T0 + 1 * MS, T0 + 1 * MS}, /* grow no later than the wait */
      {0, 1, T0, T0, T0},
      {250, 0, T0, T0, T0}, /* cannot block: no wait at all */
      {-5, 1, T0, T0, T0},  /* negative: 0 */
      {NAN, 1, T0, T0, T0}, /* NaN: 0 */
      {0.5, 1, T0, T0 + MS / 2, T0 + MS / 2},
      {1e12, 1, T0, T0 + 2 * MS, T0 + UINT64_MAX / 2},           /* "never" */
      {250, 1, UINT64_MAX - 10, UINT64_MAX - 1, UINT64_MAX - 1}, /* saturates */
  };
  for (size_t i = 0; i < sizeof(cases_t) / sizeof(cases_t[0]); i++) {
    uint64_t grow_at = 0, deadline = 0;
    wtp__claim_times(cases_t[i].now, cases_t[i].spawn_wait_ms,
                     cases_t[i].can_block, &grow_at, &deadline);
    if (grow_at != cases_t[i].grow_at || deadline != cases_t[i].deadline)
      fprintf(stderr, "times case %zu: grow_at %llu deadline %llu\n", i,
              (unsigned long long)grow_at, (unsigned long long)deadline);
    CHECK(grow_at == cases_t[i].grow_at);
    CHECK(deadline == cases_t[i].deadline);
    CHECK(deadline < UINT64_MAX); /* UINT64_MAX means "no deadline" below */
  }
}

int main(void) {
  RUN(test_claim_rules);
  RUN(test_wait_is_in_the_future);
  RUN(test_claim_times);
  return harness_summary("test_claim");
}
