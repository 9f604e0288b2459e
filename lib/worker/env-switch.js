// The package's environment variables. On/off switches
// (WASI_THREAD_POOL_RESERVE_MEMORY, WASI_THREAD_POOL_CACHE,
// WASI_THREAD_POOL_HUGE_PAGES): unset, "" or "1" is on, "0" off. Counts
// (WASI_THREAD_POOL_SPARE): unset or "" is the default, else a decimal
// integer in the count's range. Any other value is a RangeError that names
// the variable and what it may be. Browser-safe (the caller passes the
// environment).
export function envSwitch(env, name) {
  const value = env[name];
  if (value === undefined || value === "" || value === "1") return true;
  if (value === "0") return false;
  throw new RangeError(`${name} must be 0 or 1, not ${JSON.stringify(value)}.`);
}

// A count (see the top): its value, or `fallback`.
export function envCount(env, name, { least, most, fallback }) {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const count = Number(value);
  if (/^[0-9]+$/.test(value) && count >= least && count <= most) return count;
  throw new RangeError(`${name} must be an integer from ${least} to ${most}, not ${JSON.stringify(value)}.`);
}
