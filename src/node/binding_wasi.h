/* binding_wasi.h: the program WASI's Node-API glue (binding_wasi.c), built
 * on Linux, macOS and Windows (binding.gyp). */
#ifndef WTP_BINDING_WASI_H
#define WTP_BINDING_WASI_H

#include <node_api.h>

/* Adds wasiCreate, wasiImports, wasiDetach, wasiStop, wasiRelease and pipe
 * to exports. Returns exports, or NULL with a JS exception pending. */
napi_value wtp__binding_wasi_init(napi_env env, napi_value exports);

#endif /* WTP_BINDING_WASI_H */
