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
// 6 to 10 ms). Its identity is a text of:
//   - the module file: device, inode, size, mtime and ctime, in ns. ctime is
//     set by the kernel on every change to the file's content or metadata and
//     cannot be set by a program;
//   - the code that rewrote it: the same five of the CLI's one built file
//     (dist/cli-main.cjs, which holds every pass), the package's version;
//   - what the passes depend on: Node's version, the platform and CPU, whether
//     this engine has the Liftoff hazard, whether the memory pass is wanted
//     (WASI_THREAD_POOL_RESERVE_MEMORY).
// The whole identity is stored in the entry and compared, so the file name
// (a hash of it) only finds it.
//
// A file system's timestamps may be coarse (a second on some), and a file
// changed twice within one tick keeps its times. So, as git does with
// "racily clean" index entries, an entry is written only while the module
// file and the built file were last changed at least SETTLED_MS before they
// were read: a later change then falls in a later tick and gives another
// identity. The module is read between two stats that must agree.
//
// Where: WASI_THREAD_POOL_CACHE_DIR, else the user's cache directory
// (XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
// %LOCALAPPDATA% on Windows), then wasi-thread-pool/modules. The directory is
// made 0700 and used only when it is this user's and no one else can write to
// it (POSIX): an entry is code the runner runs. At most MAX_ENTRIES entries;
// the least recently used go first. The cache never fails a run: an entry
// that cannot be read, written or compiled is passed over (the passes run).
//
//   readModuleFile(file, {codeFile, enabled}) -> {bytes, store}
//     bytes: the module (readFileSync's errors are thrown as they are)
//     store: {get() -> Uint8Array | null, put(bytes)} for
//            compileWasiThreadGuestStored, or null (no cache for this run)
//   cacheWanted(env) -> boolean (WASI_THREAD_POOL_CACHE: 0 or 1)

import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { growthRemedyWanted } from "../worker/guest-memory.js";
import { liftoffHazardAffected } from "../worker/liftoff.js";
import { envSwitch } from "../worker/env-switch.js";

export const CACHE_ENV = "WASI_THREAD_POOL_CACHE";
export const CACHE_DIR_ENV = "WASI_THREAD_POOL_CACHE_DIR";

// Below this size the passes cost less than the entry's read.
export const MIN_MODULE_BYTES = 64 * 1024;
export const SETTLED_MS = 2000;
export const MAX_ENTRIES = 32;

const MAGIC = "wasi-thread-pool module cache 1\n";

export function cacheWanted(env = process.env) {
  return envSwitch(env, CACHE_ENV);
}

export function cacheDirectory(env = process.env, platform = process.platform) {
  if (env[CACHE_DIR_ENV]) return resolve(env[CACHE_DIR_ENV]);
  let base;
  if (platform === "win32") base = env.LOCALAPPDATA || join(homedir(), "AppData", "Local");
  else if (platform === "darwin") base = join(homedir(), "Library", "Caches");
  else base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "wasi-thread-pool", "modules");
}

export function readModuleFile(file, { codeFile = null, enabled = true, env = process.env } = {}) {
  const before = statOrNull(file);
  const bytes = readFileSync(file);
  if (!enabled || codeFile === null || before === null || bytes.length < MIN_MODULE_BYTES) return { bytes, store: null };
  const after = statOrNull(file);
  const code = statOrNull(codeFile);
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
  const now = BigInt(Date.now()) * 1000000n;
  const settled = [after, code].every(
    (s) => now - s.mtimeNs >= BigInt(SETTLED_MS) * 1000000n && now - s.ctimeNs >= BigInt(SETTLED_MS) * 1000000n,
  );
  return { bytes, store: entryStore(dir, identity, settled) };
}

function statOrNull(path) {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

const fileIdentity = (s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

let version = null;
function packageVersion() {
  version ??= JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
  return version;
}

// Two 32-bit FNV-1a style hashes of the identity: the entry's name (a
// collision only costs a miss: the identity inside is compared).
function nameOf(identity) {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < identity.length; i++) {
    const c = identity.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  const hex = (h) => (h >>> 0).toString(16).padStart(8, "0");
  return `${hex(a)}${hex(b)}.wasm`;
}

function entryStore(dir, identity, settled) {
  const path = join(dir, nameOf(identity));
  const header = Buffer.from(`${identity}\n\n`, "utf8");
  return {
    get: () => readEntry(dir, path, header),
    put: (bytes) => {
      if (settled) writeEntry(dir, path, header, bytes);
    },
  };
}

function readEntry(dir, path, header) {
  try {
    if (!trustedDirectory(dir)) return null;
    const entry = readFileSync(path);
    if (entry.length <= header.length || !entry.subarray(0, header.length).equals(header)) return null;
    const now = new Date();
    utimesSync(path, now, now); // recently used
    return new Uint8Array(entry.buffer, entry.byteOffset + header.length, entry.length - header.length);
  } catch {
    return null;
  }
}

// The temporary file is renamed over the entry: a reader sees a whole entry
// or none. Two runs writing the same entry write the same bytes.
function writeEntry(dir, path, header, bytes) {
  let temporary = null;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDirectory(dir)) return;
    temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
    const fd = openSync(temporary, "wx", 0o600);
    try {
      writeAll(fd, header);
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    temporary = null;
    prune(dir);
  } catch {
    // a cache that cannot be written is a cache that is not there
  } finally {
    if (temporary !== null) removeQuietly(temporary);
  }
}

function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

// POSIX: a directory (not a link to one) of this user's that only this user
// can write to. Windows: a directory (its ACLs are the profile's).
function trustedDirectory(dir) {
  const s = lstatSync(dir);
  if (!s.isDirectory()) return false;
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  return s.uid === process.getuid() && (s.mode & 0o022) === 0;
}

// The MAX_ENTRIES most recently used entries stay; temporary files an
// interrupted run left (an hour old) go too.
function prune(dir) {
  const entries = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const s = statOrNull(path);
    if (s === null) continue;
    if (name.endsWith(".tmp")) {
      if (Date.now() - Number(s.mtimeMs) > 3600 * 1000) removeQuietly(path);
    } else if (name.endsWith(".wasm")) entries.push({ path, used: s.mtimeNs });
  }
  entries.sort((a, b) => (a.used > b.used ? -1 : a.used < b.used ? 1 : 0));
  for (const { path } of entries.slice(MAX_ENTRIES)) removeQuietly(path);
}

function removeQuietly(path) {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove
  }
}
