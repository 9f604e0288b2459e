/* wtp_claim.h: the claim policy of a spawn, as pure functions (no atomics,
 * no clock, no threads), so that test/c/test_claim.c can drive every rule
 * from a table. wtp_pool.c's claim() reads the pool, asks wtp__claim_next
 * what to do, and does it. Internal to the core.
 *
 * A claim first scans for an IDLE slot; only when the scan finds none does
 * the policy decide, in this order:
 *
 *   1. grow      the pool can grow (room) and either nothing can ever come
 *                free (live == 0) or the grow delay has passed (now >=
 *                grow_at): reserve a slot and start a worker;
 *   2. decline   nothing can come free and the pool cannot grow: decline
 *                "pool-exhausted" at once, whatever spawn_wait_ms is;
 *   3. decline   the no-second-wait rule: no room, this spawner's last wait
 *                ran out (starved) and the generation has not moved since
 *                (generation == starved_at): decline at once;
 *   4. decline   no room and the deadline has passed: decline, and remember
 *                the generation (the spawner becomes starved);
 *   5. wait      otherwise: park on the generation until grow_at (room) or
 *                the deadline (no room), then claim again.
 *
 * A closed pool is checked before the scan (claim() declines "terminated"
 * without asking), so it is not an input here. */
#ifndef WTP_CLAIM_H
#define WTP_CLAIM_H

#include <stdint.h>

#include "wtp.h"

/* What a claim saw after a scan that found no slot. */
typedef struct wtp__claim_view {
  uint32_t live;      /* slots the scan saw that are not RETIRED */
  int room;           /* the pool can grow: grow() set and H_SLOTS below
                         capacity */
  int starved;        /* the spawner's last wait ran out ... */
  int32_t starved_at; /* ... at this generation */
  int32_t generation; /* read before the scan */
  uint64_t now;       /* wtp__now_ns() */
  uint64_t grow_at;   /* from wtp__claim_times */
  uint64_t deadline;  /* from wtp__claim_times */
} wtp__claim_view_t;

typedef enum wtp__claim_action {
  WTP__CLAIM_GROW = 0,
  WTP__CLAIM_WAIT = 1,
  WTP__CLAIM_DECLINE = 2
} wtp__claim_action_t;

typedef struct wtp__claim_step {
  wtp__claim_action_t action;
  uint64_t until;      /* WTP__CLAIM_WAIT: park until this time */
  int now_starved;     /* WTP__CLAIM_DECLINE: remember the generation */
  wtp_reason_t reason; /* WTP__CLAIM_DECLINE: why */
  int rule;            /* which of rules 1-5 above decided (for tests) */
} wtp__claim_step_t;

wtp__claim_step_t wtp__claim_next(const wtp__claim_view_t* view);

/* The grow time and the deadline of a claim that starts at now: now +
 * min(WTP_GROW_AFTER_MS, wait) and now + wait, where wait is spawn_wait_ms
 * (0 when the spawner cannot block; 0 for a negative or NaN value; "never",
 * about 31 years, from 1e12 ms on), saturating below UINT64_MAX. */
void wtp__claim_times(uint64_t now, double spawn_wait_ms, int can_block,
                      uint64_t* grow_at, uint64_t* deadline);

#endif /* WTP_CLAIM_H */
