/* pool.pml: a Promela model of the wasi-threads pool protocol
 * (SDK-CONTRACT section 1; src/wtp.h) and of the native wait layer under it.
 *
 * What is modelled
 *   - NSLOT slots, opened by the owner and armed (PENDING -> IDLE) at a point
 *     that interleaves with the spawners, so spawners may first see only
 *     PENDING slots and must sleep on the generation;
 *   - NSPAWN spawner threads (non-owner, no grow, no message dispatch), each
 *     making one spawn: scan with CAS IDLE -> CLAIMED, sleep on H_GENERATION
 *     when every live slot is busy, tid from a fetch-add on H_NEXT_TID, tid
 *     overflow (CLAIMED -> IDLE + bump), S_TID store, then CLAIMED -> ASSIGNED
 *     by CAS (the refinement both implementations make), then wake the slot;
 *   - one serving worker per slot (SDK-CONTRACT 1.6): park on the slot word
 *     while it is not ASSIGNED, take by CAS, run, then finish (RUNNING -> IDLE
 *     by CAS + bump) or retire the slot (runThread returned false / threw);
 *   - the owner: arms the slots (CAS PENDING -> IDLE, in order, each at any
 *     point, before or after its retires and terminateAll), retires a slot
 *     at any point, sends late and duplicate "exit" releases (tid-guarded),
 *     and at the end retires every slot (terminateAll), which must end every
 *     worker;
 *   - the wait layer as the real mechanism: a waiter bumps the word's parked
 *     counter, then the kernel compares the word with the value the waiter
 *     saw and sleeps only if it is unchanged (futex / bucket mutex+condvar),
 *     then it un-bumps the counter. A waker changes the word first, then
 *     reads the parked counter and skips the wake syscall when it is 0.
 *
 * Waits are untimed here (spawnWaitMs = infinity) on purpose: with a timeout
 * a lost wake-up only costs a late decline, and would be invisible. Untimed,
 * a lost wake-up is a thread asleep forever: an invalid end state.
 *
 * Configurations (test/model/Makefile): NSPAWN=2 spawners x 1 spawn, NSLOT=2;
 * "release" (late/duplicate exits, no early retire), "retire" (one retire by
 * the owner or a worker at any point), "overflow" (MAXTID=1: the second tid
 * overflows), "grow" (-DGROW: no slot in service at first; a spawner that
 * finds no IDLE slot reserves slot H_SLOTS by CAS, claims it PENDING ->
 * CLAIMED by CAS, checks the closed flag and starts its worker; the owner
 * runs terminateAll, closing the pool, at any point), "stop" (-DSTOP: no
 * slot is ever armed, so the spawners can only wait on the generation, and
 * the owner stops each one at any point as a wait token does: its flag,
 * then a bump; a spawner reads its flag at the start of each claim turn and
 * after announcing its wait), "stop-grow" (-DSTOP -DGROW: some spawners
 * stopped before terminateAll). Three spawners (-DNSPAWN=3) is a valid model but its state
 * space does not fit the 2-minute budget.
 *
 * Properties (assertions and end states in each safety run; P5 also as LTL):
 *   P1 no lost wake-up: no invalid end state (every process ends at its end;
 *      a spawner or worker asleep while its word changed is reported);
 *   P2 no double assignment: a slot goes CLAIMED -> ASSIGNED only by the
 *      spawner that claimed it, and never while a thread runs on it;
 *   P3 a tid runs at most once, and only the tid assigned to that slot;
 *   P4 every assigned thread runs, unless its slot was retired (or, in the
 *      EARLY_RELEASE variant, released) before the worker took it;
 *   P5 RETIRED is final, arm included (assertion at every non-retire write,
 *      and LTL);
 *   P6 (grow) once terminateAll has returned, no slot is ever assigned, and
 *      a spawn that starts after the close is declined;
 *   P7 (stop) a spawner stopped before a claim turn begins reserves no slot
 *      in it (so grows no worker), and a stopped spawner's wait always ends
 *      (P1: no stop is lost, whether the spawner was scanning, announcing
 *      or asleep).
 *
 * Variants (-D at spin -a):
 *   BUG_NO_RECHECK   the wait sleeps without re-checking the word: expected
 *                    to be REPORTED (lost wake-up, P1)
 *   BUG_WAKE_ORDER   the waker reads the parked counter before it changes the
 *                    word: expected to be REPORTED (lost wake-up, P1)
 *   SDK_ASSIGN_STORE the SDK's unconditional ASSIGNED store: REPORTED (P5,
 *                    a retire landing on a CLAIMED slot is undone)
 *   SDK_TID_STORE    the SDK's unconditional IDLE store on tid overflow:
 *                    REPORTED (P5)
 *   EARLY_RELEASE    the owner releases a thread it saw ASSIGNED/RUNNING on
 *                    a worker-served slot (not a late exit): REPORTED (P2/P3,
 *                    the ABA window of the tid guard)
 *   SDK_RESERVE_STORE (grow) the SDK's unconditional CLAIMED store after the
 *                    H_SLOTS CAS: REPORTED (P5, terminateAll's retire of the
 *                    new slot, landing between the two, is undone)
 *   SDK_ARM_STORE    the SDK's unconditional IDLE store in arm: REPORTED
 *                    (P5, an arm after a retire or terminateAll brings the
 *                    slot back)
 *   STOP_FLAG_ONLY   (stop) the stopper sets the flag and wakes without
 *                    changing the generation: REPORTED (P1, a spawner between
 *                    its flag check and its sleep sleeps for good)
 *   NO_STOP_CHECK    (stop, grow) the claim loop does not read the flag (only
 *                    the wait does, as before issue 21): REPORTED (P7, a
 *                    stopped spawner with room reserves and grows)
 *   NO_CLOSE_CHECK   (grow) no closed check after the reservation (the SDK's
 *                    Node host, whose only "terminated" check is the
 *                    owner's): REPORTED (P6, or first P1: a slot reserved
 *                    after the closer's last read of H_SLOTS is served by a
 *                    worker that nothing ever ends)
 */

#ifndef NSLOT
#define NSLOT 2
#endif
#ifndef NSPAWN
#define NSPAWN 2
#endif
/* -DMAXTID=1 makes every spawn after the first overflow. */
#ifndef MAXTID
#define MAXTID NSPAWN
#endif
#ifndef RETIRES
#define RETIRES 1
#endif

#define PENDING  0
#define IDLE     1
#define CLAIMED  2
#define ASSIGNED 3
#define RUNNING  4
#define RETIRED  5

#define GEN NSLOT          /* word index of H_GENERATION in the wait tables */
#define NONE 255
#define NTID (NSPAWN + 2)  /* tids 1..NSPAWN (+ overflow headroom) */

byte gen;                  /* H_GENERATION (wraps at 256; bumps are bounded) */
#ifdef GROW
byte nslots;               /* H_SLOTS: grown by CAS from 0 */
bool closed;               /* the closed bit of H_IMPL */
bool closeDone;            /* ghost: terminateAll has returned */
byte workersStarted;       /* ghost: workers started by grow() */
#define SLOTS nslots
#else
#define SLOTS NSLOT
#endif
#ifdef STOP
bool stop[NSPAWN];         /* each spawner's wait token's stop flag */
bool stopBefore[NSPAWN];   /* ghost: stopped before this claim turn began */
#endif
byte nexttid = 1;          /* H_NEXT_TID */
byte state[NSLOT];         /* S_STATE */
byte tidw[NSLOT];          /* S_TID */

/* The native wait layer: per word, the parked counter and the set of
 * sleepers (a bit per waiting process). */
byte parked[NSLOT + 1];
byte sleepers[NSLOT + 1];

/* Ghost state for the properties. */
bool everRetired[NSLOT];
byte claimer[NSLOT];       /* spawner that holds the CLAIMED slot */
byte onSlot[NSLOT];        /* tid a worker is running on the slot, 0 none */
byte ran[NTID];            /* runs per tid */
bool assigned[NTID];       /* the tid reached ASSIGNED */
bool lostByRetire[NTID];   /* its slot was retired while it was ASSIGNED */
bool lostByRelease[NTID];  /* owner released it while ASSIGNED */
byte exitTid[NSLOT];       /* last tid the slot's worker finished (its "exit") */
byte spawnsDone;
/* Retires before terminateAll, by the owner or by a worker whose runThread
 * returned false: a budget shared by all, to bound the state space. */
byte retiresLeft = RETIRES;
byte workersDone;

#define WORD(a) ((a) == GEN -> gen : state[a])

/* Modelling rule: every atomic step below touches at most one shared word
 * (plus locals and ghost variables), so grouping it does not hide any
 * interleaving that the real code has. Locals are zeroed once dead so that
 * they do not split states. */

/* Kernel-side wait: compare and sleep, atomically; then block until woken. */
inline nwait(a, expected, me) {
  parked[a]++;
#ifdef BUG_NO_RECHECK
  sleepers[a] = sleepers[a] | (1 << me);
#else
  atomic {
    if
    :: WORD(a) == expected -> sleepers[a] = sleepers[a] | (1 << me)
    :: else -> skip
    fi
  }
#endif
  /* Woken (or never slept). The decrement is merged into this step: that
   * only removes schedules where a later waker sees parked > 0 and makes an
   * extra, harmless wake. */
  atomic { (sleepers[a] & (1 << me)) == 0 -> parked[a]-- }
}

/* A spawner's wait on the generation (wtp__park with its token): announce
 * (W1), then read its stop flag (W2'), then the kernel's compare-and-sleep.
 * Without STOP, the plain wait. */
inline gwait(expected, me) {
#ifdef STOP
  parked[GEN]++;
  if
  :: stop[me] -> skip                  /* W2': interrupted, no sleep */
  :: else ->
     atomic {
       if
       :: gen == expected -> sleepers[GEN] = sleepers[GEN] | (1 << me)
       :: else -> skip
       fi
     }
  fi;
  atomic { (sleepers[GEN] & (1 << me)) == 0 -> parked[GEN]-- }
#else
  nwait(GEN, expected, me)
#endif
}

/* A wait token's stop of spawner k (wtp_interrupt.c, stop_token): S1 the
 * flag, then K1 a change of the generation and K2/K3 the wake (a bump).
 * STOP_FLAG_ONLY: the flag and a wake without the change (a bare nudge). */
inline stopSpawner(k) {
  stop[k] = true;
#ifdef STOP_FLAG_ONLY
  nwake(GEN)
#else
  bump()
#endif
}

/* The caller changed the word just before: wake if anyone is parked. */
inline nwake(a) {
  atomic {
    if
    :: parked[a] > 0 -> sleepers[a] = 0
    :: else -> skip
    fi
  }
}

/* Wake with the parked counter read before the word changed (BUG_WAKE_ORDER):
 * pk was loaded before the store. */
inline nwake_stale(a) {
  atomic {
    if
    :: pk > 0 -> sleepers[a] = 0
    :: else -> skip
    fi;
    pk = 0
  }
}

/* bumpGeneration: add, then wake every spawner. */
inline bump() {
#ifdef BUG_WAKE_ORDER
  pk = parked[GEN];
  gen++;
  nwake_stale(GEN)
#else
  gen++;
  nwake(GEN)
#endif
}

/* setState(slot, RETIRED): unconditional store, wake the slot, bump. */
inline retire(s) {
#ifdef BUG_WAKE_ORDER
  pk = parked[s];
#endif
  atomic {
    if
    :: state[s] == ASSIGNED -> lostByRetire[tidw[s]] = true
    :: else -> skip
    fi;
    state[s] = RETIRED;
    everRetired[s] = true
  }
#ifdef BUG_WAKE_ORDER
  nwake_stale(s);
#else
  nwake(s);
#endif
  bump()
}

/* armWasiThreadPoolSlot: CAS PENDING -> IDLE, then wake the slot and bump;
 * nothing at all in any other state. SDK_ARM_STORE: the SDK's store. */
inline arm(s) {
#ifdef SDK_ARM_STORE
  atomic { assert(state[s] != RETIRED); state[s] = IDLE };  /* P5 */
  nwake(s);
  bump()
#else
  atomic {
    if
    :: state[s] == PENDING -> state[s] = IDLE; won = 1
    :: else -> won = 0
    fi
  }
  if
  :: won == 1 -> won = 0; nwake(s); bump()
  :: else -> skip
  fi
#endif
}

proctype Spawner(byte me) {
  byte g, i, s, live, t, pk;

  /* claim(): the first scan and the wait loop are the same loop here. */
claim:
  do
  :: 
#ifdef GROW
     if
     :: closed -> goto done            /* declined "terminated" */
     :: else -> skip
     fi;
#endif
#ifdef STOP
     atomic { g = gen; s = NONE; live = 0; i = 0; stopBefore[me] = stop[me] }
#ifndef NO_STOP_CHECK
     if
     :: stop[me] -> goto done          /* declined "interrupted" (item 2) */
     :: else -> skip
     fi;
#endif
#else
     atomic { g = gen; s = NONE; live = 0; i = 0 }
#endif
     do
     :: s == NONE && i < SLOTS ->
        atomic {                       /* CAS(state, IDLE, CLAIMED) */
          if
          :: state[i] == IDLE -> state[i] = CLAIMED; claimer[i] = me; s = i
          :: else -> skip
          fi
        }
        if
        :: s == NONE ->
           atomic {                    /* load(state) != RETIRED: live */
             if
             :: state[i] != RETIRED -> live++
             :: else -> skip
             fi;
             i++
           }
        :: else -> skip
        fi
     :: else -> break
     od;
     if
     :: s != NONE -> atomic { g = 0; live = 0; i = 0 }; break
#ifdef GROW
     :: s == NONE && nslots < NSLOT ->   /* room: grow */
        atomic {                         /* CAS(H_SLOTS, n, n+1) */
#ifdef STOP
          assert(!stopBefore[me]);       /* P7: a stopped spawner never reserves */
#endif
          if
          :: nslots < NSLOT -> s = nslots; nslots++
          :: else -> skip
          fi
        }
        if
        :: s == NONE -> atomic { g = 0; live = 0; i = 0 }; goto claim  /* lost the room */
        :: else -> skip
        fi;
#ifdef SDK_RESERVE_STORE
        atomic { assert(state[s] != RETIRED); state[s] = CLAIMED; claimer[s] = me };  /* P5 */
#else
        atomic {                         /* CAS(state, PENDING, CLAIMED) */
          if
          :: state[s] == PENDING -> state[s] = CLAIMED; claimer[s] = me
          :: else -> s = NONE            /* retired by the close: terminated */
          fi
        }
        if
        :: s == NONE -> goto done
        :: else -> skip
        fi;
#endif
#ifndef NO_CLOSE_CHECK
        if
        :: closed -> retire(s); goto done  /* the closer may have missed it */
        :: else -> skip
        fi;
#endif
        atomic { workersStarted++; run Worker(NSPAWN + s, s) };  /* grow(slot) */
        atomic { g = 0; live = 0; i = 0 }; break
     :: s == NONE && nslots >= NSLOT && live == 0 -> goto done
     :: s == NONE && nslots >= NSLOT && live != 0 -> atomic { live = 0; i = 0 }; gwait(g, me)
#else
     :: s == NONE && live == 0 -> goto done  /* pool-exhausted: nothing can come free */
     :: s == NONE && live != 0 -> atomic { live = 0; i = 0 }; gwait(g, me)
#endif
     fi
  od;

  if
  :: t == 0 ->
     atomic { t = nexttid; nexttid++ }  /* Atomics.add(H_NEXT_TID, 1) */
     if
     :: t > MAXTID ->                   /* tid-exhausted */
#ifdef SDK_TID_STORE
        atomic { assert(state[s] != RETIRED); state[s] = IDLE };  /* P5 */
#else
        atomic {
          if
          :: state[s] == CLAIMED -> state[s] = IDLE
          :: else -> skip
          fi
        };
#endif
        bump();
        goto done
     :: else -> skip
     fi
  :: else -> skip
  fi;

  tidw[s] = t;                          /* S_TID (S_ARG is not modelled) */
#ifdef SDK_ASSIGN_STORE
  atomic {
    assert(state[s] != RETIRED);       /* P5 */
    assert(claimer[s] == me);          /* P2 */
    assert(onSlot[s] == 0);            /* P2 */
    state[s] = ASSIGNED; assigned[t] = true
  }
#else
  atomic {
    if
    :: state[s] == CLAIMED ->
       assert(claimer[s] == me);       /* P2 */
       assert(onSlot[s] == 0);         /* P2 */
#ifdef GROW
       assert(!closeDone);             /* P6 */
#endif
       state[s] = ASSIGNED; assigned[t] = true
    :: else -> s = NONE                /* retired while CLAIMED: claim again */
    fi
  }
  if
  :: s == NONE -> goto claim
  :: else -> skip
  fi;
#endif
  nwake(s);                            /* Atomics.notify(slot state) */
done:
  atomic { g = 0; i = 0; s = 0; live = 0; t = 0; spawnsDone++ }
}

proctype Worker(byte me; byte s) {
  byte st, t, pk;
  do
  :: st = state[s];
     if
     :: st == RETIRED -> break
     :: st == ASSIGNED ->
        atomic {                       /* CAS(state, ASSIGNED, RUNNING) */
          if
          :: state[s] == ASSIGNED -> state[s] = RUNNING; st = RUNNING
          :: else -> st = 0
          fi
        }
        if
        :: st == RUNNING ->
           atomic {
             t = tidw[s];              /* loaded after the take, as the code does */
             assert(assigned[t]);      /* P3: only an assigned tid runs */
             assert(onSlot[s] == 0);
             ran[t]++;
             assert(ran[t] == 1);      /* P3: at most once */
             onSlot[s] = t
           }
           onSlot[s] = 0;              /* runThread returned */
           if
           :: true ->
              atomic {                 /* finishWasiThreadPoolRun: CAS */
                if
                :: state[s] == RUNNING -> state[s] = IDLE; st = IDLE
                :: else -> st = 0
                fi
              }
              if
              :: st == IDLE -> bump()
              :: else -> skip
              fi;
              atomic { exitTid[s] = t; t = 0; st = 0 }
           :: atomic { retiresLeft > 0 -> retiresLeft--; t = 0 };
              /* runThread returned false or threw */
              retire(s); break
           fi
        :: else -> skip                /* lost the take: look again */
        fi
     :: else -> nwait(s, st, me); st = 0  /* PENDING, IDLE, CLAIMED */
     fi
  od;
  atomic { st = 0; workersDone++ }
}

/* releaseWasiThreadPoolSlotIfRunning(slot, tid) */
inline release(s, rt) {
  do
  :: st = state[s];
     if
     :: (st != ASSIGNED && st != RUNNING) -> break
     :: else -> skip
     fi;
     if
     :: tidw[s] != rt -> break
     :: else -> skip
     fi;
     atomic {
       if
       :: state[s] == st ->
          /* P2/P3: the tid guard must hold at the moment the CAS wins */
          assert(tidw[s] == rt);
          if
          :: st == ASSIGNED -> lostByRelease[rt] = true
          :: else -> skip
          fi;
          state[s] = IDLE; st = NONE
       :: else -> skip
       fi
     }
     if
     :: st == NONE -> bump(); break
     :: else -> skip
     fi
  od;
  atomic { st = 0; rt = 0 }
}

proctype Owner() {
  byte i, st, pk, rt, releases, armed, won, stopped;

#ifdef GROW
#ifdef STOP
  /* Stop some spawners first (their threads are ending), at any point. */
  do
  :: stopped < NSPAWN -> stopSpawner(stopped); stopped++
  :: true -> break
  od;
#endif
  /* terminateAll: close, then retire every slot in service, re-reading
   * H_SLOTS until it stops moving. Its first step can be scheduled at any
   * point of the spawners' runs. */
  closed = true;
  i = 0;
  do
  :: i < nslots -> retire(i); i++
  :: else -> break
  od;
  closeDone = true;
  bump();
  spawnsDone == NSPAWN;
  workersDone == workersStarted;
  i = 1;
  do
  :: i < NTID ->
     assert(!assigned[i] || ran[i] == 1 || lostByRetire[i]);
     i++
  :: else -> break
  od;
  goto finished;
#endif

  /* Arm the slots (browser warm pool) in order, each at any point:
   * interleaved with the spawners, the workers, the owner's own retires and
   * releases, and terminateAll (a slot not armed by then stays retired). */
  do
#ifdef STOP
  /* No slot is ever armed: the spawners can only wait, and only their stop
   * ends that wait (P1 then says no stop is lost). */
  :: stopped < NSPAWN -> stopSpawner(stopped); stopped++
#else
  :: armed < NSLOT -> arm(armed); armed++
#endif
  :: atomic { retiresLeft > 0 -> retiresLeft-- }; /* retire at any point */
     if
     :: true -> retire(0)
     :: true -> retire(1)
     fi
#ifndef NORELEASE
  :: releases < 1 -> releases++;      /* a late or duplicate exit */
     if
     :: i = 0
     :: i = 1
     fi;
     rt = exitTid[i];
     if
     :: rt != 0 -> release(i, rt)
     :: else -> skip
     fi
#endif
#ifdef EARLY_RELEASE
  :: releases < 2 -> releases++;      /* release a thread seen in flight */
     if
     :: i = 0
     :: i = 1
     fi;
     st = state[i];
     rt = tidw[i];
     if
     :: (st == ASSIGNED || st == RUNNING) && rt != 0 -> release(i, rt)
     :: else -> atomic { st = 0; rt = 0 }
     fi
#endif
  :: spawnsDone == NSPAWN -> break
  od;

  /* terminateAll: retire every slot; every worker must return. */
  i = 0;
  do
  :: i < NSLOT -> retire(i); i++
  :: else -> break
  od;
#ifndef STOP
  /* Arms that come after terminateAll (the browser host's arm racing its
   * retire) must leave every slot RETIRED. */
  do
  :: armed < NSLOT -> arm(armed); armed++
  :: else -> break
  od;
#endif
  workersDone == NSLOT;

  /* P4: every assigned thread ran, unless retired/released before taken. */
  i = 1;
  do
  :: i < NTID ->
     assert(!assigned[i] || ran[i] == 1 || lostByRetire[i] || lostByRelease[i]);
     i++
  :: else -> break
  od;
finished:
  skip
}

init {
  byte k;
  atomic {
    /* openWasiThreadPoolSlots(NSLOT): all PENDING until the owner arms. */
    run Owner();
    k = 0;
    do
    :: k < NSPAWN -> run Spawner(k); k++
    :: else -> break
    od;
#ifndef GROW
    k = 0;
    do
    :: k < NSLOT -> run Worker(NSPAWN + k, k); k++
    :: else -> break
    od;
#endif
    k = 0
  }
}

/* P5 as a temporal property (checked with -a -N retired_final). */
ltl retired_final {
  [] ((state[0] == RETIRED -> [] (state[0] == RETIRED)) &&
      (state[1] == RETIRED -> [] (state[1] == RETIRED)))
}
