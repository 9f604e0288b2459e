/* napi_util.h: what the Node-API glue files share (src/node/binding.c,
 * src/node/binding_wasi.c).
 *
 * WTP_NAPI_CALL names the Node-API call that failed in the thrown error and
 * returns NULL from the calling function (a JS exception is then pending);
 * WTP_NAPI_CALL_OR returns `failed` instead. A call that failed because
 * JavaScript already threw leaves that exception in place. */
#ifndef WTP_NAPI_UTIL_H
#define WTP_NAPI_UTIL_H

#include <stdbool.h>
#include <stdio.h>

#include <node_api.h>

#define WTP_NAPI_CALL_OR(env, call, failed)          \
  do {                                               \
    napi_status wtp_status_ = (call);                \
    if (wtp_status_ != napi_ok) {                    \
      throw_napi_failure((env), #call, wtp_status_); \
      return (failed);                               \
    }                                                \
  } while (0)
#define WTP_NAPI_CALL(env, call) WTP_NAPI_CALL_OR(env, call, NULL)

static inline void throw_napi_failure(napi_env env, const char* call,
                                      napi_status status) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  const napi_extended_error_info* info = NULL;
  napi_get_last_error_info(env, &info);
  char message[256];
  snprintf(message, sizeof(message), "wasi-thread-pool: %s failed: %s (%d)",
           call,
           info != NULL && info->error_message != NULL ? info->error_message
                                                       : "unknown error",
           (int)status);
  napi_throw_error(env, NULL, message);
}

#endif /* WTP_NAPI_UTIL_H */
