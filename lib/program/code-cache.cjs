// The runner's code cache: bin/wasi-thread-pool.js loads the CLI's built
// file (dist/cli-main.cjs) through loadWithCodeCache. V8 compiles the file's
// top level when it loads and each function the first time it runs: a run
// of a hello world compiles about 200 KB of the runner's bytecode, 6 to 7 ms
// of its main thread on Node 24. The cache keeps V8's code cache of the file
// as a run left it (vm.Script#createCachedData at the process's exit, which
// holds every function that run compiled), and the next run's compile takes
// it instead of compiling. Node's own compile cache (module.enableCompileCache)
// keeps only what the first compile made, the top level, and saves a third
// as much.
//
// The entry (lib/program/cache-dir.cjs: where, how it is named, written and
// trusted) is written by a run that reached its program (keepCode, called by
// the CLI): a run that only printed its usage compiled little. Its identity
// is the built file's identity, Node's and V8's versions, the platform and
// the CPU. V8 also refuses data made by another version or under other flags
// (cachedDataRejected): that run compiles as usual and writes the entry
// anew. WASI_THREAD_POOL_CACHE=0 loads the file with require, as does any
// failure to read it here.
//
//   loadWithCodeCache(file, env) -> {exports, keepCode(), cached}
//     cached: V8 took the entry's data

"use strict";

const { readFileSync } = require("node:fs");
const { createRequire, wrap } = require("node:module");
const { dirname } = require("node:path");
const { Script } = require("node:vm");
const { CACHE_ENV, cacheDirectory, cacheEntry, fileIdentity, fileStat, settled } = require("./cache-dir.cjs");

const MAGIC = "wasi-thread-pool code cache 1";
const KEEP = 4; // entries: a few Node versions or package copies side by side

function identityOf(stat) {
  return [
    MAGIC,
    `file ${fileIdentity(stat)}`,
    `node ${process.version} v8 ${process.versions.v8} ${process.platform} ${process.arch}`,
  ].join("\n");
}

// The file compiled with the entry's data, or null (no cache here).
function compileCached(file, env) {
  if (env[CACHE_ENV] === "0") return null;
  try {
    const before = fileStat(file);
    const source = readFileSync(file, "utf8");
    const after = fileStat(file);
    if (before === null || after === null || fileIdentity(before) !== fileIdentity(after)) return null;
    const entry = cacheEntry(cacheDirectory(env), identityOf(after), { suffix: ".code", keep: KEEP });
    const cachedData = entry.read() ?? undefined;
    const script = new Script(wrap(source), { filename: file, cachedData });
    const stale = cachedData === undefined || script.cachedDataRejected === true;
    const save = () => entry.write(script.createCachedData());
    return { script, cached: !stale, save: stale && settled(after) ? save : null };
  } catch {
    return null;
  }
}

function loadWithCodeCache(file, env = process.env) {
  const compiled = compileCached(file, env);
  if (compiled === null) return { exports: require(file), keepCode() {}, cached: false };
  const module = { exports: {} };
  compiled.script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  let kept = false;
  const keepCode = () => {
    if (kept || compiled.save === null) return;
    kept = true;
    process.once("exit", compiled.save);
  };
  return { exports: module.exports, keepCode, cached: compiled.cached };
}

module.exports = { loadWithCodeCache };
