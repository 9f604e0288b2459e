/* wtp_interrupt.c: interruptible wait tokens (see wtp.h, "Interruptible
 * waits"): the registry of the words threads park on for long, and the
 * policy that stops them.
 *
 * Why it exists: a thread blocked in a native wait cannot be interrupted by
 * its runtime (Node's worker.terminate() waits for the futex, and the
 * process's exit joins every worker), and a slice end (WTP_PARK_SLICE_MS)
 * is only a backstop. So every long wait is registered here with its
 * thread's id, and a stopper makes it return at once.
 *
 * ## The registry
 *
 * A doubly linked list of registered tokens, guarded by registry_lock (a
 * statically initialised mutex: pthread, or an SRW lock on Windows). A
 * serve loop registers once for a worker's life and a spawner once at
 * creation, never per guest thread or per spawn, so the lock is never on a
 * hot path. The links of a token are read and written under the lock only.
 *
 * ## Stopping (the stopper's half of "Stopping a waiter", wtp_park.c)
 *
 *   stop_token, under registry_lock:
 *     S1      store(token->stop, 1)                      seq_cst
 *     K1      a seq_cst change of the word the waiter tolerates:
 *             WTP_TOKEN_SLOT: retire the slot (what the serve loop would
 *             do itself once interrupted, refinement (b) of wtp_pool.c);
 *             WTP_TOKEN_GENERATION: bump the generation (spawners rescan)
 *     K2, K3  unpark the word (both calls above end with it)
 *
 *   the waiter, in wtp_park: W1 announce (seq_cst), W2 re-read the word
 *   (seq_cst), W2' interrupted(ctx, 0) = wtp_token_interrupted(token, 0),
 *   which loads token->stop seq_cst; then W3 sleep.
 *
 * Why no stop is lost, so that a stop never waits for a slice end:
 * wtp_park.c, "Stopping a waiter" (the one statement of the argument).
 *
 * A token registered by a thread that was already stopped (the ring of
 * stopped ids below) starts stopped: its thread's own first check sees it,
 * and no word change is needed since it has not read the word yet.
 *
 * all_stopped: 0 until wtp_interrupt_all, then 1 for good. Stored seq_cst
 * before the same marking of every registered token (each then pairs as
 * above); read seq_cst by wtp_token_interrupted, so a token registered
 * after wtp_interrupt_all is stopped at its first check.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "wtp.h"

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
static SRWLOCK registry_lock = SRWLOCK_INIT;
static void lock_registry(void) { AcquireSRWLockExclusive(&registry_lock); }
static void unlock_registry(void) { ReleaseSRWLockExclusive(&registry_lock); }
#else
#include <pthread.h>
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static void lock_registry(void) { pthread_mutex_lock(&registry_lock); }
static void unlock_registry(void) { pthread_mutex_unlock(&registry_lock); }
#endif

static wtp_wait_token_t* registered = NULL; /* under registry_lock */
static atomic_int all_stopped = 0;

/* The thread ids wtp_interrupt_thread named, the most recent
 * WTP_STOPPED_THREAD_IDS of them, in a ring; read and written under registry_lock only. A stopped
 * thread is ending (the terminate hook stops a Worker's thread just before
 * Node terminates it), so a token it registers later (its call into serve
 * or spawn raced the hook) is stopped at registration instead of waiting
 * for the backstop. Node never reuses a threadId. An id pushed out of the
 * ring by later stops only loses that promptness: the backstop still ends
 * the wait within a slice. */
#define STOPPED_IDS WTP_STOPPED_THREAD_IDS
static int32_t stopped_ids[STOPPED_IDS];
static uint32_t stopped_count; /* ids ever recorded; the ring holds the last */

static void remember_stopped(int32_t thread_id) {
  stopped_ids[stopped_count % STOPPED_IDS] = thread_id;
  stopped_count++;
}

static int was_stopped(int32_t thread_id) {
  uint32_t n = stopped_count < STOPPED_IDS ? stopped_count : STOPPED_IDS;
  for (uint32_t i = 0; i < n; i++)
    if (stopped_ids[i] == thread_id) return 1;
  return 0;
}

void wtp_token_register(wtp_wait_token_t* token, const wtp_pool_t* pool,
                        wtp_token_kind_t kind, uint32_t slot, int32_t thread_id,
                        wtp_backstop_cb backstop, void* backstop_ctx) {
  token->pool = *pool;
  token->kind = kind;
  token->slot = slot;
  token->thread_id = thread_id;
  token->backstop = backstop;
  token->backstop_ctx = backstop_ctx;
  lock_registry();
  /* Relaxed: published to stoppers by the lock; read by the registering
   * thread itself (its own waits) in program order. */
  atomic_store_explicit(&token->stop, was_stopped(thread_id),
                        memory_order_relaxed);
  token->prev = NULL;
  token->next = registered;
  if (registered != NULL) registered->prev = token;
  registered = token;
  unlock_registry();
}

void wtp_token_unregister(wtp_wait_token_t* token) {
  lock_registry();
  if (token->prev != NULL)
    token->prev->next = token->next;
  else
    registered = token->next;
  if (token->next != NULL) token->next->prev = token->prev;
  token->prev = token->next = NULL;
  unlock_registry();
}

int wtp_token_interrupted(wtp_wait_token_t* token, int slice_end) {
  /* seq_cst: W2' of "Stopping" above, paired with the seq_cst stores of
   * wtp_interrupt_all and stop_token. */
  if (atomic_load_explicit(&all_stopped, memory_order_seq_cst)) return 1;
  if (atomic_load_explicit(&token->stop, memory_order_seq_cst)) return 1;
  return slice_end && token->backstop != NULL &&
         token->backstop(token->backstop_ctx) != 0;
}

/* S1, then K1 + K2 + K3. The caller holds registry_lock. */
static void stop_token(wtp_wait_token_t* token) {
  atomic_store_explicit(&token->stop, 1, memory_order_seq_cst);
  if (token->kind == WTP_TOKEN_SLOT)
    wtp_slot_retire(&token->pool, token->slot);
  else
    wtp_pool_wake_spawners(&token->pool);
}

void wtp_interrupt_thread(int32_t thread_id) {
  lock_registry();
  remember_stopped(thread_id);
  for (wtp_wait_token_t* t = registered; t != NULL; t = t->next)
    if (t->thread_id == thread_id) stop_token(t);
  unlock_registry();
}

void wtp_interrupt_all(void) {
  /* seq_cst: pairs with the seq_cst load in wtp_token_interrupted. */
  atomic_store_explicit(&all_stopped, 1, memory_order_seq_cst);
  lock_registry();
  for (wtp_wait_token_t* t = registered; t != NULL; t = t->next) stop_token(t);
  unlock_registry();
}
