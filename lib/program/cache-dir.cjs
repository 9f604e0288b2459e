// The CLI's cache directory and its entries, for the two caches kept there:
// the module cache (the module's rewritten bytes, lib/program/module-cache.js)
// and the code cache (the runner's own compiled JavaScript,
// lib/program/code-cache.cjs). CommonJS, so that bin/wasi-thread-pool.js can
// use it before it loads the CLI's built file.
//
// Where: WASI_THREAD_POOL_CACHE_DIR, else the user's cache directory
// (XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
// %LOCALAPPDATA% on Windows), then wasi-thread-pool/modules. The directory is
// made 0700 and used only when it is this user's and no one else can write to
// it (POSIX): every entry is code the runner runs. WASI_THREAD_POOL_CACHE=0
// turns both caches off.
//
// An entry is one file: a header (its whole identity, compared on read),
// then its bytes. It is found without reading or hashing what it was made
// from; its identity names files by device, inode, size, mtime and ctime in
// ns (fileIdentity). ctime is set by the kernel on every change to a file's
// content or metadata and cannot be set by a program. A file system's
// timestamps may be coarse (a second on some) and a file changed twice
// within one tick keeps its times, so, as git does with "racily clean" index
// entries, an entry is written only while those files were last changed at
// least SETTLED_MS before they were read (settled): a later change then falls
// in a later tick and gives another identity. The cache never fails a run:
// an entry that cannot be read or written is passed over.
//
//   cacheDirectory(env, platform) -> the directory
//   fileStat(path) -> a bigint Stats, or null
//   fileIdentity(stats) -> text
//   settled(stats...) -> boolean
//   cacheEntry(dir, identity, {suffix, keep}) -> {read(), write(bytes)}: the
//     entry of that identity, a file named by a hash of it and `suffix`.
//     read() -> Uint8Array | null (the bytes after the header). write(bytes)
//     is atomic (a reader sees a whole entry or none), then the `keep` most
//     recently used entries whose names end with `suffix` stay.

"use strict";

const {
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
} = require("node:fs");
const { join, resolve } = require("node:path");

const CACHE_ENV = "WASI_THREAD_POOL_CACHE";
const CACHE_DIR_ENV = "WASI_THREAD_POOL_CACHE_DIR";
const SETTLED_MS = 2000;

// node:os is loaded only where the default directory is asked for.
function cacheDirectory(env = process.env, platform = process.platform) {
  if (env[CACHE_DIR_ENV]) return resolve(env[CACHE_DIR_ENV]);
  const { homedir } = require("node:os");
  let base;
  if (platform === "win32") base = env.LOCALAPPDATA || join(homedir(), "AppData", "Local");
  else if (platform === "darwin") base = join(homedir(), "Library", "Caches");
  else base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "wasi-thread-pool", "modules");
}

function fileStat(path) {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

const fileIdentity = (s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

function settled(...stats) {
  const now = BigInt(Date.now()) * 1000000n;
  const tick = BigInt(SETTLED_MS) * 1000000n;
  return stats.every((s) => now - s.mtimeNs >= tick && now - s.ctimeNs >= tick);
}

// Two 32-bit FNV-1a style hashes of the identity: the entry's name (a
// collision only costs a miss: the identity inside is compared).
function entryName(identity, suffix) {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < identity.length; i++) {
    const c = identity.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  const hex = (h) => (h >>> 0).toString(16).padStart(8, "0");
  return `${hex(a)}${hex(b)}${suffix}`;
}

// POSIX: a directory (not a link to one) of this user's that only this user
// can write to. Windows: a directory (its ACLs are the profile's).
function trustedDirectory(dir) {
  const s = lstatSync(dir);
  if (!s.isDirectory()) return false;
  if (process.platform === "win32" || typeof process.getuid !== "function") return true;
  return s.uid === process.getuid() && (s.mode & 0o022) === 0;
}

function cacheEntry(dir, identity, { suffix, keep }) {
  const name = entryName(identity, suffix);
  const header = Buffer.from(`${identity}\n\n`, "utf8");
  return {
    read: () => readEntry(dir, name, header),
    write: (bytes) => writeEntry(dir, name, header, bytes, { suffix, keep }),
  };
}

function readEntry(dir, name, header) {
  try {
    if (!trustedDirectory(dir)) return null;
    const path = join(dir, name);
    const entry = readFileSync(path);
    if (entry.length <= header.length || !entry.subarray(0, header.length).equals(header)) return null;
    const now = new Date();
    utimesSync(path, now, now); // recently used
    return new Uint8Array(entry.buffer, entry.byteOffset + header.length, entry.length - header.length);
  } catch {
    return null;
  }
}

// The temporary file is renamed over the entry. Two runs writing the same
// entry write the same bytes.
function writeEntry(dir, name, header, bytes, { suffix, keep }) {
  const path = join(dir, name);
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
    prune(dir, suffix, keep);
  } catch {
    // a cache that cannot be written is a cache that is not there
  } finally {
    if (temporary !== null) removeQuietly(temporary);
  }
}

function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

// The `keep` most recently used entries of a kind stay; temporary files an
// interrupted run left (an hour old) go too.
function prune(dir, suffix, keep) {
  const entries = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const s = fileStat(path);
    if (s === null) continue;
    if (name.endsWith(".tmp")) {
      if (Date.now() - Number(s.mtimeMs) > 3600 * 1000) removeQuietly(path);
    } else if (name.endsWith(suffix)) entries.push({ path, used: s.mtimeNs });
  }
  entries.sort((a, b) => (a.used > b.used ? -1 : a.used < b.used ? 1 : 0));
  for (const { path } of entries.slice(keep)) removeQuietly(path);
}

function removeQuietly(path) {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove
  }
}

module.exports = {
  CACHE_ENV,
  CACHE_DIR_ENV,
  SETTLED_MS,
  cacheDirectory,
  fileStat,
  fileIdentity,
  settled,
  cacheEntry,
};
