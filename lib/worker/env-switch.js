// The package's on/off environment variables (WASI_THREAD_POOL_RESERVE_MEMORY,
// WASI_THREAD_POOL_CACHE, WASI_THREAD_POOL_HUGE_PAGES): unset, "" or "1" is
// on, "0" off, and any other value a RangeError that names the variable.
// Browser-safe (the caller passes the environment).
export function envSwitch(env, name) {
  const value = env[name];
  if (value === undefined || value === "" || value === "1") return true;
  if (value === "0") return false;
  throw new RangeError(`${name} must be 0 or 1, not ${JSON.stringify(value)}.`);
}
