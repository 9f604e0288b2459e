/* binding_wasi.c: Node-API glue for the program's C WASI (src/wasi/wtp_wasi.h).
 *
 * A program's threads live in different Node workers, each with its own
 * napi_env, and all of them call into one wtp_wasi. So the WASIs live in a
 * process-wide registry, by integer id:
 *
 *   wasiCreate({args, env, preopens, stdio}) -> id   the supervisor (args,
 *                                                      env: strings or
 *                                                      Uint8Arrays)
 *   wasiImports(id, memory, onStopped) -> object     a thread attaches
 *   wasiDetach(object)                                 it detaches (or its
 *                                                      env's cleanup does)
 *   wasiStop(id)                                       the program has ended
 *   wasiRelease(id)                                    the supervisor is done
 *   pipe() -> [readFd, writeFd]                        stdio that is a stream
 *   exitProcess(code)                                  the CLI's program has
 *                                                      ended on a thread that
 *                                                      is not the main one
 *
 * ## The registry
 *
 * registry[id - 1] holds the reference wtp_wasi_create gave, until
 * wasiRelease(id) takes it out (NULL from then on: ids are never reused, so
 * a stale id never names another program's WASI). registry_lock guards the
 * array, its size and every slot; it is held only to look a slot up and
 * take a reference (wtp_wasi_retain), never across a call into the WASI, so
 * a stop or a release never waits for a blocked read.
 *
 * ## A thread's imports
 *
 * wasiImports makes one thread_ctx per attach: its own reference to the
 * WASI, the memory, and the calling thread's view of it. Every import
 * function's data points at one call_entry {ctx, import}. A thread_ctx is
 * used by one thread only (its env's), so none of its fields is shared.
 *
 * Lifetime: ctx->holds counts the import functions (each drops its hold in
 * its finalizer) plus one for the attachment itself, dropped by wasiDetach
 * or by the env's cleanup hook, whichever comes first (detach removes the
 * hook). The attachment owns the WASI reference and the napi references;
 * the struct is freed when the last hold goes. An import called after its
 * detach throws.
 *
 * ## The guest's memory
 *
 * Never an address kept across a call that could have moved it:
 *   - shared memory: its base never moves, it only grows. The view {base,
 *     size} comes from a Uint8Array over memory.buffer
 *     (napi_get_arraybuffer_info rejects a SharedArrayBuffer on Node 20) and
 *     is refreshed only when a call answers EFAULT (which means nothing
 *     happened), then the call is made once more;
 *   - non-shared memory: a grow detaches the ArrayBuffer and may move the
 *     memory. Every call checks the cached ArrayBuffer
 *     (napi_is_detached_arraybuffer) and re-reads memory.buffer when it is
 *     detached; EFAULT refreshes and retries as above.
 *
 * ## The stop
 *
 * A call that answers WTP_WASI_STOPPED must not return to the guest: the
 * import calls onStopped (the runner's park: an Atomics.wait that only the
 * worker's termination ends), and throws if it ever returns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <uv.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include <node_api.h>

#include "../os/wtp_mutex.h"
#include "../wasi/wtp_wasi.h"
#include "binding_wasi.h"
#include "napi_util.h"

/* The most parameters a preview1 import has (path_open: 9). */
#define MAX_PARAMS 9

/* ## The registry (see the header comment) */

static wtp__mutex registry_lock = WTP__MUTEX_INIT;
static wtp_wasi** registry;        /* registry[id - 1], NULL once released */
static uint32_t registry_size;     /* ids handed out so far */
static uint32_t registry_capacity; /* entries allocated */

/* Stores wasi under a new id; 0 when out of memory or ids. */
static uint32_t registry_add(wtp_wasi* wasi) {
  uint32_t id = 0;
  wtp__mutex_lock(&registry_lock);
  if (registry_size == registry_capacity && registry_capacity < INT32_MAX / 2) {
    uint32_t capacity = registry_capacity == 0 ? 16 : registry_capacity * 2;
    wtp_wasi** grown = realloc(registry, capacity * sizeof(*grown));
    if (grown != NULL) {
      registry = grown;
      registry_capacity = capacity;
    }
  }
  if (registry_size < registry_capacity) {
    registry[registry_size++] = wasi;
    id = registry_size;
  }
  wtp__mutex_unlock(&registry_lock);
  return id;
}

/* The WASI under id with a reference for the caller, or NULL. With take,
 * the registry's own reference is handed over instead and the slot
 * emptied. */
static wtp_wasi* registry_get(uint32_t id, bool take) {
  wtp_wasi* wasi = NULL;
  wtp__mutex_lock(&registry_lock);
  if (id >= 1 && id <= registry_size) {
    wasi = registry[id - 1];
    if (take)
      registry[id - 1] = NULL;
    else if (wasi != NULL)
      wtp_wasi_retain(wasi);
  }
  wtp__mutex_unlock(&registry_lock);
  return wasi;
}

/* ## Arguments */

static napi_value throw_kind(napi_env env, bool range, const char* message) {
  if (range)
    napi_throw_range_error(env, NULL, message);
  else
    napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* A registry id argument: a positive integer. 0 after a thrown error. */
static uint32_t get_id(napi_env env, napi_value value, const char* call) {
  char message[128];
  napi_valuetype type;
  double number = 0;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number ||
      napi_get_value_double(env, value, &number) != napi_ok) {
    snprintf(message, sizeof(message), "%s: id must be a number", call);
    throw_kind(env, false, message);
    return 0;
  }
  if (!(number >= 1 && number <= UINT32_MAX && number == (uint32_t)number)) {
    snprintf(message, sizeof(message), "%s: id must be a positive integer",
             call);
    throw_kind(env, true, message);
    return 0;
  }
  return (uint32_t)number;
}

/* A JS string as a malloc'd C string; NULL after a thrown TypeError naming
 * `what` (not a string, or it holds a NUL, which C would cut). */
static char* get_string(napi_env env, napi_value value, const char* what) {
  char message[192];
  napi_valuetype type;
  size_t length = 0;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string ||
      napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    snprintf(message, sizeof(message), "wasiCreate: %s must be a string", what);
    throw_kind(env, false, message);
    return NULL;
  }
  char* out = malloc(length + 1);
  if (out == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  napi_get_value_string_utf8(env, value, out, length + 1, &length);
  if (strlen(out) != length) {
    free(out);
    snprintf(message, sizeof(message),
             "wasiCreate: %s contains a NUL character", what);
    throw_kind(env, false, message);
    return NULL;
  }
  return out;
}

/* A program's argument or environment entry: a JS string (its UTF-8), or a
 * Uint8Array of the exact bytes (an entry that is not UTF-8: the CLI reads
 * such bytes from the host, lib/program/host-bytes.js). A malloc'd C
 * string; NULL after a thrown TypeError naming `what` (neither, or a NUL,
 * which C would cut). */
static char* get_bytes_or_string(napi_env env, napi_value value,
                                 const char* what) {
  char message[192];
  bool is_typedarray = false;
  if (napi_is_typedarray(env, value, &is_typedarray) != napi_ok ||
      !is_typedarray)
    return get_string(env, value, what);
  napi_typedarray_type type;
  size_t length = 0;
  void* data = NULL;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, NULL, NULL) !=
          napi_ok ||
      type != napi_uint8_array) {
    snprintf(message, sizeof(message),
             "wasiCreate: %s must be a string or a Uint8Array", what);
    throw_kind(env, false, message);
    return NULL;
  }
  if (length > 0 && memchr(data, 0, length) != NULL) {
    snprintf(message, sizeof(message),
             "wasiCreate: %s contains a NUL character", what);
    throw_kind(env, false, message);
    return NULL;
  }
  char* out = malloc(length + 1);
  if (out == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  if (length > 0) memcpy(out, data, length);
  out[length] = '\0';
  return out;
}

/* options[name]: undefined (-> *present false) or an array of strings (or
 * Uint8Arrays: get_bytes_or_string). */
static bool get_string_array(napi_env env, napi_value options, const char* name,
                             char*** out, uint32_t* count) {
  char message[160];
  napi_value value;
  napi_valuetype type;
  bool is_array = false;
  *out = NULL;
  *count = 0;
  if (napi_get_named_property(env, options, name, &value) != napi_ok ||
      napi_typeof(env, value, &type) != napi_ok)
    return false;
  if (type == napi_undefined) return true;
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array) {
    snprintf(message, sizeof(message),
             "wasiCreate: options.%s must be an array of strings", name);
    throw_kind(env, false, message);
    return false;
  }
  uint32_t length = 0;
  if (napi_get_array_length(env, value, &length) != napi_ok) return false;
  *out = calloc(length + 1, sizeof(char*));
  if (*out == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return false;
  }
  for (uint32_t i = 0; i < length; i++) {
    napi_value item;
    char what[64];
    snprintf(what, sizeof(what), "options.%s[%u]", name, i);
    if (napi_get_element(env, value, i, &item) != napi_ok) return false;
    (*out)[i] = get_bytes_or_string(env, item, what);
    if ((*out)[i] == NULL) return false;
    *count = i + 1;
  }
  return true;
}

static void free_strings(char** strings, uint32_t count) {
  if (strings == NULL) return;
  for (uint32_t i = 0; i < count; i++) free(strings[i]);
  free(strings);
}

/* options.preopens: undefined, or an array of [guestPath, hostPath]. */
typedef struct preopen_list {
  wtp_wasi_preopen* items;
  uint32_t count;
} preopen_list_t;

static void free_preopens(preopen_list_t* list) {
  for (uint32_t i = 0; i < list->count; i++) {
    free((char*)list->items[i].guest_path);
    free((char*)list->items[i].host_path);
  }
  free(list->items);
}

static bool get_preopens(napi_env env, napi_value options,
                         preopen_list_t* list) {
  napi_value value;
  napi_valuetype type;
  bool is_array = false;
  const char* shape =
      "wasiCreate: options.preopens must be an array of [guestPath, "
      "hostPath] pairs of strings";
  if (napi_get_named_property(env, options, "preopens", &value) != napi_ok ||
      napi_typeof(env, value, &type) != napi_ok)
    return false;
  if (type == napi_undefined) return true;
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array) {
    throw_kind(env, false, shape);
    return false;
  }
  uint32_t length = 0;
  if (napi_get_array_length(env, value, &length) != napi_ok) return false;
  list->items = calloc(length + 1, sizeof(*list->items));
  if (list->items == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return false;
  }
  for (uint32_t i = 0; i < length; i++) {
    napi_value pair, guest, host;
    uint32_t pair_length = 0;
    char what[64];
    if (napi_get_element(env, value, i, &pair) != napi_ok) return false;
    if (napi_is_array(env, pair, &is_array) != napi_ok || !is_array ||
        napi_get_array_length(env, pair, &pair_length) != napi_ok ||
        pair_length != 2) {
      throw_kind(env, false, shape);
      return false;
    }
    napi_get_element(env, pair, 0, &guest);
    napi_get_element(env, pair, 1, &host);
    list->count = i + 1;
    snprintf(what, sizeof(what), "options.preopens[%u][0]", i);
    list->items[i].guest_path = get_string(env, guest, what);
    if (list->items[i].guest_path == NULL) return false;
    snprintf(what, sizeof(what), "options.preopens[%u][1]", i);
    list->items[i].host_path = get_string(env, host, what);
    if (list->items[i].host_path == NULL) return false;
  }
  return true;
}

/* Windows: Node's fds are its C runtime's; the WASI takes the HANDLE behind
 * each (as an int, HandleToLong: src/wasi/wasi_table.h). A RangeError for
 * an fd that is not open. Elsewhere the fds are the host's descriptors. */
static bool host_stdio(napi_env env, int stdio[3]) {
#ifdef _WIN32
  for (uint32_t i = 0; i < 3; i++) {
    if (stdio[i] < 0) continue;
    uv_os_fd_t handle = uv_get_osfhandle(stdio[i]);
    if (handle == INVALID_HANDLE_VALUE) {
      char message[128];
      snprintf(message, sizeof(message),
               "wasiCreate: options.stdio[%u] (%d) is not an open file "
               "descriptor",
               i, stdio[i]);
      throw_kind(env, true, message);
      return false;
    }
    stdio[i] = (int)HandleToLong(handle);
  }
#else
  (void)env, (void)stdio;
#endif
  return true;
}

/* options.stdio: undefined ([0, 1, 2]) or an array of three host
 * descriptors, each an integer >= -1 (-1: that fd closed in the program). */
static bool get_stdio(napi_env env, napi_value options, int stdio[3]) {
  napi_value value;
  napi_valuetype type;
  bool is_array = false;
  uint32_t length = 0;
  stdio[0] = 0, stdio[1] = 1, stdio[2] = 2;
  if (napi_get_named_property(env, options, "stdio", &value) != napi_ok ||
      napi_typeof(env, value, &type) != napi_ok)
    return false;
  if (type == napi_undefined) return host_stdio(env, stdio);
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, value, &length) != napi_ok || length != 3) {
    throw_kind(env, false,
               "wasiCreate: options.stdio must be an array of three file "
               "descriptors");
    return false;
  }
  for (uint32_t i = 0; i < 3; i++) {
    napi_value item;
    double number = 0;
    char message[128];
    napi_get_element(env, value, i, &item);
    if (napi_typeof(env, item, &type) != napi_ok || type != napi_number) {
      snprintf(message, sizeof(message),
               "wasiCreate: options.stdio[%u] must be a number", i);
      throw_kind(env, false, message);
      return false;
    }
    napi_get_value_double(env, item, &number);
    if (!(number >= -1 && number <= INT32_MAX && number == (int)number)) {
      snprintf(message, sizeof(message),
               "wasiCreate: options.stdio[%u] must be a file descriptor "
               "(an integer >= 0) or -1",
               i);
      throw_kind(env, true, message);
      return false;
    }
    stdio[i] = (int)number;
  }
  return host_stdio(env, stdio);
}

/* ## wasiCreate */

static napi_value js_wasi_create(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value options;
  napi_valuetype type;
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, &options, NULL, NULL));
  if (argc < 1 || napi_typeof(env, options, &type) != napi_ok ||
      type != napi_object)
    return throw_kind(env, false, "wasiCreate: options must be an object");

  char **args = NULL, **environ_ = NULL;
  uint32_t args_count = 0, env_count = 0;
  preopen_list_t preopens = {NULL, 0};
  wtp_wasi_config config;
  memset(&config, 0, sizeof(config));
  napi_value result = NULL;
  if (get_string_array(env, options, "args", &args, &args_count) &&
      get_string_array(env, options, "env", &environ_, &env_count) &&
      get_preopens(env, options, &preopens) &&
      get_stdio(env, options, config.stdio)) {
    config.args = (const char* const*)args;
    config.args_count = args_count;
    config.env = (const char* const*)environ_;
    config.env_count = env_count;
    config.preopens = preopens.items;
    config.preopen_count = preopens.count;
    wtp_wasi* wasi = NULL;
    char error[512] = "";
    int failure = wtp_wasi_create(&config, &wasi, error, sizeof(error));
    if (failure != 0) {
      /* The core's message names what failed and why; else the errno. */
      char message[640];
      if (error[0] != '\0')
        snprintf(message, sizeof(message), "wasiCreate: %s", error);
      else
        snprintf(message, sizeof(message),
                 "wasiCreate: the WASI could not be made (%s)",
                 strerror(failure));
      napi_throw_error(env, NULL, message);
    } else {
      uint32_t id = registry_add(wasi);
      if (id == 0) {
        wtp_wasi_release(wasi);
        napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
      } else if (napi_create_uint32(env, id, &result) != napi_ok) {
        /* Not reachable in practice; the id stays valid until released. */
        result = NULL;
      }
    }
  }
  free_strings(args, args_count);
  free_strings(environ_, env_count);
  free_preopens(&preopens);
  return result;
}

/* ## A thread's imports */

typedef struct thread_ctx thread_ctx_t;

typedef struct call_entry {
  thread_ctx_t* ctx;
  const wtp_wasi_import* import;
} call_entry_t;

struct thread_ctx {
  wtp_wasi* wasi;       /* our reference; NULL once detached */
  napi_env env;         /* the thread that attached */
  napi_ref memory_ref;  /* the WebAssembly.Memory */
  napi_ref buffer_ref;  /* the (Shared)ArrayBuffer the view is over: kept
                           alive while the view points into it */
  napi_ref stopped_ref; /* onStopped */
  napi_ref uint8_ref;   /* shared: the Uint8Array constructor */
  bool shared;          /* the memory is a SharedArrayBuffer's */
  wtp_wasi_memory view; /* valid until a grow (see the header comment) */
  uint32_t holds;       /* functions alive + 1 while attached */
  uint32_t count;       /* entries in calls */
  call_entry_t calls[]; /* one per import function */
};

static const napi_type_tag imports_tag = {0x6b1f3d84a29c5e07ULL,
                                          0xd35e08a7f14b6c92ULL};

static void ctx_drop(thread_ctx_t* ctx) {
  if (--ctx->holds == 0) free(ctx);
}

/* Ends the attachment: the WASI reference and the napi references go. */
static void ctx_detach(thread_ctx_t* ctx) {
  if (ctx->wasi == NULL) return;
  wtp_wasi_release(ctx->wasi);
  ctx->wasi = NULL;
  napi_ref* refs[] = {&ctx->memory_ref, &ctx->buffer_ref, &ctx->stopped_ref,
                      &ctx->uint8_ref};
  for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
    if (*refs[i] != NULL) napi_delete_reference(ctx->env, *refs[i]);
    *refs[i] = NULL;
  }
  ctx_drop(ctx);
}

static void ctx_cleanup_hook(void* data) { ctx_detach(data); }

static void function_finalize(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  ctx_drop(data);
}

/* Re-reads memory.buffer into ctx->view. Returns false with an exception
 * pending. */
static bool refresh_view(napi_env env, thread_ctx_t* ctx) {
  napi_value memory, buffer;
  if (napi_get_reference_value(env, ctx->memory_ref, &memory) != napi_ok ||
      napi_get_named_property(env, memory, "buffer", &buffer) != napi_ok)
    return false;
  if (!ctx->shared) {
    void* data = NULL;
    size_t length = 0;
    if (napi_get_arraybuffer_info(env, buffer, &data, &length) != napi_ok)
      return false;
    if (ctx->buffer_ref != NULL) napi_delete_reference(env, ctx->buffer_ref);
    ctx->buffer_ref = NULL;
    if (napi_create_reference(env, buffer, 1, &ctx->buffer_ref) != napi_ok)
      return false;
    ctx->view.base = data;
    ctx->view.size = length;
    return true;
  }
  napi_value constructor, view;
  napi_typedarray_type type;
  size_t length = 0;
  void* data = NULL;
  if (napi_get_reference_value(env, ctx->uint8_ref, &constructor) != napi_ok ||
      napi_new_instance(env, constructor, 1, &buffer, &view) != napi_ok ||
      napi_get_typedarray_info(env, view, &type, &length, &data, NULL, NULL) !=
          napi_ok)
    return false;
  if (ctx->buffer_ref != NULL) napi_delete_reference(env, ctx->buffer_ref);
  ctx->buffer_ref = NULL;
  if (napi_create_reference(env, view, 1, &ctx->buffer_ref) != napi_ok)
    return false;
  ctx->view.base = data;
  ctx->view.size = length;
  return true;
}

/* Non-shared memory: the view is stale once the guest grew its memory. */
static bool view_current(napi_env env, thread_ctx_t* ctx) {
  if (ctx->shared) return true;
  napi_value buffer;
  bool detached = true;
  if (ctx->buffer_ref != NULL &&
      napi_get_reference_value(env, ctx->buffer_ref, &buffer) == napi_ok &&
      buffer != NULL)
    napi_is_detached_arraybuffer(env, buffer, &detached);
  return !detached || refresh_view(env, ctx);
}

static napi_value call_import(napi_env env, napi_callback_info info) {
  size_t argc = MAX_PARAMS;
  napi_value argv[MAX_PARAMS];
  void* data = NULL;
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, &data));
  const call_entry_t* entry = data;
  thread_ctx_t* ctx = entry->ctx;
  const char* params = entry->import->params;
  if (ctx->wasi == NULL) {
    napi_throw_error(env, NULL,
                     "wasi-thread-pool: a WASI import was called after its "
                     "thread detached");
    return NULL;
  }
  uint64_t args[MAX_PARAMS] = {0};
  for (size_t i = 0; params[i] != '\0'; i++) {
    napi_status status;
    if (params[i] == 'I') {
      bool lossless;
      status = i < argc ? napi_get_value_bigint_uint64(env, argv[i], &args[i],
                                                       &lossless)
                        : napi_bigint_expected;
    } else {
      int32_t value = 0;
      status = i < argc ? napi_get_value_int32(env, argv[i], &value)
                        : napi_number_expected;
      args[i] = (uint32_t)value; /* an i32 is zero-extended */
    }
    if (status != napi_ok) {
      char message[160];
      snprintf(message, sizeof(message), "%s: argument %zu must be a %s",
               entry->import->name, i, params[i] == 'I' ? "BigInt" : "Number");
      return throw_kind(env, false, message);
    }
  }
  if (!view_current(env, ctx)) return NULL;
  uint32_t result = entry->import->call(ctx->wasi, &ctx->view, args);
  if (result == WTP_WASI_EFAULT) {
    /* Nothing happened: the memory may have grown (on another thread, for a
     * shared one) since the view was taken. */
    wtp_wasi_memory before = ctx->view;
    if (!refresh_view(env, ctx)) return NULL;
    if (ctx->view.base != before.base || ctx->view.size != before.size)
      result = entry->import->call(ctx->wasi, &ctx->view, args);
  }
  if (result == WTP_WASI_STOPPED) {
    napi_value stopped, global, ignored;
    WTP_NAPI_CALL(env,
                  napi_get_reference_value(env, ctx->stopped_ref, &stopped));
    WTP_NAPI_CALL(env, napi_get_global(env, &global));
    /* Parks until the worker is terminated (then fails: termination). */
    if (napi_call_function(env, global, stopped, 0, NULL, &ignored) != napi_ok)
      return NULL;
    napi_throw_error(env, NULL,
                     "wasi-thread-pool: the program has stopped (onStopped "
                     "returned)");
    return NULL;
  }
  napi_value out;
  WTP_NAPI_CALL(env, napi_create_uint32(env, result, &out));
  return out;
}

/* wasiImports(id, memory, onStopped) */
/* memory instanceof WebAssembly.Memory (its buffer is then an ArrayBuffer,
 * non-shared, or a SharedArrayBuffer); sets *plain for a non-shared one.
 * false with a TypeError pending otherwise. */
static bool check_memory(napi_env env, napi_value global, napi_value memory,
                         bool* plain) {
  napi_value wasm_ns, memory_class, buffer;
  napi_valuetype type;
  bool is_memory = false;
  WTP_NAPI_CALL_OR(
      env, napi_get_named_property(env, global, "WebAssembly", &wasm_ns),
      false);
  WTP_NAPI_CALL_OR(
      env, napi_get_named_property(env, wasm_ns, "Memory", &memory_class),
      false);
  WTP_NAPI_CALL_OR(env, napi_typeof(env, memory, &type), false);
  if (type == napi_object)
    WTP_NAPI_CALL_OR(
        env, napi_instanceof(env, memory, memory_class, &is_memory), false);
  if (!is_memory) {
    throw_kind(env, false, "wasiImports: memory must be a WebAssembly.Memory");
    return false;
  }
  WTP_NAPI_CALL_OR(env, napi_get_named_property(env, memory, "buffer", &buffer),
                   false);
  WTP_NAPI_CALL_OR(env, napi_is_arraybuffer(env, buffer, plain), false);
  return true;
}

/* A thread's attachment to WASI id with room for every import, holding one
 * WASI reference; NULL with an exception pending. */
static thread_ctx_t* ctx_new(napi_env env, uint32_t id, bool plain) {
  size_t count = 0;
  while (wtp_wasi_imports[count].name != NULL) count++;
  thread_ctx_t* ctx = calloc(1, sizeof(*ctx) + count * sizeof(call_entry_t));
  if (ctx == NULL) {
    napi_throw_error(env, NULL, "wasi-thread-pool: out of memory");
    return NULL;
  }
  ctx->env = env;
  ctx->shared = !plain;
  ctx->holds = 1;
  ctx->count = (uint32_t)count;
  ctx->wasi = registry_get(id, false);
  if (ctx->wasi == NULL) {
    free(ctx);
    char message[128];
    snprintf(message, sizeof(message),
             "wasiImports: id %u names no WASI (never made, or released)", id);
    throw_kind(env, true, message);
    return NULL;
  }
  return ctx;
}

/* The JavaScript the attachment keeps (memory, onStopped, Uint8Array) and
 * the imports object that owns it; a status other than napi_ok on failure. */
static napi_status ctx_hold_js(napi_env env, thread_ctx_t* ctx,
                               napi_value global, napi_value memory,
                               napi_value on_stopped, napi_value* out) {
  napi_value uint8;
  napi_status status = napi_create_reference(env, memory, 1, &ctx->memory_ref);
  if (status == napi_ok)
    status = napi_create_reference(env, on_stopped, 1, &ctx->stopped_ref);
  if (status == napi_ok)
    status = napi_get_named_property(env, global, "Uint8Array", &uint8);
  if (status == napi_ok)
    status = napi_create_reference(env, uint8, 1, &ctx->uint8_ref);
  if (status == napi_ok) status = napi_create_object(env, out);
  if (status == napi_ok) status = napi_type_tag_object(env, *out, &imports_tag);
  if (status == napi_ok) status = napi_wrap(env, *out, ctx, NULL, NULL, NULL);
  if (status == napi_ok)
    status = napi_add_env_cleanup_hook(env, ctx_cleanup_hook, ctx);
  return status;
}

/* One function per import on out, each holding ctx; on failure the
 * functions made so far stay (and keep ctx alive): detached, they throw when
 * called. */
static napi_status add_import_functions(napi_env env, thread_ctx_t* ctx,
                                        napi_value out) {
  for (size_t i = 0; i < ctx->count; i++) {
    napi_value fn;
    ctx->calls[i].ctx = ctx;
    ctx->calls[i].import = &wtp_wasi_imports[i];
    napi_status status =
        napi_create_function(env, wtp_wasi_imports[i].name, NAPI_AUTO_LENGTH,
                             call_import, &ctx->calls[i], &fn);
    if (status == napi_ok)
      status = napi_set_named_property(env, out, wtp_wasi_imports[i].name, fn);
    if (status == napi_ok) {
      ctx->holds++;
      status = napi_add_finalizer(env, fn, ctx, function_finalize, NULL, NULL);
      if (status != napi_ok) ctx->holds--;
    }
    if (status != napi_ok) return status;
  }
  return napi_ok;
}

/* wasiImports(id, memory, onStopped): a thread's wasi_snapshot_preview1
 * functions over WASI id and its view of memory. */
static napi_value js_wasi_imports(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], global, out;
  napi_valuetype type;
  bool plain = false;
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3)
    return throw_kind(env, false,
                      "wasiImports: expected (id, memory, onStopped)");
  uint32_t id = get_id(env, argv[0], "wasiImports");
  if (id == 0) return NULL;
  WTP_NAPI_CALL(env, napi_get_global(env, &global));
  if (!check_memory(env, global, argv[1], &plain)) return NULL;
  WTP_NAPI_CALL(env, napi_typeof(env, argv[2], &type));
  if (type != napi_function)
    return throw_kind(env, false, "wasiImports: onStopped must be a function");
  thread_ctx_t* ctx = ctx_new(env, id, plain);
  if (ctx == NULL) return NULL;
  /* From here on the attachment owns the reference: a failure detaches. */
  napi_status status = ctx_hold_js(env, ctx, global, argv[1], argv[2], &out);
  if (status != napi_ok) {
    throw_napi_failure(env, "wasiImports", status);
    ctx_detach(ctx);
    return NULL;
  }
  status = add_import_functions(env, ctx, out);
  if (status != napi_ok) throw_napi_failure(env, "wasiImports", status);
  if (status == napi_ok && !refresh_view(env, ctx))
    throw_napi_failure(env, "wasiImports: memory.buffer",
                       status = napi_generic_failure);
  if (status != napi_ok) {
    napi_remove_env_cleanup_hook(env, ctx_cleanup_hook, ctx);
    ctx_detach(ctx);
    return NULL;
  }
  return out;
}

/* wasiDetach(imports): drops the thread's reference now, rather than at the
 * end of its env. Idempotent. */
static napi_value js_wasi_detach(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value object;
  bool tagged = false;
  napi_valuetype type = napi_undefined;
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, &object, NULL, NULL));
  if (argc >= 1) WTP_NAPI_CALL(env, napi_typeof(env, object, &type));
  if (type == napi_object)
    WTP_NAPI_CALL(
        env, napi_check_object_type_tag(env, object, &imports_tag, &tagged));
  if (!tagged)
    return throw_kind(env, false,
                      "wasiDetach: imports must be an object from wasiImports");
  void* data = NULL;
  if (napi_remove_wrap(env, object, &data) == napi_ok && data != NULL) {
    thread_ctx_t* ctx = data;
    if (ctx->wasi != NULL) {
      napi_remove_env_cleanup_hook(env, ctx_cleanup_hook, ctx);
      ctx_detach(ctx);
    }
  }
  napi_value out;
  WTP_NAPI_CALL(env, napi_get_undefined(env, &out));
  return out;
}

/* wasiStop(id) and wasiRelease(id). A released id stops and releases
 * nothing (idempotent). */
static napi_value js_wasi_stop_or_release(napi_env env,
                                          napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  void* data = NULL;
  napi_value undefined;
  WTP_NAPI_CALL(env, napi_get_undefined(env, &undefined));
  WTP_NAPI_CALL(env, napi_get_cb_info(env, info, &argc, &arg, NULL, &data));
  bool release = data != NULL;
  const char* call = release ? "wasiRelease" : "wasiStop";
  if (argc < 1) WTP_NAPI_CALL(env, napi_get_undefined(env, &arg));
  uint32_t id = get_id(env, arg, call);
  if (id == 0) return NULL;
  wtp_wasi* wasi = registry_get(id, release);
  if (wasi == NULL) return undefined;
  if (!release) wtp_wasi_stop(wasi);
  wtp_wasi_release(wasi);
  return undefined;
}

/* Closes an fd of Node's: on Windows node.exe's C runtime owns it, and only
 * its own close (libuv's synchronous uv_fs_close) frees it and its handle. */
static void close_fd(int fd) {
#ifdef _WIN32
  uv_fs_t req;
  uv_fs_close(uv_default_loop(), &req, fd, NULL);
  uv_fs_req_cleanup(&req);
#else
  close(fd);
#endif
}

/* A pipe's two descriptors, [read, write], blocking, not inherited by
 * children: 0, or a message in `error`.
 * Windows: CreatePipe of 64 KiB (anonymous: synchronous handles, which Node's
 * net.Socket reads and writes through libuv's threads, and the WASI's pipe
 * I/O looks at before it calls, src/wasi/wasi_fd_windows.c), each handle
 * made a C runtime fd of node.exe's with uv_open_osfhandle so that Node's
 * fs and net take it (and fs.closeSync closes the handle). */
static int make_pipe(int fds[2], char* error, size_t error_size) {
#ifdef _WIN32
  HANDLE ends[2];
  /* 64 KiB, a Linux pipe's capacity (the default is 4 KiB). */
  if (!CreatePipe(&ends[0], &ends[1], NULL, 65536)) {
    snprintf(error, error_size, "pipe: Windows error %lu",
             (unsigned long)GetLastError());
    return -1;
  }
  for (int i = 0; i < 2; i++) {
    fds[i] = uv_open_osfhandle(ends[i]);
    if (fds[i] < 0) {
      snprintf(error, error_size, "pipe: %s", uv_strerror(fds[i]));
      if (i == 1) close_fd(fds[0]); /* closes ends[0] too */
      CloseHandle(ends[1]);
      if (i == 0) CloseHandle(ends[0]);
      return -1;
    }
  }
  return 0;
#else
  if (pipe(fds) != 0) {
    snprintf(error, error_size, "pipe: %s", strerror(errno));
    return -1;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
#endif
}

static void close_pipe(const int fds[2]) {
  close_fd(fds[0]);
  close_fd(fds[1]);
}

/* pipe() -> [readFd, writeFd], both close-on-exec and blocking. */
static napi_value js_pipe(napi_env env, napi_callback_info info) {
  (void)info;
  int fds[2];
  char message[128];
  if (make_pipe(fds, message, sizeof(message)) != 0) {
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  napi_value out, v;
  napi_status status = napi_create_array_with_length(env, 2, &out);
  for (uint32_t i = 0; i < 2 && status == napi_ok; i++) {
    status = napi_create_int32(env, fds[i], &v);
    if (status == napi_ok) status = napi_set_element(env, out, i, v);
  }
  if (status != napi_ok) {
    close_pipe(fds);
    throw_napi_failure(env, "pipe", status);
    return NULL;
  }
  return out;
}

/* exitProcess(code): ends the whole process at once with status code & 0xff
 * (_exit; TerminateProcess on Windows, its equivalent: no atexit handlers,
 * no DLL detach, no static destructors while other threads still run V8,
 * nothing buffered in C stdio to lose: the WASI writes with write(2) or
 * WriteFile). Used by the CLI, whose process is the program's, when a
 * thread other than the main one ends the program (the main thread may be
 * blocked in guest code that only the process's end can stop). Never
 * returns. */
static napi_value js_exit_process(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  int32_t code = 1;
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok ||
      argc < 1 || napi_get_value_int32(env, arg, &code) != napi_ok)
    code = 1;
#ifdef _WIN32
  TerminateProcess(GetCurrentProcess(), (UINT)(code & 0xff));
  for (;;) Sleep(INFINITE); /* TerminateProcess does not return here */
#else
  _exit(code & 0xff);
#endif
}

napi_value wtp__binding_wasi_init(napi_env env, napi_value exports) {
  static const int release_marker = 1;
  const napi_property_descriptor methods[] = {
      {"wasiCreate", NULL, js_wasi_create, NULL, NULL, NULL, napi_enumerable,
       NULL},
      {"wasiImports", NULL, js_wasi_imports, NULL, NULL, NULL, napi_enumerable,
       NULL},
      {"wasiDetach", NULL, js_wasi_detach, NULL, NULL, NULL, napi_enumerable,
       NULL},
      {"wasiStop", NULL, js_wasi_stop_or_release, NULL, NULL, NULL,
       napi_enumerable, NULL},
      {"wasiRelease", NULL, js_wasi_stop_or_release, NULL, NULL, NULL,
       napi_enumerable, (void*)&release_marker},
      {"pipe", NULL, js_pipe, NULL, NULL, NULL, napi_enumerable, NULL},
      {"exitProcess", NULL, js_exit_process, NULL, NULL, NULL, napi_enumerable,
       NULL},
  };
  WTP_NAPI_CALL(
      env, napi_define_properties(
               env, exports, sizeof(methods) / sizeof(methods[0]), methods));
  return exports;
}
