// The CLI's module cache (docs/runner.md, "The module cache"). Before a
// wasi-threads program compiles, the runner rewrites it: the memory pass and
// the Liftoff pass (compileWasiThreadGuest), tens of ms of the main thread for
// a large module, on every run. The cache keeps the bytes the passes made,
// one file per module, so that a later run of the same module file compiles
// them at once; wasmtime's CLI keeps its compiled code the same way, on by
// default (-C cache=n turns both off).
//
// An entry is found without reading or hashing the module (reading and
// hashing it would cost about what the passes do: node:crypto alone loads in
// 6 to 10 ms). Its identity (lib/program/cache-dir.cjs says how entries are
// named, kept and trusted) is a text of:
//   - the module file's identity;
//   - the code that rewrote it: the identity of the CLI's one built file
//     (dist/cli-main.cjs, which holds every pass), the package's version;
//   - what the passes depend on: Node's version, the platform and CPU, whether
//     this engine has the Liftoff hazard, whether the memory pass is wanted
//     (WASI_THREAD_POOL_RESERVE_MEMORY).
// The module is read between two stats that must agree. At most MAX_ENTRIES
// entries; the least recently used go first.
//
//   readModuleFile(file, {codeFile, enabled}) -> {bytes, store}
//     bytes: the module (readFileSync's errors are thrown as they are)
//     store: {get() -> Uint8Array | null, compile() -> Promise | null,
//            put(bytes)} for compileWasiThreadGuestStored, or null (no cache
//            for this run)
//   cacheWanted(env) -> boolean (WASI_THREAD_POOL_CACHE: 0 or 1)

import { readFileSync } from "node:fs";
import {
  CACHE_DIR_ENV,
  CACHE_ENV,
  SETTLED_MS,
  cacheDirectory,
  cacheEntry,
  fileIdentity,
  fileStat,
  settled,
} from "./cache-dir.cjs";
import { growthRemedyWanted } from "../worker/guest-memory.js";
import { liftoffHazardAffected } from "../worker/liftoff.js";
import { envSwitch } from "../worker/env-switch.js";

export { CACHE_ENV, CACHE_DIR_ENV, SETTLED_MS, cacheDirectory };

// Below this size the passes cost less than the entry's read.
export const MIN_MODULE_BYTES = 64 * 1024;
export const MAX_ENTRIES = 32;

const MAGIC = "wasi-thread-pool module cache 1\n";

export function cacheWanted(env = process.env) {
  return envSwitch(env, CACHE_ENV);
}

export function readModuleFile(file, { codeFile = null, enabled = true, env = process.env } = {}) {
  const before = fileStat(file);
  const bytes = readFileSync(file);
  if (!enabled || codeFile === null || before === null || bytes.length < MIN_MODULE_BYTES) return { bytes, store: null };
  const after = fileStat(file);
  const code = fileStat(codeFile);
  if (after === null || code === null || fileIdentity(before) !== fileIdentity(after)) return { bytes, store: null };
  const dir = cacheDirectory(env);
  let identity;
  try {
    identity = [
      MAGIC.trim(),
      `module ${fileIdentity(after)}`,
      `code ${fileIdentity(code)} ${packageVersion()}`,
      `node ${process.version} ${process.platform} ${process.arch}`,
      `passes liftoff=${liftoffHazardAffected()} memory=${growthRemedyWanted(env)}`,
    ].join("\n");
  } catch {
    // A bad WASI_THREAD_POOL_RESERVE_MEMORY: no cache, and the compile says why.
    return { bytes, store: null };
  }
  return { bytes, store: entryStore(dir, identity, settled(after, code)) };
}

let version = null;
function packageVersion() {
  version ??= JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
  return version;
}

function entryStore(dir, identity, settledNow) {
  const entry = cacheEntry(dir, identity, { suffix: ".wasm", keep: MAX_ENTRIES });
  let read; // {bytes}: read once
  let compiling = null;
  const get = () => (read ??= { bytes: entry.read() }).bytes;
  return {
    get,
    // The entry's compile, started once: the CLI starts it as soon as it has
    // read the module, so that V8 compiles on its own threads while the main
    // thread starts the spare worker and checks the module. Null without an
    // entry.
    compile() {
      if (compiling === null && get() !== null) compiling = WebAssembly.compile(get());
      return compiling;
    },
    put: (bytes) => {
      if (settledNow) entry.write(bytes);
    },
  };
}
