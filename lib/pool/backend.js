// The native backend of this thread's pool API, or none.
//
// lib/pool/api.js follows each pool's own implementation tag, whatever thread
// calls it; to follow a native tag it needs the addon. Browser-safe code
// cannot import the addon loader, so the Node entries hand it over instead:
// lib/native/backend.js (imported by lib/pool.js and lib/index.js) calls
// useNativeBackend once, when it is evaluated. Until then (and always in a
// browser) `native` is null and this thread has only the JS twin.
//
// Internal: no entry point exports this module.

export const backend = {
  // { binding, error, path, threadId } from lib/native/binding.js, or null: no addon
  // loader in this thread (browser build).
  native: null,
  // native.binding, the addon's functions, or null.
  addon: null,
  // Environment variables to read WASI_THREAD_POOL_IMPLEMENTATION from, or null.
  env: null,
  // Called before this thread's first native call (lib/native-hooks.js).
  beforeNativeUse: () => {},
};

export function useNativeBackend({ native, env, beforeNativeUse }) {
  backend.native = native;
  backend.addon = native?.binding ?? null;
  backend.env = env;
  backend.beforeNativeUse = beforeNativeUse;
}
