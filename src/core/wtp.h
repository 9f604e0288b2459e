/* wtp.h: the wasi-threads pool protocol core.
 *
 * The room: src/core/ owns the pool protocol: the layout, the protocol, the
 * claim policy, the park layer and the wait tokens. It includes the C library
 * and src/os/wtp_wait.h only: never Node-API, never src/wasi/ or src/node/.
 *
 * This header is the single source of truth for the shared buffer layout. The
 * Node-API binding exports every constant below (binding.layout) and a test
 * holds the pure-JS twin's constants (lib/pool/layout.js, needed by browsers that
 * never load the addon) against it.
 *
 * The core knows nothing of Node-API. It works on a caller-owned array of
 * 32-bit words (the memory of an Int32Array over a SharedArrayBuffer) and calls
 * back into its embedder through plain C function pointers.
 *
 * Naming: wtp_ is public, wtp__ is internal but not static, statics are plain.
 *
 * ## Layout (32-bit words)
 *
 *   word 0 .. 7             header
 *   word 8 + 8*i .. +7      slot i
 *
 * A buffer of n words holds floor((n - 8) / 8) slots. That number, computed
 * from the buffer length the embedder passes in, is the only bound the core
 * trusts: every header word can be written by any JavaScript code that holds
 * the buffer, so H_SLOTS and H_CAPACITY are always clamped to it.
 *
 * ## Slot states (S_STATE)
 *
 *   PENDING  -> IDLE      owner arms the slot (browser warm pool), by CAS:
 *                         arm of any other state changes nothing
 *   PENDING  -> CLAIMED   a growing spawner, after reserving slot n by CAS
 *                         H_SLOTS n -> n+1; a CAS, not the SDK's store, so a
 *                         retire landing between the two steps stays
 *   CLAIMED  -> RETIRED   the growing spawner, when it then sees the pool
 *                         closed (see "Closing a pool")
 *   IDLE     -> CLAIMED   a spawner claims by CAS
 *   CLAIMED  -> ASSIGNED  the claiming spawner, after storing S_TID and S_ARG
 *   CLAIMED  -> IDLE      the claiming spawner, on tid overflow
 *   CLAIMED  -> RETIRED   the claiming spawner, when grow() failed
 *   ASSIGNED -> RUNNING   the serving worker (CAS, takeWasiThreadPoolAssignment)
 *   RUNNING  -> IDLE      the serving worker (CAS, finishWasiThreadPoolRun)
 *   ASSIGNED/RUNNING -> IDLE  the owner (CAS guarded by S_TID, release)
 *   any      -> RETIRED   owner or worker (retire)
 *
 * CLAIMED, ASSIGNED and RUNNING are "active"; IDLE is "idle"; PENDING and
 * RETIRED are neither. Any other value is treated as a busy, non-claimable,
 * non-retired state: it never matches a CAS and never indexes anything.
 *
 * ## Concurrency
 *
 * Every word is accessed only with atomics. Workers park on their slot's
 * S_STATE; spawners park on H_GENERATION. Each memory-ordering argument is
 * written once, where its code is:
 * - who writes which word, with which order, and why neither a worker nor a
 *   spawner loses a wake-up: wtp_pool.c, "Who writes which word" and "No
 *   lost wake-up";
 * - the park layer's waiter counters (a waker that sees no waiter skips the
 *   wake system call) and the stop flag in the same pairing: wtp_park.c;
 * - closing a pool: below.
 * Native waits never block longer than WTP_PARK_SLICE_MS at a time, so the
 * embedder's interrupted() is polled while a thread waits.
 *
 * ## Closing a pool (terminateAll; not in the SDK)
 *
 * wtp_pool_close sets WTP_IMPL_CLOSED in H_IMPL (C1: fetch_or, seq_cst),
 * then reads H_SLOTS (C2: seq_cst) and retires every slot below it,
 * re-reading H_SLOTS until it stops moving. Every spawn, on any thread,
 * reads the bit first and declines WTP_REASON_TERMINATED when it is set; a
 * spawn already under way checks it again on each turn of its claim loop.
 * A growing spawner CASes H_SLOTS n -> n+1 (G1, seq_cst), claims slot n
 * PENDING -> CLAIMED by CAS (G2, seq_cst) and then reads the bit (G3,
 * seq_cst). Dekker: if G3 misses C1, G1 precedes C2 in the single seq_cst
 * order, so the closer retires slot n (and the grower's CLAIMED ->
 * ASSIGNED CAS, or its G2, then fails); if G3 sees C1, the grower retires
 * slot n itself. Either way, once wtp_pool_close has returned no slot can
 * be assigned again. G2 being a CAS (not the SDK's store) is what keeps a
 * retire that lands between G1 and G2; arm being a CAS from PENDING is what
 * keeps every retired slot retired after the close. This is the one
 * statement of the argument: docs/design.md, lib/pool/twin.js and the code's
 * comments point here. test/model/pool.pml checks it (P6).
 *
 * What may still start: a grower whose read of the bit came just before the
 * close may still be inside grow() when wtp_pool_close returns (the pairing
 * decides who retires slot n, it cannot recall a grow() under way). The
 * worker grow() starts finds slot n RETIRED and its serve loop returns at
 * once, without running a thread; the grower reads the bit again after
 * grow() and declines "terminated" before it takes a tid. No worker is
 * grown by a spawn that starts after wtp_pool_close has returned.
 */
#ifndef WTP_H
#define WTP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Protocol number a current browser worker puts in its "ready" reply. */
#define WTP_PROTOCOL 2

#define WTP_HEADER_WORDS 8
#define WTP_SLOT_WORDS 8

/* Header words. */
enum wtp_header_word {
  /* Release generation. Bumped (add, then wake all) whenever a slot may have
   * become claimable or has been retired. Spawners sleep on it. */
  WTP_H_GENERATION = 0,
  /* Next tid, starting at 1. Shared by every thread of the process, so tids
   * are unique and increasing. Dense except for one case: a spawn that took
   * a tid and then lost its slot to a retire (worker exit, wtp_pool_close)
   * before assigning it, and then declines, leaves that tid unused. Taken
   * by a CAS t -> t+1 only while 1 <= t <=
   * WTP_MAX_TID: once it holds MAX_TID + 1 (or any value outside that
   * range) it is never written again, so exhaustion is sticky and no tid is
   * ever handed out twice (the SDK's fetch_add keeps counting and wraps
   * after 2^32 attempts). */
  WTP_H_NEXT_TID = 1,
  /* Successful spawns, from every thread. */
  WTP_H_SPAWNED = 2,
  /* Successful spawns that slept on the generation at least once. */
  WTP_H_WAITED = 3,
  /* Spawns declined with WTP_REASON_POOL_EXHAUSTED, from every thread. */
  WTP_H_DECLINED = 4,
  /* Slots in service. The browser sets it once; Node grows it by CAS
   * (seq_cst), then claims the new slot PENDING -> CLAIMED by CAS, then
   * checks WTP_IMPL_CLOSED: the grower's half of the pairing with
   * wtp_pool_close (see "Closing a pool" below). */
  WTP_H_SLOTS = 5,
  /* Capacity, written once at creation. */
  WTP_H_CAPACITY = 6,
  /* Bits 0-30: which mechanism every wait and wake on this buffer uses. The
   * SDK leaves this word 0, so 0 means JavaScript Atomics (the JS twin);
   * WTP_IMPL_NATIVE means this core's futex-style waits. The two never wake
   * each other, so a pool is one or the other for its whole life.
   * Bit 31 (WTP_IMPL_CLOSED): set once, by fetch_or, by wtp_pool_close
   * (terminateAll); never cleared. Word 7 is spare in the SDK's layout, so
   * SDK code never reads or writes either part. */
  WTP_H_IMPL = 7
};

/* Slot words, offsets within a slot's stride. */
enum wtp_slot_word {
  WTP_S_STATE = 0, /* enum wtp_slot_state; workers park on this word */
  WTP_S_TID = 1,   /* last tid assigned; persists after the thread ends */
  WTP_S_ARG = 2,   /* start argument of the assigned thread */
  WTP_S_FLAGS = 3, /* WTP_FLAG_* */
  WTP_S_THREAD = 4 /* OS thread id of the serving worker, written once */
};

enum wtp_slot_state {
  WTP_PENDING = 0,
  WTP_IDLE = 1,
  WTP_CLAIMED = 2,
  WTP_ASSIGNED = 3,
  WTP_RUNNING = 4,
  WTP_RETIRED = 5
};

#define WTP_FLAG_MESSAGE_DISPATCH 1

/* wasi-libc keeps a tid in the low 29 bits of a mutex word. */
#define WTP_MAX_TID 0x1fffffff

/* A busy pool that can grow waits this long for a worker to come free before
 * it starts a new one. */
#define WTP_GROW_AFTER_MS 2

#define WTP_DEFAULT_SPAWN_WAIT_MS 250

/* Values of WTP_H_IMPL. The native tag is an unlikely bit pattern ("wtpn") so
 * that a stray write is reported instead of silently switching mechanism. */
#define WTP_IMPL_JS 0
#define WTP_IMPL_NATIVE 0x7774706e
/* The mechanism part of H_IMPL, and its "closed" bit (bit 31). */
#define WTP_IMPL_MASK 0x7fffffff
#define WTP_IMPL_CLOSED INT32_MIN

/* Why a spawn returned no thread. The numbering is shared with the binding
 * and lib/pool/layout.js (WASI_THREAD_POOL_REASONS). */
typedef enum wtp_reason {
  WTP_REASON_NONE = 0,
  WTP_REASON_POOL_EXHAUSTED = 1,       /* "pool-exhausted" */
  WTP_REASON_WORKER_CREATE_FAILED = 2, /* "worker-create-failed" */
  WTP_REASON_TID_EXHAUSTED = 3,        /* "tid-exhausted" */
  WTP_REASON_DISPATCH_FAILED = 4,      /* "dispatch-failed" */
  WTP_REASON_INTERRUPTED = 5, /* embedder asked to stop (thread ending) */
  WTP_REASON_TERMINATED = 6   /* "terminated": the pool was closed */
} wtp_reason_t;

/* Status codes of the core's fallible calls. */
#define WTP_OK 0
#define WTP_EINVAL (-1) /* an argument is out of range; nothing was touched */

/* One view of a pool buffer. Cheap to copy; holds no ownership. Every thread
 * makes its own view of the same words. */
typedef struct wtp_pool {
  int32_t* words;     /* the buffer; accessed only through atomics */
  uint32_t max_slots; /* floor((nwords - 8) / 8): the trusted slot bound */
} wtp_pool_t;

/* Makes a view over nwords words. Returns WTP_EINVAL if words is NULL or
 * nwords < WTP_HEADER_WORDS. Reads nothing from the buffer. */
int wtp_pool_init(wtp_pool_t* pool, int32_t* words, size_t nwords);

/* Writes a new pool's header: next tid 1, capacity, and the wait mechanism.
 * Plain (relaxed) stores: the buffer is not yet shared with any thread. */
int wtp_pool_format(const wtp_pool_t* pool, uint32_t capacity, int32_t impl);

/* min(H_CAPACITY, max_slots), negative counted as 0. */
uint32_t wtp_pool_capacity(const wtp_pool_t* pool);

/* min(H_SLOTS, capacity), negative counted as 0. */
uint32_t wtp_pool_slots(const wtp_pool_t* pool);

/* Closes the pool for good (see "Closing a pool"): sets WTP_IMPL_CLOSED,
 * then retires every slot in service. Any thread may call it. Returns the
 * number of slots retired. */
uint32_t wtp_pool_close(const wtp_pool_t* pool);
/* 1 if WTP_IMPL_CLOSED is set (seq_cst load), else 0. */
int wtp_pool_closed(const wtp_pool_t* pool);
/* Bumps H_GENERATION and wakes every spawner parked on it: a change every
 * spawner tolerates (it rescans). A stopped wait token of a spawner uses it
 * to make the spawner re-check its stop flag (see "Interruptible waits"). */
void wtp_pool_wake_spawners(const wtp_pool_t* pool);

/* Owner-side operations of the SDK API. Each returns WTP_EINVAL for a slot
 * index >= max_slots and touches nothing then. */
void wtp_pool_open_slots(const wtp_pool_t* pool, int32_t slot_count);
/* PENDING -> IDLE (flags first), by CAS; any other state is left as it is. */
int wtp_slot_arm(const wtp_pool_t* pool, uint32_t slot, int message_dispatch);
int wtp_slot_retire(const wtp_pool_t* pool, uint32_t slot);
/* Reads of the slot words; *out receives the value. */
int wtp_slot_state(const wtp_pool_t* pool, uint32_t slot, int32_t* out);
int wtp_slot_last_tid(const wtp_pool_t* pool, uint32_t slot, int32_t* out);
/* *out = tid if the state is ASSIGNED or RUNNING, else 0. A hostile S_TID
 * can be 0 too: wtp_slot_running tells the two apart. */
int wtp_slot_running_tid(const wtp_pool_t* pool, uint32_t slot, int32_t* out);
/* 1 with *tid = S_TID if the state is ASSIGNED or RUNNING (whatever S_TID
 * holds), 0 if not (*tid untouched), WTP_EINVAL for a bad slot. */
int wtp_slot_running(const wtp_pool_t* pool, uint32_t slot, int32_t* tid);
/* Owner-side release, tid-guarded. *released = 1 if the slot went to IDLE. */
int wtp_slot_release_if_running(const wtp_pool_t* pool, uint32_t slot,
                                int32_t tid, int* released);
/* Worker side. *taken = 1 and *tid, *arg filled if ASSIGNED -> RUNNING won. */
int wtp_slot_take(const wtp_pool_t* pool, uint32_t slot, int* taken,
                  int32_t* tid, int32_t* arg);
/* Worker side. RUNNING -> IDLE; bumps the generation only if that CAS won. */
int wtp_slot_finish(const wtp_pool_t* pool, uint32_t slot);

typedef struct wtp_report {
  int32_t spawned, waited, declined;
  uint32_t slots, active, idle, workers;
} wtp_report_t;

void wtp_pool_report(const wtp_pool_t* pool, wtp_report_t* out);

/* ## Callbacks into the embedder
 *
 * All are called on the calling thread, from inside wtp_spawn / wtp_serve.
 * interrupted() is polled when a bounded wait slice (WTP_PARK_SLICE_MS) ends
 * (slice_end = 1), and with slice_end = 0 each time a waiter has announced
 * itself and found the word unchanged, just before it sleeps, when a wake
 * leaves the word unchanged, and at the start of each turn of a spawner's
 * claim loop (a stopped spawner declines before it reserves or grows). So that a thread the embedder wants to end
 * (a terminated Node worker, a process exiting) leaves a native wait
 * promptly, the embedder stores its stop flag (seq_cst), then makes a change
 * of the word the waiter tolerates (wtp_slot_retire for a serve loop's slot,
 * wtp_pool_wake_spawners for the generation), which wakes it; its
 * interrupted(ctx, 0) must read the flag with seq_cst. That is the Dekker
 * pairing of wtp_park.c extended to the flag: a waiter that misses the flag
 * sees the word change, or is woken by it. It returns nonzero to stop.
 * slice_end lets an embedder keep a costly check to the slice ends.
 * A wait token (below) is that flag, that change and that check, ready
 * made: an embedder's interrupted() can simply return
 * wtp_token_interrupted(). */
typedef int (*wtp_grow_cb)(void* ctx, uint32_t slot); /* 0 ok, else failed */
typedef int (*wtp_dispatch_cb)(void* ctx, uint32_t slot, int32_t tid,
                               int32_t arg); /* 0 ok, else failed */
typedef int (*wtp_interrupted_cb)(void* ctx, int slice_end);

/* The spawn state of one thread (the SDK's createWasiThreadPoolSpawn
 * closure). Not shared between threads. */
typedef struct wtp_spawner {
  wtp_pool_t pool;
  uint32_t capacity;    /* wtp_pool_capacity() read once, as the SDK does */
  double spawn_wait_ms; /* finite, >= 0 (the binding validates) */
  int owner;            /* may claim message-dispatch slots */
  int can_block;        /* 1 for native pools: a native wait always blocks */
  int starved;          /* 1 once a wait ran out; starved_at is then valid */
  int32_t starved_at;   /* generation seen when the last wait ran out */
  wtp_grow_cb grow;     /* NULL: the pool does not grow (browser) */
  wtp_dispatch_cb dispatch;       /* NULL: no message-dispatch slots expected */
  wtp_interrupted_cb interrupted; /* NULL: never interrupted */
  void* ctx;
} wtp_spawner_t;

typedef struct wtp_spawn_result {
  int32_t tid;  /* > 0 on success, -1 otherwise */
  int32_t slot; /* >= 0 on success, -1 otherwise */
  wtp_reason_t reason;
} wtp_spawn_result_t;

/* Fills *sp for the pool; callbacks and ctx are set by the caller after. */
void wtp_spawner_init(wtp_spawner_t* sp, const wtp_pool_t* pool,
                      double spawn_wait_ms, int owner);

/* The spawn algorithm of SDK-CONTRACT 1.5. */
wtp_spawn_result_t wtp_spawn(wtp_spawner_t* sp, int32_t start_arg);

/* ## Serving a slot (SDK-CONTRACT 1.6)
 *
 * run() runs one guest thread. It returns WTP_RUN_DONE when the thread
 * returned, WTP_RUN_RETIRE when the embedder's runThread returned false, and
 * WTP_RUN_ERROR when it threw (the embedder keeps the exception). */
enum wtp_run_status { WTP_RUN_DONE = 0, WTP_RUN_RETIRE = 1, WTP_RUN_ERROR = 2 };
typedef int (*wtp_run_cb)(void* ctx, int32_t tid, int32_t arg);

enum wtp_serve_status {
  WTP_SERVE_RETIRED = 0,    /* the slot was retired: the normal end */
  WTP_SERVE_RUN_FALSE = 1,  /* run() returned WTP_RUN_RETIRE; slot retired */
  WTP_SERVE_RUN_ERROR = 2,  /* run() returned WTP_RUN_ERROR; slot retired */
  WTP_SERVE_INTERRUPTED = 3 /* interrupted() while parked; slot retired so
                                that no spawner assigns a thread to it */
};

int wtp_serve(const wtp_pool_t* pool, uint32_t slot, int32_t os_thread_id,
              wtp_run_cb run, wtp_interrupted_cb interrupted, void* ctx);

/* ## Interruptible waits (src/core/wtp_interrupt.c)
 *
 * A wait token stands for one word a thread may park on for long (a serve
 * loop's slot state word, or a spawner's H_GENERATION), with the id the
 * embedder gives the thread (Node: worker_threads' threadId). While it is
 * registered, wtp_interrupt_thread(id) and wtp_interrupt_all() stop it: its
 * wtp_token_interrupted() answers 1 from then on, for good, and the wait on
 * its word returns at once, whether it is spinning, about to sleep or
 * asleep (the pairing of wtp_park.c, "Stopping a waiter").
 *
 * States of a token (stop, seq_cst): 0 from wtp_token_register; 1 once a
 * wtp_interrupt_thread naming its thread, or a wtp_interrupt_all, has run
 * while it was registered, and 1 from the start when its thread was named
 * by a wtp_interrupt_thread before it registered (a stopped thread is
 * ending; the last 64 ids are remembered, see wtp_interrupt.c). Never back
 * to 0. Written under the registry lock, read by the waiter without it.
 *
 * wtp_interrupt_all() is one-way for the process: every token registered
 * later is stopped too (its first wtp_token_interrupted answers 1).
 *
 * Lifetime: the registrant keeps the token's memory and the pool's words
 * valid from wtp_token_register until wtp_token_unregister returns. A
 * stopper writes the words (the slot's retire, the generation's bump) only
 * under the registry lock, so never after wtp_token_unregister. */
typedef enum wtp_token_kind {
  WTP_TOKEN_SLOT = 0,      /* a serve loop's S_STATE: stopping retires it */
  WTP_TOKEN_GENERATION = 1 /* a spawner's H_GENERATION: stopping bumps it */
} wtp_token_kind_t;

/* An embedder's costly check ("is this thread going away?"), made only when
 * a wait slice ends (slice_end = 1), never after a wake. Nonzero: stop. */
typedef int (*wtp_backstop_cb)(void* ctx);

typedef struct wtp_wait_token {
  wtp_pool_t pool; /* the pool the word belongs to */
  uint32_t slot;   /* WTP_TOKEN_SLOT: the slot */
  wtp_token_kind_t kind;
  int32_t thread_id;
  _Atomic int32_t stop;     /* 0 / 1; C-private, never in a shared buffer */
  wtp_backstop_cb backstop; /* NULL: none */
  void* backstop_ctx;
  /* The registry's links, read and written under its lock only. */
  struct wtp_wait_token* prev;
  struct wtp_wait_token* next;
} wtp_wait_token_t;

/* Fills *token and adds it to the process's registry. slot is read for
 * WTP_TOKEN_SLOT only (the caller has checked slot < pool->max_slots). */
void wtp_token_register(wtp_wait_token_t* token, const wtp_pool_t* pool,
                        wtp_token_kind_t kind, uint32_t slot, int32_t thread_id,
                        wtp_backstop_cb backstop, void* backstop_ctx);
/* Removes *token from the registry; no stopper touches it afterwards. */
void wtp_token_unregister(wtp_wait_token_t* token);
/* The interrupted() answer for the token's wait: 1 if stopped (or after
 * wtp_interrupt_all); else, at a slice end only, the backstop's answer. */
int wtp_token_interrupted(wtp_wait_token_t* token, int slice_end);
/* Stops every registered token of thread_id, and the tokens that thread
 * registers later (it is ending): the last WTP_STOPPED_THREAD_IDS ids named
 * are remembered. Any thread may call it. */
#define WTP_STOPPED_THREAD_IDS 64
void wtp_interrupt_thread(int32_t thread_id);
/* Stops every registered token, and every token registered later. */
void wtp_interrupt_all(void);

#ifdef WTP_TEST_HOOKS
/* C tests only (test/c builds the core with -DWTP_TEST_HOOKS; the addon
 * never does): called by a growing spawner between its CAS on H_SLOTS and
 * its claim of the reserved slot, to land another party's write there. */
extern void (*wtp__test_after_reserve)(const wtp_pool_t* pool, uint32_t slot);
#endif

#ifdef __cplusplus
}
#endif
#endif /* WTP_H */
