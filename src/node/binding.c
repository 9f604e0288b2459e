/* binding.c: Node-API glue over the protocol core (wtp.h).
 *
 * The room: src/node/ is the glue between Node-API and the C rooms: argument
 * conversion, handles, callbacks, the one error macro (napi_util.h), the WASI's
 * registry (binding_wasi.c) and the one-copy check (addon_copy.c). It may
 * include src/core/ and src/wasi/; nothing in those rooms includes it.
 *
 * Glue only: argument checks (one table, pool_calls, for every call on a
 * pool handle; one, spawner_args, for createSpawner), handle objects, the
 * error macro, the three callbacks the core makes into JavaScript (grow,
 * dispatchMessage, runThread) and the wait tokens' backstop, which asks Node
 * whether a thread is stopping.
 * Every protocol decision lives in the core: wtp_pool.c (the protocol),
 * wtp_interrupt.c (stopping waits), addon_copy.c (one copy per process).
 *
 * ## Handles
 *
 * open(control) checks that control is an Int32Array over a SharedArrayBuffer
 * and returns an external holding a wtp_pool_t view of its words.
 * lib/pool/internal.js caches one handle per typed array (a WeakMap keyed by the
 * typed array), so a hot call costs one external unwrap instead of a
 * typed-array inspection.
 *
 * Lifetime: a pool handle holds a strong reference to the SharedArrayBuffer
 * under the typed array, so the words it points into live as long as the
 * handle, whatever JavaScript passes (a serve call lasts a worker's life).
 * Not to the typed array: that is the WeakMap's key, and a native reference
 * from the WeakMap's value to its own key would keep both alive for the life
 * of the thread (V8 cannot see through it); the buffer does not reference
 * the typed array, so referencing it makes no cycle. (Calls still take the
 * typed array as their last argument; C does not rely on it.)
 *
 * A spawner external holds one wtp_spawner_t (the SDK's per-thread spawn
 * closure), a reference to the pool's SharedArrayBuffer, and its result
 * array: an Int32Array(1) that must be over a SharedArrayBuffer (referenced
 * too), because a SharedArrayBuffer can never be detached, so the pointer
 * to it the spawner keeps is valid for the spawner's life. (An ArrayBuffer
 * can be transferred away, which would leave the pointer dangling.)
 *
 * ## Leaving a native wait
 *
 * V8 cannot interrupt a thread blocked in C: worker.terminate() would wait
 * for the futex, and the process's exit joins every worker. Every word a
 * thread of ours can park on for long (a serve loop's slot word, a
 * spawner's generation word) is registered as a core wait token
 * (wtp_interrupt.c) with the thread's worker_threads id, and the core stops
 * it at once when
 *   - interruptThread(threadId) ran: lib/native/backend.js calls it from
 *     Worker.prototype.terminate, in every thread that uses a native pool,
 *     before Node's own terminate (wtp_interrupt_thread; sticky: a wait the
 *     thread registers later starts stopped);
 *   - interruptAll() ran: lib/native/backend.js calls it from the main thread's
 *     process "exit" event (the process's teardown joins workers one after
 *     another, and one slice each would add up) (wtp_interrupt_all).
 * As a backstop for a termination that bypassed the hook (a Worker ended by
 * a thread that never loaded the addon, or by its parent's teardown), the
 * token's backstop (env_backstop) answers yes when this thread's Node
 * environment is stopping: calling
 * a no-op function then fails with napi_pending_exception while no
 * exception is pending (Node refuses to enter JavaScript in a stopping
 * environment). That call costs about 15 us on a cold core, so it is made
 * only at a slice end (every WTP_PARK_SLICE_MS), or by a spawner's claim
 * loop once a slice has passed since it last asked; never after a wake.
 */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <node_api.h>

#include "addon_copy.h"
#include "napi_util.h"
#include "../core/wtp.h"
#include "../core/wtp_park.h"
#include "../os/wtp_memory.h"

/* The program's C WASI (src/wasi/) is built on Linux, macOS and Windows
 * (binding.gyp; other systems build without it). */
#if defined(__linux__) || defined(__APPLE__) || defined(_WIN32)
#define WTP_HAVE_WASI 1
#include "binding_wasi.h"
#endif

/* ## Errors: WTP_NAPI_CALL and WTP_NAPI_CALL_OR (src/node/napi_util.h) name
 * the failing Node-API call in the thrown error. */

/* Argument errors are TypeError (wrong kind of value) or RangeError (right
 * kind, out of range); both name the argument. They return NULL so that a
 * caller can write `return type_error(...)`. */
static napi_value type_error(napi_env env, const char* message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static napi_value range_error(napi_env env, const char* message) {
  napi_throw_range_error(env, NULL, message);
  return NULL;
}

/* Type tags tell our externals apart from any other external a caller might
 * pass. Values are random; they only need to be unique to this addon. */
static const napi_type_tag pool_tag = {0x8f2a6c1de4b35a07ULL,
                                       0x51c0e9b3a7d24f68ULL};
static const napi_type_tag spawner_tag = {0x3e7d90b1c52f4a86ULL,
                                          0xa2146fd8e03b7c95ULL};

typedef struct pool_handle {
  wtp_pool_t pool;
  napi_ref buffer_ref; /* the SharedArrayBuffer: keeps the words alive */
} pool_handle_t;

typedef struct spawner_handle {
  wtp_spawner_t core;
  napi_env env;
  napi_ref control_ref; /* the pool's SharedArrayBuffer: keeps the words
                            alive */
  /* grow and dispatchMessage of the spawn call under way: arguments of
   * that call, valid only during it. The spawner keeps no reference to
   * them: they close over the JS host that holds the spawner, and a native
   * reference would make that cycle uncollectable. */
  napi_value call_grow;
  napi_value call_dispatch;
  napi_ref out_ref;       /* the SharedArrayBuffer under out */
  int32_t* out;           /* Int32Array(1) over a SharedArrayBuffer (never
                            detachable) receiving the slot of a spawn */
  wtp_wait_token_t token; /* the generation word, registered while alive */
} spawner_handle_t;

/* Per-environment data: the no-op function used to ask Node whether this
 * environment may still run JavaScript. */
typedef struct env_data {
  napi_ref noop_ref;
} env_data_t;

static napi_value noop(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  return NULL;
}

/* Whether this thread's environment can no longer run JavaScript (it is
 * being terminated): the no-op call fails without a pending exception
 * (Node refuses to enter JavaScript there, and says so only by the status).
 * Any other outcome is "not stopping": a call that failed with an exception
 * pending (a stack overflow reached in the call, say) is this thread's own
 * trouble, not a termination, and that exception is cleared here (nothing
 * up the stack expects it: the backstop is asked from inside a wait); a
 * handle scope or reference that cannot be had proves nothing either, and
 * the next slice end asks again. */
static bool env_stopping(napi_env env) {
  env_data_t* data = NULL;
  if (napi_get_instance_data(env, (void**)&data) != napi_ok || data == NULL)
    return false;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return false;
  napi_value fn, recv, result;
  bool stopping = false;
  if (napi_get_reference_value(env, data->noop_ref, &fn) == napi_ok &&
      napi_get_undefined(env, &recv) == napi_ok &&
      napi_call_function(env, recv, fn, 0, NULL, &result) != napi_ok) {
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    } else {
      stopping = true;
    }
  }
  napi_close_handle_scope(env, scope);
  return stopping;
}

/* The tokens' backstop (wtp_backstop_cb): asks Node, at a slice end only,
 * whether this thread's environment is stopping. */
static int env_backstop(void* env) { return env_stopping((napi_env)env); }

/* ## Argument helpers */

static bool get_int32_arg(napi_env env, napi_value v, int32_t* out) {
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_number)
    return false;
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return false;
  if (!(d >= INT32_MIN && d <= INT32_MAX) || d != floor(d)) return false;
  *out = (int32_t)d;
  return true;
}

/* An index is an integer in [0, limit). -1 on a wrong type, -2 on range. */
static int get_index_arg(napi_env env, napi_value v, uint32_t limit,
                         uint32_t* out) {
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_number) return -1;
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return -1;
  if (!(d >= 0 && d < (double)limit) || d != floor(d)) return -2;
  *out = (uint32_t)d;
  return 0;
}

static bool is_function(napi_env env, napi_value v) {
  napi_valuetype type;
  return napi_typeof(env, v, &type) == napi_ok && type == napi_function;
}

static bool is_nullish(napi_env env, napi_value v) {
  napi_valuetype type;
  return napi_typeof(env, v, &type) == napi_ok &&
         (type == napi_undefined || type == napi_null);
}

static pool_handle_t* unwrap_pool(napi_env env, napi_value v) {
  bool ok = false;
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_external)
    return NULL;
  if (napi_check_object_type_tag(env, v, &pool_tag, &ok) != napi_ok || !ok)
    return NULL;
  void* data = NULL;
  if (napi_get_value_external(env, v, &data) != napi_ok) return NULL;
  return (pool_handle_t*)data;
}

/* Unwraps the pool handle argument, throwing a TypeError naming it. */
#define UNWRAP_POOL(env, value, out)                                          \
  do {                                                                        \
    (out) = unwrap_pool((env), (value));                                      \
    if ((out) == NULL) return type_error((env), "pool handle is not a pool"); \
  } while (0)

#define GET_ARGS(env, info, n, argv)                                         \
  do {                                                                       \
    size_t wtp_argc_ = (n);                                                  \
    WTP_NAPI_CALL((env), napi_get_cb_info((env), (info), &wtp_argc_, (argv), \
                                          NULL, NULL));                      \
  } while (0)

/* Reads the slot argument of a call on pool handle h: an integer index
 * within the pool buffer. Throws (TypeError/RangeError naming it) and
 * returns false if it is not. */
static bool get_slot_arg(napi_env env, const pool_handle_t* h, napi_value v,
                         uint32_t* slot) {
  int r = get_index_arg(env, v, h->pool.max_slots, slot);
  if (r == -1) type_error(env, "slot must be a number");
  if (r == -2)
    range_error(env, "slot must be an integer within the pool buffer");
  return r == 0;
}

static napi_value make_int32(napi_env env, int32_t v) {
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_int32(env, v, &out));
  return out;
}

static napi_value make_bool(napi_env env, bool v) {
  napi_value out;
  WTP_NAPI_CALL(env, napi_get_boolean(env, v, &out));
  return out;
}

static napi_value make_null(napi_env env) {
  napi_value out;
  WTP_NAPI_CALL(env, napi_get_null(env, &out));
  return out;
}

static napi_value make_undefined(napi_env env) {
  napi_value out;
  WTP_NAPI_CALL(env, napi_get_undefined(env, &out));
  return out;
}

/* ## Pool handles */

static void pool_finalize(napi_env env, void* data, void* hint) {
  (void)hint;
  pool_handle_t* h = (pool_handle_t*)data;
  if (h->buffer_ref != NULL) napi_delete_reference(env, h->buffer_ref);
  free(h);
}

/* Checks that v is an Int32Array over a SharedArrayBuffer with at least the
 * header's words; fills *data and *length. Throws and returns false if not. */
static bool get_control(napi_env env, napi_value v, int32_t** data,
                        size_t* length, napi_value* buffer_out) {
  bool is_typedarray = false;
  if (napi_is_typedarray(env, v, &is_typedarray) != napi_ok || !is_typedarray) {
    type_error(env, "pool.control must be an Int32Array");
    return false;
  }
  napi_typedarray_type type;
  void* words;
  napi_value buffer;
  size_t offset;
  napi_status status =
      napi_get_typedarray_info(env, v, &type, length, &words, &buffer, &offset);
  if (status != napi_ok) {
    throw_napi_failure(env, "napi_get_typedarray_info(control)", status);
    return false;
  }
  if (type != napi_int32_array) {
    type_error(env, "pool.control must be an Int32Array");
    return false;
  }
  /* A typed array's buffer is an ArrayBuffer or a SharedArrayBuffer, and
   * Node-API (before Node 22.21) only recognises the former. */
  bool is_plain = false;
  status = napi_is_arraybuffer(env, buffer, &is_plain);
  if (status != napi_ok) {
    throw_napi_failure(env, "napi_is_arraybuffer(control.buffer)", status);
    return false;
  }
  if (is_plain) {
    type_error(env, "pool.control must be backed by a SharedArrayBuffer");
    return false;
  }
  if (*length < WTP_HEADER_WORDS || words == NULL) {
    range_error(env, "pool.control is shorter than the pool header");
    return false;
  }
  *data = (int32_t*)words;
  if (buffer_out != NULL) *buffer_out = buffer;
  return true;
}

/* open(control: Int32Array over a SharedArrayBuffer) -> pool handle */
static napi_value js_open(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GET_ARGS(env, info, 1, argv);
  int32_t* words;
  size_t length;
  napi_value buffer;
  if (!get_control(env, argv[0], &words, &length, &buffer)) return NULL;
  if (length > UINT32_MAX) length = UINT32_MAX;

  pool_handle_t* h = calloc(1, sizeof(*h));
  if (h == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  if (wtp_pool_init(&h->pool, words, length) != WTP_OK) {
    free(h);
    return range_error(env, "pool.control is shorter than the pool header");
  }
  /* A strong reference to the SharedArrayBuffer (not to the Int32Array,
   * which is the key of lib/pool/internal.js's WeakMap whose value is this
   * handle: a reference to its own key would keep the entry alive for
   * good). The buffer does not reference the typed array, so this makes no
   * cycle, and the words stay valid for as long as the handle lives. */
  napi_status status = napi_create_reference(env, buffer, 1, &h->buffer_ref);
  if (status != napi_ok) {
    free(h);
    throw_napi_failure(env, "napi_create_reference(pool buffer)", status);
    return NULL;
  }
  napi_value external;
  status = napi_create_external(env, h, pool_finalize, NULL, &external);
  if (status != napi_ok) {
    napi_delete_reference(env, h->buffer_ref);
    free(h);
    throw_napi_failure(env, "napi_create_external(pool)", status);
    return NULL;
  }
  WTP_NAPI_CALL(env, napi_type_tag_object(env, external, &pool_tag));
  return external;
}

/* ## Pool calls
 *
 * The calls on a pool handle share one shape: (handle, ...extra) or, for
 * the calls that act on one slot, (handle, slot, ...extra); the handle and
 * the slot are checked here (TypeError/RangeError naming them), then comes
 * one core call. Each is an entry of pool_calls (its JS name, whether it
 * takes a slot, its core call), exported as js_pool_call with the entry as
 * the function's data. A slot call to the core that takes (pool, slot)
 * alone and returns nothing (act) or one int32 (read) is made directly; any
 * other has an operation (op), which reads at most POOL_CALL_MAX_EXTRA
 * extra arguments (missing ones are undefined), converts them and its
 * result, and returns NULL with a JS exception pending on a bad argument. */
typedef napi_value (*pool_op_t)(napi_env env, const wtp_pool_t* pool,
                                uint32_t slot, napi_value* extra);

/* Exactly one of act, read, op is set; act and read only with takes_slot. */
typedef struct pool_call {
  const char* name;
  bool takes_slot;
  int (*act)(const wtp_pool_t*, uint32_t);            /* -> undefined */
  int (*read)(const wtp_pool_t*, uint32_t, int32_t*); /* -> the int32 */
  pool_op_t op;                                       /* anything else */
} pool_call_t;

#define POOL_CALL_MAX_EXTRA 2

/* format(handle, capacity, implTag) */
static napi_value op_format(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                            napi_value* extra) {
  (void)slot;
  uint32_t capacity;
  int r = get_index_arg(env, extra[0], pool->max_slots + 1, &capacity);
  if (r == -1) return type_error(env, "capacity must be a number");
  if (r == -2) return range_error(env, "capacity must fit in the pool buffer");
  int32_t impl;
  if (!get_int32_arg(env, extra[1], &impl))
    return type_error(env, "implementation tag must be an int32");
  if (wtp_pool_format(pool, capacity, impl) != WTP_OK)
    return range_error(env, "capacity must fit in the pool buffer");
  return make_undefined(env);
}

/* openSlots(handle, count) */
static napi_value op_open_slots(napi_env env, const wtp_pool_t* pool,
                                uint32_t slot, napi_value* extra) {
  (void)slot;
  int32_t slot_count;
  if (!get_int32_arg(env, extra[0], &slot_count))
    return type_error(env, "count must be an int32");
  wtp_pool_open_slots(pool, slot_count);
  return make_undefined(env);
}

/* report(handle) -> {spawned, waited, declined, slots, active, idle, workers} */
static napi_value op_report(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                            napi_value* extra) {
  (void)slot;
  (void)extra;
  wtp_report_t r;
  wtp_pool_report(pool, &r);
  const struct {
    const char* name;
    double value;
  } fields[] = {
      {"spawned", r.spawned}, {"waited", r.waited}, {"declined", r.declined},
      {"slots", r.slots},     {"active", r.active}, {"idle", r.idle},
      {"workers", r.workers},
  };
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_object(env, &out));
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    napi_value v;
    WTP_NAPI_CALL(env, napi_create_double(env, fields[i].value, &v));
    WTP_NAPI_CALL(env, napi_set_named_property(env, out, fields[i].name, v));
  }
  return out;
}

/* close(handle) -> number of slots retired: wtp_pool_close. */
static napi_value op_close(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                           napi_value* extra) {
  (void)slot;
  (void)extra;
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_uint32(env, wtp_pool_close(pool), &out));
  return out;
}

/* closed(handle) -> boolean */
static napi_value op_closed(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                            napi_value* extra) {
  (void)slot;
  (void)extra;
  return make_bool(env, wtp_pool_closed(pool) != 0);
}

/* arm(handle, slot, messageDispatch?: boolean) */
static napi_value op_arm(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                         napi_value* extra) {
  bool message_dispatch = false;
  napi_valuetype type;
  WTP_NAPI_CALL(env, napi_typeof(env, extra[0], &type));
  if (type == napi_boolean)
    WTP_NAPI_CALL(env, napi_get_value_bool(env, extra[0], &message_dispatch));
  else if (type != napi_undefined)
    return type_error(env, "messageDispatch must be a boolean");
  wtp_slot_arm(pool, slot, message_dispatch);
  return make_undefined(env);
}

/* runningTid(handle, slot) -> tid | null */
static napi_value op_running_tid(napi_env env, const wtp_pool_t* pool,
                                 uint32_t slot, napi_value* extra) {
  (void)extra;
  int32_t tid = 0;
  if (wtp_slot_running(pool, slot, &tid) != 1) return make_null(env);
  return make_int32(env, tid);
}

/* release(handle, slot, tid) -> boolean */
static napi_value op_release(napi_env env, const wtp_pool_t* pool,
                             uint32_t slot, napi_value* extra) {
  int32_t tid;
  if (!get_int32_arg(env, extra[0], &tid))
    return type_error(env, "tid must be an int32");
  int released = 0;
  wtp_slot_release_if_running(pool, slot, tid, &released);
  return make_bool(env, released != 0);
}

/* take(handle, slot) -> {tid, startArg} | null */
static napi_value op_take(napi_env env, const wtp_pool_t* pool, uint32_t slot,
                          napi_value* extra) {
  (void)extra;
  int taken = 0;
  int32_t tid = 0, arg = 0;
  wtp_slot_take(pool, slot, &taken, &tid, &arg);
  if (!taken) return make_null(env);
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_object(env, &out));
  napi_value v = make_int32(env, tid);
  if (v == NULL) return NULL;
  WTP_NAPI_CALL(env, napi_set_named_property(env, out, "tid", v));
  v = make_int32(env, arg);
  if (v == NULL) return NULL;
  WTP_NAPI_CALL(env, napi_set_named_property(env, out, "startArg", v));
  return out;
}

static const pool_call_t pool_calls[] = {
    {"format", false, NULL, NULL, op_format},
    {"openSlots", false, NULL, NULL, op_open_slots},
    {"report", false, NULL, NULL, op_report},
    {"close", false, NULL, NULL, op_close},
    {"closed", false, NULL, NULL, op_closed},
    {"arm", true, NULL, NULL, op_arm},
    {"retire", true, wtp_slot_retire, NULL, NULL},
    {"slotState", true, NULL, wtp_slot_state, NULL},
    {"lastTid", true, NULL, wtp_slot_last_tid, NULL},
    {"runningTid", true, NULL, NULL, op_running_tid},
    {"release", true, NULL, NULL, op_release},
    {"take", true, NULL, NULL, op_take},
    {"finish", true, wtp_slot_finish, NULL, NULL},
};

static napi_value js_pool_call(napi_env env, napi_callback_info info) {
  napi_value argv[2 + POOL_CALL_MAX_EXTRA];
  size_t argc = 2 + POOL_CALL_MAX_EXTRA;
  void* data = NULL;
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, &data));
  const pool_call_t* call = (const pool_call_t*)data;
  pool_handle_t* h;
  UNWRAP_POOL(env, argv[0], h);
  if (!call->takes_slot) return call->op(env, &h->pool, 0, argv + 1);
  uint32_t slot;
  if (!get_slot_arg(env, h, argv[1], &slot)) return NULL;
  if (call->act != NULL) {
    call->act(&h->pool, slot);
    return make_undefined(env);
  }
  if (call->read != NULL) {
    int32_t value = 0;
    call->read(&h->pool, slot, &value);
    return make_int32(env, value);
  }
  return call->op(env, &h->pool, slot, argv + 2);
}

/* ## Spawners */

/* Calls a JS callback with int32 arguments. Returns 0 when it returned
 * normally, -1 when it threw or could not be called; a thrown exception is
 * cleared, because the SDK turns a throwing grow() or dispatchMessage() into
 * a decline reason, not an error. */
static int call_callback(napi_env env, napi_value fn, size_t argc,
                         const int32_t* args) {
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return -1;
  int rc = -1;
  napi_value recv, argv[3], result;
  if (argc <= 3 && napi_get_undefined(env, &recv) == napi_ok) {
    size_t i = 0;
    for (; i < argc; i++)
      if (napi_create_int32(env, args[i], &argv[i]) != napi_ok) break;
    if (i == argc &&
        napi_call_function(env, recv, fn, argc, argv, &result) == napi_ok)
      rc = 0;
  }
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  napi_close_handle_scope(env, scope);
  return rc;
}

static int spawner_grow(void* ctx, uint32_t slot) {
  spawner_handle_t* s = (spawner_handle_t*)ctx;
  int32_t args[1] = {(int32_t)slot};
  return call_callback(s->env, s->call_grow, 1, args);
}

static int spawner_dispatch(void* ctx, uint32_t slot, int32_t tid,
                            int32_t arg) {
  spawner_handle_t* s = (spawner_handle_t*)ctx;
  int32_t args[3] = {(int32_t)slot, tid, arg};
  return call_callback(s->env, s->call_dispatch, 3, args);
}

static int spawner_interrupted(void* ctx, int slice_end) {
  return wtp_token_interrupted(&((spawner_handle_t*)ctx)->token, slice_end);
}

static void spawner_finalize(napi_env env, void* data, void* hint) {
  (void)hint;
  spawner_handle_t* s = (spawner_handle_t*)data;
  wtp_token_unregister(&s->token);
  napi_delete_reference(env, s->control_ref);
  napi_delete_reference(env, s->out_ref);
  free(s);
}

/* ### createSpawner's arguments
 *
 * createSpawner(handle, spawnWaitMs, owner, grow|null, dispatch|null, out,
 * threadId, control) -> spawner. out is an Int32Array of at least one
 * element that receives the slot of each successful spawn; threadId is the
 * calling thread's worker_threads id; control is the pool's typed array,
 * which the spawner keeps alive.
 *
 * The arguments after the handle are read by one table, spawner_args: each
 * entry gives an argument's position, its name (for the TypeError or
 * RangeError), its kind and where its value goes in spawner_args_t. They
 * are read in the table's order; the first bad one throws. */
typedef struct spawner_args {
  int32_t thread_id;
  int32_t* control_words;
  napi_value control_buffer;
  double wait_ms;
  bool owner;
  bool has_grow;
  bool has_dispatch;
  int32_t* out;
  napi_value out_buffer;
} spawner_args_t;

typedef enum spawner_arg_kind {
  SPAWNER_ARG_INT32,             /* -> int32_t */
  SPAWNER_ARG_CONTROL,           /* the handle's own control -> int32_t* */
  SPAWNER_ARG_MILLISECONDS,      /* finite number >= 0 -> double */
  SPAWNER_ARG_BOOLEAN,           /* -> bool */
  SPAWNER_ARG_OPTIONAL_FUNCTION, /* function or null/undefined -> bool */
  SPAWNER_ARG_SHARED_OUT         /* Int32Array(>= 1) over a SAB -> int32_t* */
} spawner_arg_kind_t;

typedef struct spawner_arg {
  size_t index;
  const char* name;
  spawner_arg_kind_t kind;
  size_t offset; /* of the value in spawner_args_t */
} spawner_arg_t;

static const spawner_arg_t spawner_args[] = {
    {6, "threadId", SPAWNER_ARG_INT32, offsetof(spawner_args_t, thread_id)},
    {7, "control", SPAWNER_ARG_CONTROL,
     offsetof(spawner_args_t, control_words)},
    {1, "pool.spawnWaitMs", SPAWNER_ARG_MILLISECONDS,
     offsetof(spawner_args_t, wait_ms)},
    {2, "owner", SPAWNER_ARG_BOOLEAN, offsetof(spawner_args_t, owner)},
    {3, "grow", SPAWNER_ARG_OPTIONAL_FUNCTION,
     offsetof(spawner_args_t, has_grow)},
    {4, "dispatchMessage", SPAWNER_ARG_OPTIONAL_FUNCTION,
     offsetof(spawner_args_t, has_dispatch)},
    {5, "out", SPAWNER_ARG_SHARED_OUT, offsetof(spawner_args_t, out)},
};

#define SPAWNER_ARGC 8

/* Throws "<name> <what>" as a TypeError (or a RangeError); returns false. */
static bool spawner_arg_error(napi_env env, const spawner_arg_t* arg,
                              const char* what, bool range) {
  char message[128];
  snprintf(message, sizeof(message), "%s %s", arg->name, what);
  if (range)
    range_error(env, message);
  else
    type_error(env, message);
  return false;
}

/* The control argument: the handle's own typed array; its buffer is kept
 * in args->control_buffer for the spawner's reference. */
static bool read_spawner_control(napi_env env, const pool_handle_t* h,
                                 const spawner_arg_t* arg, napi_value v,
                                 int32_t** words, spawner_args_t* args) {
  size_t length;
  if (!get_control(env, v, words, &length, &args->control_buffer)) return false;
  if (*words != h->pool.words)
    return spawner_arg_error(env, arg, "is not the typed array of this pool",
                             false);
  return true;
}

/* Throws "<name> <what>" as a TypeError unless v is of type want. */
static bool check_spawner_type(napi_env env, const spawner_arg_t* arg,
                               napi_value v, napi_valuetype want,
                               const char* what) {
  napi_valuetype type;
  WTP_NAPI_CALL_OR(env, napi_typeof(env, v, &type), false);
  return type == want || spawner_arg_error(env, arg, what, false);
}

static bool read_spawner_milliseconds(napi_env env, const spawner_arg_t* arg,
                                      napi_value v, double* ms) {
  if (!check_spawner_type(env, arg, v, napi_number, "must be a number"))
    return false;
  WTP_NAPI_CALL_OR(env, napi_get_value_double(env, v, ms), false);
  if (!(*ms >= 0) || isinf(*ms))
    return spawner_arg_error(
        env, arg, "must be a finite, non-negative number of milliseconds.",
        true);
  return true;
}

/* The out array; its buffer is kept in args->out_buffer. Only a
 * SharedArrayBuffer: an ArrayBuffer can be detached (transferred), which
 * would leave s->out dangling; a SharedArrayBuffer never is. */
static bool read_spawner_out(napi_env env, const spawner_arg_t* arg,
                             napi_value v, int32_t** out,
                             spawner_args_t* args) {
  bool is_typedarray = false;
  WTP_NAPI_CALL_OR(env, napi_is_typedarray(env, v, &is_typedarray), false);
  napi_typedarray_type out_type = napi_int8_array;
  size_t out_length = 0;
  void* out_data = NULL;
  napi_value out_buffer = NULL;
  if (is_typedarray)
    WTP_NAPI_CALL_OR(env,
                     napi_get_typedarray_info(env, v, &out_type, &out_length,
                                              &out_data, &out_buffer, NULL),
                     false);
  if (out_type != napi_int32_array || out_length < 1 || out_data == NULL)
    return spawner_arg_error(env, arg, "must be an Int32Array of one element",
                             false);
  bool out_plain = true;
  WTP_NAPI_CALL_OR(env, napi_is_arraybuffer(env, out_buffer, &out_plain),
                   false);
  if (out_plain)
    return spawner_arg_error(
        env, arg, "must be an Int32Array over a SharedArrayBuffer", false);
  *out = (int32_t*)out_data;
  args->out_buffer = out_buffer;
  return true;
}

/* Reads one argument into its place in args; throws and returns false. */
static bool read_spawner_arg(napi_env env, const pool_handle_t* h,
                             const spawner_arg_t* arg, napi_value v,
                             spawner_args_t* args) {
  void* place = (char*)args + arg->offset;
  switch (arg->kind) {
    case SPAWNER_ARG_INT32:
      if (!get_int32_arg(env, v, (int32_t*)place))
        return spawner_arg_error(env, arg, "must be an int32", false);
      return true;
    case SPAWNER_ARG_CONTROL:
      return read_spawner_control(env, h, arg, v, (int32_t**)place, args);
    case SPAWNER_ARG_MILLISECONDS:
      return read_spawner_milliseconds(env, arg, v, (double*)place);
    case SPAWNER_ARG_BOOLEAN:
      if (!check_spawner_type(env, arg, v, napi_boolean, "must be a boolean"))
        return false;
      WTP_NAPI_CALL_OR(env, napi_get_value_bool(env, v, (bool*)place), false);
      return true;
    case SPAWNER_ARG_OPTIONAL_FUNCTION:
      *(bool*)place = !is_nullish(env, v);
      if (*(bool*)place && !is_function(env, v))
        return spawner_arg_error(env, arg, "must be a function", false);
      return true;
    case SPAWNER_ARG_SHARED_OUT:
      return read_spawner_out(env, arg, v, (int32_t**)place, args);
  }
  return false;
}

/* The spawner external over checked arguments. */
static napi_value make_spawner(napi_env env, pool_handle_t* h,
                               const spawner_args_t* a) {
  spawner_handle_t* s = calloc(1, sizeof(*s));
  if (s == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  wtp_spawner_init(&s->core, &h->pool, a->wait_ms, a->owner);
  s->core.grow = a->has_grow ? spawner_grow : NULL;
  s->core.dispatch = a->has_dispatch ? spawner_dispatch : NULL;
  s->core.interrupted = spawner_interrupted;
  s->core.ctx = s;
  s->env = env;
  s->out = a->out;
  napi_value external;
  if (napi_create_reference(env, a->control_buffer, 1, &s->control_ref) !=
          napi_ok ||
      napi_create_reference(env, a->out_buffer, 1, &s->out_ref) != napi_ok ||
      napi_create_external(env, s, spawner_finalize, NULL, &external) !=
          napi_ok) {
    if (s->control_ref != NULL) napi_delete_reference(env, s->control_ref);
    if (s->out_ref != NULL) napi_delete_reference(env, s->out_ref);
    free(s);
    throw_napi_failure(env, "createSpawner references", napi_generic_failure);
    return NULL;
  }
  wtp_token_register(&s->token, &h->pool, WTP_TOKEN_GENERATION, 0, a->thread_id,
                     env_backstop, env);
  napi_status status = napi_type_tag_object(env, external, &spawner_tag);
  if (status != napi_ok) {
    /* The finalizer still runs and unregisters. */
    throw_napi_failure(env, "napi_type_tag_object(spawner)", status);
    return NULL;
  }
  return external;
}

static napi_value js_create_spawner(napi_env env, napi_callback_info info) {
  napi_value argv[SPAWNER_ARGC];
  GET_ARGS(env, info, SPAWNER_ARGC, argv);
  pool_handle_t* h;
  UNWRAP_POOL(env, argv[0], h);
  spawner_args_t a = {0};
  for (size_t i = 0; i < sizeof(spawner_args) / sizeof(spawner_args[0]); i++)
    if (!read_spawner_arg(env, h, &spawner_args[i], argv[spawner_args[i].index],
                          &a))
      return NULL;
  return make_spawner(env, h, &a);
}

/* spawn(spawner, startArg, grow, dispatchMessage) -> tid (> 0), or -reason.
 * grow and dispatchMessage are the functions given to createSpawner (or
 * null), passed again on every call (see spawner_handle_t). On success the
 * slot is written to the spawner's out array. This is the hot path: one
 * external unwrap, one int32 read, no allocation. */
static napi_value js_spawn(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  GET_ARGS(env, info, 4, argv);
  bool ok = false;
  void* data = NULL;
  if (napi_check_object_type_tag(env, argv[0], &spawner_tag, &ok) != napi_ok ||
      !ok || napi_get_value_external(env, argv[0], &data) != napi_ok)
    return type_error(env, "spawner is not a spawner");
  int32_t start_arg;
  if (napi_get_value_int32(env, argv[1], &start_arg) != napi_ok)
    return type_error(env, "startArg must be a number");
  spawner_handle_t* s = (spawner_handle_t*)data;
  if (s->env != env)
    return type_error(env, "spawner belongs to another thread");
  if ((s->core.grow != NULL && !is_function(env, argv[2])) ||
      (s->core.dispatch != NULL && !is_function(env, argv[3])))
    return type_error(env, "grow and dispatchMessage must be the spawner's");
  /* Saved and restored: a callback may spawn again on the same spawner. */
  napi_value saved_grow = s->call_grow, saved_dispatch = s->call_dispatch;
  s->call_grow = argv[2];
  s->call_dispatch = argv[3];
  wtp_spawn_result_t r = wtp_spawn(&s->core, start_arg);
  s->call_grow = saved_grow;
  s->call_dispatch = saved_dispatch;
  if (r.reason == WTP_REASON_NONE) {
    s->out[0] = r.slot;
    return make_int32(env, r.tid);
  }
  return make_int32(env, -(int32_t)r.reason);
}

/* ## Serving */

typedef struct serve_ctx {
  napi_env env;
  napi_value run;         /* valid for the whole serve call (an argument) */
  wtp_wait_token_t token; /* the slot's state word, registered for the call */
} serve_ctx_t;

/* Runs one guest thread: runThread(tid, startArg). A handle scope per run
 * keeps a serve call that lasts a worker's life from piling up handles. */
static int serve_run(void* ctx, int32_t tid, int32_t arg) {
  serve_ctx_t* c = (serve_ctx_t*)ctx;
  napi_env env = c->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return WTP_RUN_RETIRE;
  int rc = WTP_RUN_RETIRE;
  napi_value recv, argv[2], result;
  if (napi_get_undefined(env, &recv) == napi_ok &&
      napi_create_int32(env, tid, &argv[0]) == napi_ok &&
      napi_create_int32(env, arg, &argv[1]) == napi_ok) {
    napi_status status =
        napi_call_function(env, recv, c->run, 2, argv, &result);
    if (status == napi_ok) {
      /* Only the value false retires the slot, as in the SDK. */
      napi_valuetype type;
      bool value = true;
      if (napi_typeof(env, result, &type) == napi_ok && type == napi_boolean)
        napi_get_value_bool(env, result, &value);
      rc = value ? WTP_RUN_DONE : WTP_RUN_RETIRE;
    } else {
      /* A pending exception is runThread's own throw: keep it for the
       * caller. Without one, the environment is stopping and the thread
       * cannot run here: retire the slot. */
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      rc = pending ? WTP_RUN_ERROR : WTP_RUN_RETIRE;
    }
  }
  napi_close_handle_scope(env, scope);
  return rc;
}

static int serve_interrupted(void* ctx, int slice_end) {
  return wtp_token_interrupted(&((serve_ctx_t*)ctx)->token, slice_end);
}

/* serve(handle, slot, runThread, osThreadId, threadId, control) ->
 * undefined; throws what runThread threw. osThreadId is what the SDK stores
 * in S_THREAD; threadId is the calling thread's worker_threads id, which
 * interruptThread names. */
static napi_value js_serve(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  pool_handle_t* h;
  uint32_t slot;
  GET_ARGS(env, info, 5, argv);
  UNWRAP_POOL(env, argv[0], h);
  if (!get_slot_arg(env, h, argv[1], &slot)) return NULL;
  if (!is_function(env, argv[2]))
    return type_error(env, "runThread must be a function");
  int32_t os_thread_id;
  if (!get_int32_arg(env, argv[3], &os_thread_id))
    return type_error(env, "osThreadId must be an int32");

  int32_t thread_id;
  if (!get_int32_arg(env, argv[4], &thread_id))
    return type_error(env, "threadId must be an int32");

  serve_ctx_t ctx;
  ctx.env = env;
  ctx.run = argv[2];
  wtp_token_register(&ctx.token, &h->pool, WTP_TOKEN_SLOT, slot, thread_id,
                     env_backstop, env);
  wtp_serve(&h->pool, slot, os_thread_id, serve_run, serve_interrupted, &ctx);
  wtp_token_unregister(&ctx.token);
  /* After WTP_SERVE_RUN_ERROR runThread's exception is still pending and
   * propagates from here. */
  return NULL;
}

/* interruptAll(): makes every registered native wait in the process return,
 * for good. Called from the main thread's process "exit" event. */
static napi_value js_interrupt_all(napi_env env, napi_callback_info info) {
  (void)info;
  wtp_interrupt_all();
  return make_undefined(env);
}

/* interruptThread(threadId): makes the registered native waits of one thread
 * return, for good. Called just before that thread's Worker is terminated. */
static napi_value js_interrupt_thread(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GET_ARGS(env, info, 1, argv);
  int32_t thread_id;
  if (!get_int32_arg(env, argv[0], &thread_id))
    return type_error(env, "threadId must be an int32");
  wtp_interrupt_thread(thread_id);
  return make_undefined(env);
}

/* ## Internal exports, for the package's own tests (binding.internal)
 *
 * runningThreads(): the spin heuristic's process-wide count of guest threads
 * assigned and not yet done (wtp__park_running); a read, harmless to ship.
 * setSpinLimit(n): overrides the spin limit of every park in the process
 * (-1 restores the default), as the C tests do; lets a test hold a waiter
 * in its spin. A process-wide write any code could make (a spin of 2^31
 * pauses), so it exists only in test builds of the addon
 * (-DWTP_ADDON_TEST_HOOKS: test/support/test-addon.js), never in the
 * shipped one. Neither is part of the public API. */
static napi_value js_running_threads(napi_env env, napi_callback_info info) {
  (void)info;
  return make_int32(env, wtp__park_running());
}

/* op(data, length) over the bytes of the call's Uint8Array argument, as a
 * boolean; for anything else, a TypeError with the text error. */
static napi_value call_on_bytes(napi_env env, napi_callback_info info,
                                const char* error, bool (*op)(void*, size_t)) {
  napi_value argv[1];
  GET_ARGS(env, info, 1, argv);
  bool is_typed = false;
  WTP_NAPI_CALL(env, napi_is_typedarray(env, argv[0], &is_typed));
  napi_typedarray_type type = napi_int8_array;
  size_t length = 0;
  void* data = NULL;
  if (is_typed)
    WTP_NAPI_CALL(env, napi_get_typedarray_info(env, argv[0], &type, &length,
                                                &data, NULL, NULL));
  if (!is_typed || type != napi_uint8_array) return type_error(env, error);
  napi_value result;
  WTP_NAPI_CALL(env, napi_get_boolean(env, op(data, length), &result));
  return result;
}

/* adviseHugePages(view) -> boolean: wtp__os_advise_huge_pages over the bytes
 * of a Uint8Array (the runner's, over a program's memory:
 * lib/program/memory.js). True when the OS took the advice. */
static napi_value js_advise_huge_pages(napi_env env, napi_callback_info info) {
  return call_on_bytes(env, info, "adviseHugePages: view must be a Uint8Array",
                       wtp__os_advise_huge_pages);
}

/* freeHugePagesReported() -> boolean: wtp__os_free_huge_pages_reported over
 * the system's sysfs (lib/program/memory.js: where it is true, a program's
 * memory is not advised for huge pages). */
static napi_value js_free_huge_pages_reported(napi_env env,
                                              napi_callback_info info) {
  (void)info;
  napi_value result;
  WTP_NAPI_CALL(
      env,
      napi_get_boolean(env, wtp__os_free_huge_pages_reported("/sys"), &result));
  return result;
}

/* releasePages(view) -> boolean: wtp__os_release_pages over the bytes of a
 * Uint8Array (the runner's, over the memory of a program whose every thread
 * has stopped: lib/program/memory.js). True when the OS took the pages. */
static napi_value js_release_pages(napi_env env, napi_callback_info info) {
  return call_on_bytes(env, info, "releasePages: view must be a Uint8Array",
                       wtp__os_release_pages);
}

#ifdef WTP_ADDON_TEST_HOOKS
static napi_value js_set_spin_limit(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GET_ARGS(env, info, 1, argv);
  int32_t limit;
  if (!get_int32_arg(env, argv[0], &limit))
    return type_error(env, "limit must be an int32");
  wtp__park_set_spin_limit(limit);
  return make_undefined(env);
}
#endif

/* ## Module */

static void env_data_finalize(napi_env env, void* data, void* hint) {
  (void)hint;
  env_data_t* d = (env_data_t*)data;
  if (d->noop_ref != NULL) napi_delete_reference(env, d->noop_ref);
  free(d);
}

static napi_value export_layout(napi_env env) {
  const struct {
    const char* name;
    double value;
  } constants[] = {
      {"PROTOCOL", WTP_PROTOCOL},
      {"HEADER_WORDS", WTP_HEADER_WORDS},
      {"SLOT_WORDS", WTP_SLOT_WORDS},
      {"H_GENERATION", WTP_H_GENERATION},
      {"H_NEXT_TID", WTP_H_NEXT_TID},
      {"H_SPAWNED", WTP_H_SPAWNED},
      {"H_WAITED", WTP_H_WAITED},
      {"H_DECLINED", WTP_H_DECLINED},
      {"H_SLOTS", WTP_H_SLOTS},
      {"H_CAPACITY", WTP_H_CAPACITY},
      {"H_IMPL", WTP_H_IMPL},
      {"S_STATE", WTP_S_STATE},
      {"S_TID", WTP_S_TID},
      {"S_ARG", WTP_S_ARG},
      {"S_FLAGS", WTP_S_FLAGS},
      {"S_THREAD", WTP_S_THREAD},
      {"PENDING", WTP_PENDING},
      {"IDLE", WTP_IDLE},
      {"CLAIMED", WTP_CLAIMED},
      {"ASSIGNED", WTP_ASSIGNED},
      {"RUNNING", WTP_RUNNING},
      {"RETIRED", WTP_RETIRED},
      {"FLAG_MESSAGE_DISPATCH", WTP_FLAG_MESSAGE_DISPATCH},
      {"MAX_TID", WTP_MAX_TID},
      {"GROW_AFTER_MS", WTP_GROW_AFTER_MS},
      {"DEFAULT_SPAWN_WAIT_MS", WTP_DEFAULT_SPAWN_WAIT_MS},
      {"IMPL_JS", WTP_IMPL_JS},
      {"IMPL_NATIVE", WTP_IMPL_NATIVE},
      {"REASON_POOL_EXHAUSTED", WTP_REASON_POOL_EXHAUSTED},
      {"REASON_WORKER_CREATE_FAILED", WTP_REASON_WORKER_CREATE_FAILED},
      {"REASON_TID_EXHAUSTED", WTP_REASON_TID_EXHAUSTED},
      {"REASON_DISPATCH_FAILED", WTP_REASON_DISPATCH_FAILED},
      {"REASON_INTERRUPTED", WTP_REASON_INTERRUPTED},
      {"REASON_TERMINATED", WTP_REASON_TERMINATED},
      {"IMPL_CLOSED", WTP_IMPL_CLOSED},
      {"IMPL_MASK", WTP_IMPL_MASK},
  };
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_object(env, &out));
  for (size_t i = 0; i < sizeof(constants) / sizeof(constants[0]); i++) {
    napi_value v;
    WTP_NAPI_CALL(env, napi_create_double(env, constants[i].value, &v));
    WTP_NAPI_CALL(env, napi_set_named_property(env, out, constants[i].name, v));
  }
  WTP_NAPI_CALL(env, napi_object_freeze(env, out));
  return out;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  const char* other_copy = wtp__other_addon_copy();
  if (other_copy != NULL) {
    char message[1400];
    snprintf(message, sizeof(message),
             "wasi-thread-pool: another copy of the native addon is already "
             "loaded in this process (%s); two copies keep separate wait "
             "tables and cannot share a native pool. Load one copy of the "
             "package (deduplicate it), or create pools with "
             "implementation: \"js\".",
             other_copy);
    napi_throw_error(env, "WASI_THREAD_POOL_ADDON_COPY", message);
    return NULL;
  }
  env_data_t* data = calloc(1, sizeof(*data));
  if (data == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  napi_value noop_fn;
  napi_status status =
      napi_create_function(env, "noop", NAPI_AUTO_LENGTH, noop, NULL, &noop_fn);
  if (status == napi_ok)
    status = napi_create_reference(env, noop_fn, 1, &data->noop_ref);
  if (status == napi_ok)
    status = napi_set_instance_data(env, data, env_data_finalize, NULL);
  if (status != napi_ok) {
    if (data->noop_ref != NULL) napi_delete_reference(env, data->noop_ref);
    free(data);
    throw_napi_failure(env, "module instance data", status);
    return NULL;
  }

  const napi_property_descriptor methods[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"createSpawner", NULL, js_create_spawner, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"spawn", NULL, js_spawn, NULL, NULL, NULL, napi_enumerable, NULL},
      {"serve", NULL, js_serve, NULL, NULL, NULL, napi_enumerable, NULL},
      {"interruptAll", NULL, js_interrupt_all, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"interruptThread", NULL, js_interrupt_thread, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"adviseHugePages", NULL, js_advise_huge_pages, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"releasePages", NULL, js_release_pages, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"freeHugePagesReported", NULL, js_free_huge_pages_reported, NULL, NULL,
       NULL, napi_enumerable, NULL},
  };
  WTP_NAPI_CALL(
      env, napi_define_properties(
               env, exports, sizeof(methods) / sizeof(methods[0]), methods));
  for (size_t i = 0; i < sizeof(pool_calls) / sizeof(pool_calls[0]); i++) {
    napi_property_descriptor method = {0};
    method.utf8name = pool_calls[i].name;
    method.method = js_pool_call;
    method.attributes = napi_enumerable;
    method.data = (void*)&pool_calls[i];
    WTP_NAPI_CALL(env, napi_define_properties(env, exports, 1, &method));
  }
  napi_value layout = export_layout(env);
  if (layout == NULL) return NULL;
  WTP_NAPI_CALL(env, napi_set_named_property(env, exports, "layout", layout));

  napi_value internal;
  WTP_NAPI_CALL(env, napi_create_object(env, &internal));
  const napi_property_descriptor internals[] = {
      {"runningThreads", NULL, js_running_threads, NULL, NULL, NULL,
       napi_enumerable, NULL},
#ifdef WTP_ADDON_TEST_HOOKS
      {"setSpinLimit", NULL, js_set_spin_limit, NULL, NULL, NULL,
       napi_enumerable, NULL},
#endif
  };
  WTP_NAPI_CALL(env, napi_define_properties(
                         env, internal,
                         sizeof(internals) / sizeof(internals[0]), internals));
  WTP_NAPI_CALL(env,
                napi_set_named_property(env, exports, "internal", internal));
#ifdef WTP_HAVE_WASI
  if (wtp__binding_wasi_init(env, exports) == NULL) return NULL;
#endif
  return exports;
}
