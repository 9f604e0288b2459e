// The CLI's module cache (lib/program/module-cache.js; docs/runner.md, "The
// module cache"): when it keeps an entry and when it passes one over, on its
// own; then the CLI with zstd.wasm (../shared/real-programs): the first run
// keeps the rewritten module, later runs compile it, their output is the
// output without the cache, and a damaged entry is replaced.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import {
  CACHE_DIR_ENV,
  MAX_ENTRIES,
  MIN_MODULE_BYTES,
  SETTLED_MS,
  cacheDirectory,
  cacheWanted,
  readModuleFile,
} from "../lib/program/module-cache.js";
import { CLI } from "./support/cli-child.js";
import { SHARED, cWasiSkip } from "./support/wasi-programs.js";

const work = mkdtempSync(join(tmpdir(), "wtp-module-cache-"));
after(() => rmSync(work, { recursive: true, force: true }));

let made = 0;
// A file of `size` bytes that differ from every other file made here.
function makeFile(size = MIN_MODULE_BYTES, fill = ++made) {
  const path = join(work, `file-${made}-${size}.bin`);
  writeFileSync(path, Buffer.alloc(size, fill));
  return path;
}

// Waits until every path was last changed SETTLED_MS ago (ctime and mtime):
// the state in which the cache keeps an entry for it.
async function settled(...paths) {
  for (;;) {
    const newest = Math.max(...paths.map((p) => Math.max(statSync(p).mtimeMs, statSync(p).ctimeMs)));
    const wait = newest + SETTLED_MS + 50 - Date.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const env = (dir) => ({ ...process.env, [CACHE_DIR_ENV]: dir });
const open = (file, code, dir) => readModuleFile(file, { codeFile: code, env: env(dir) });

describe("the module cache on its own", () => {
  test("WASI_THREAD_POOL_CACHE is 0 or 1 (unset: on); anything else is a RangeError naming it", () => {
    assert.equal(cacheWanted({}), true);
    assert.equal(cacheWanted({ WASI_THREAD_POOL_CACHE: "1" }), true);
    assert.equal(cacheWanted({ WASI_THREAD_POOL_CACHE: "0" }), false);
    assert.throws(() => cacheWanted({ WASI_THREAD_POOL_CACHE: "no" }), {
      name: "RangeError",
      message: /WASI_THREAD_POOL_CACHE must be 0 or 1/,
    });
  });

  test("the directory: WASI_THREAD_POOL_CACHE_DIR, else the platform's cache directory", () => {
    // (this host's path rules: join and resolve make the expected forms)
    assert.equal(cacheDirectory({ [CACHE_DIR_ENV]: "/x/y" }, "linux"), resolve("/x/y"));
    assert.equal(cacheDirectory({ XDG_CACHE_HOME: "/c" }, "linux"), join("/c", "wasi-thread-pool", "modules"));
    assert.equal(cacheDirectory({}, "linux"), join(homedir(), ".cache", "wasi-thread-pool", "modules"));
    assert.equal(cacheDirectory({}, "darwin"), join(homedir(), "Library", "Caches", "wasi-thread-pool", "modules"));
    assert.equal(cacheDirectory({ LOCALAPPDATA: "/L" }, "win32"), join("/L", "wasi-thread-pool", "modules"));
  });

  test("no store for a small module, a CLI run from its sources, the cache turned off or a bad switch; the bytes are read all the same", () => {
    const code = makeFile(10);
    const small = makeFile(MIN_MODULE_BYTES - 1);
    const big = makeFile();
    const dir = join(work, "unused");
    for (const read of [
      open(small, code, dir),
      readModuleFile(big, { codeFile: null, env: env(dir) }),
      readModuleFile(big, { codeFile: code, enabled: false, env: env(dir) }),
    ]) {
      assert.equal(read.store, null);
      assert.ok(read.bytes.length >= MIN_MODULE_BYTES - 1);
    }
    assert.deepEqual(readModuleFile(big, { codeFile: code, enabled: false }).bytes, readFileSync(big));
    assert.throws(() => open(join(work, "missing.wasm"), code, dir), { code: "ENOENT" });
    // A bad memory pass switch is the compile's to report, not the read's.
    const badSwitch = readModuleFile(big, { codeFile: code, env: { ...env(dir), WASI_THREAD_POOL_RESERVE_MEMORY: "x" } });
    assert.equal(badSwitch.store, null);
    assert.equal(existsSync(dir), false);
  });

  test("an entry is kept only for files that settled before they were read; then found; a changed module misses", async () => {
    const dir = join(work, "cache-a");
    const code = makeFile(10);
    const module = makeFile();
    const kept = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    const fresh = open(module, code, dir);
    fresh.store.put(kept); // changed less than SETTLED_MS ago: not kept
    assert.equal(fresh.store.get(), null);
    assert.equal(existsSync(dir), false);

    await settled(module, code);
    const first = open(module, code, dir);
    assert.equal(first.store.get(), null);
    first.store.put(kept);
    assert.deepEqual(readdirSync(dir).length, 1);
    if (process.platform !== "win32") assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.deepEqual(open(module, code, dir).store.get(), kept);

    writeFileSync(module, Buffer.alloc(MIN_MODULE_BYTES, 0xee)); // same size, new content
    assert.equal(open(module, code, dir).store.get(), null);
    await settled(module);
    assert.equal(open(module, code, dir).store.get(), null, "an entry of the old content");
  });

  test("an entry of other code, a damaged entry, and a directory others can write to are passed over", async () => {
    const dir = join(work, "cache-b");
    const code = makeFile(10);
    const other = makeFile(11);
    const module = makeFile();
    await settled(module, code, other);
    open(module, code, dir).store.put(Uint8Array.of(1, 2, 3));
    assert.deepEqual(open(module, code, dir).store.get(), Uint8Array.of(1, 2, 3));
    assert.equal(open(module, other, dir).store.get(), null, "the code that made it is part of its identity");

    const [name] = readdirSync(dir);
    const entry = readFileSync(join(dir, name));
    writeFileSync(join(dir, name), Buffer.concat([Buffer.from("x"), entry.subarray(1)]));
    assert.equal(open(module, code, dir).store.get(), null, "a header that differs");
    writeFileSync(join(dir, name), entry.subarray(0, entry.indexOf("\n\n") + 2));
    assert.equal(open(module, code, dir).store.get(), null, "a header and no module");
    writeFileSync(join(dir, name), entry);

    if (process.platform !== "win32") {
      chmodSync(dir, 0o777);
      assert.equal(open(module, code, dir).store.get(), null, "a world-writable directory");
      open(module, other, dir).store.put(Uint8Array.of(4));
      assert.deepEqual(readdirSync(dir), [name], "nothing written there");
      chmodSync(dir, 0o700);
    }
    assert.deepEqual(open(module, code, dir).store.get(), Uint8Array.of(1, 2, 3));
  });

  test(`at most ${MAX_ENTRIES} entries stay: the least recently used go`, async () => {
    const dir = join(work, "cache-c");
    const code = makeFile(10);
    const modules = Array.from({ length: MAX_ENTRIES + 2 }, () => makeFile());
    await settled(code, ...modules);
    const byModule = new Map();
    for (const [i, module] of modules.entries()) {
      const { store } = open(module, code, dir);
      store.put(Uint8Array.of(i));
      byModule.set(module, store);
      // The first is used again after every other put: it stays.
      if (i > 0) assert.deepEqual(byModule.get(modules[0]).get(), Uint8Array.of(0));
    }
    assert.equal(readdirSync(dir).length, MAX_ENTRIES);
    assert.deepEqual(byModule.get(modules[0]).get(), Uint8Array.of(0));
    assert.equal(byModule.get(modules[1]).get(), null, "the least recently used");
    assert.deepEqual(byModule.get(modules.at(-1)).get(), Uint8Array.of(modules.length - 1));
  });
});

const ZSTD = join(SHARED, "real-programs", "zstd.wasm");
const BUILT = new URL("../dist/cli-main.cjs", import.meta.url);
const cliSkip =
  cWasiSkip() ||
  (!existsSync(ZSTD) && `no ${ZSTD} (../shared is absent)`) ||
  (!existsSync(BUILT) && "no dist/cli-main.cjs (node scripts/bundle-workers.js): the CLI from its sources keeps no cache");

describe("the CLI's module cache with zstd.wasm", { skip: cliSkip }, () => {
  const dir = join(work, "cli-cache");
  const input = join(work, "input.txt");
  writeFileSync(input, Array.from({ length: 40000 }, (_, i) => `line ${i} ${i % 7}\n`).join(""));

  // zstd -c of the input through the CLI: its output bytes.
  function compress(args = []) {
    const out = join(work, "out.zst");
    const inFd = openSync(input, "r");
    const outFd = openSync(out, "w");
    try {
      const r = spawnSync(process.execPath, [CLI, "run", ...args, ZSTD, "-q", "-c"], {
        stdio: [inFd, outFd, "pipe"],
        env: env(dir),
        timeout: 120_000,
      });
      assert.equal(r.status, 0, String(r.stderr));
    } finally {
      closeSync(inFd);
      closeSync(outFd);
    }
    return readFileSync(out);
  }
  const entries = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".wasm")) : []);

  test("a bad WASI_THREAD_POOL_CACHE or WASI_THREAD_POOL_HUGE_PAGES ends the CLI with 1, naming it", () => {
    for (const name of ["WASI_THREAD_POOL_CACHE", "WASI_THREAD_POOL_HUGE_PAGES"]) {
      const r = spawnSync(process.execPath, [CLI, "run", ZSTD, "-V"], {
        env: { ...env(join(work, "bad-switch")), [name]: "maybe" },
        encoding: "utf8",
        timeout: 120_000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`^wasi-thread-pool: ${name} must be 0 or 1, not "maybe"`));
    }
  });

  test("-C cache=n keeps nothing; the first run keeps the rewritten module; later runs and a damaged entry give the same output", async () => {
    await settled(ZSTD, BUILT);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const uncached = compress(["-C", "cache=n"]);
    assert.deepEqual(entries(), []);

    assert.deepEqual(compress(), uncached);
    const [name] = entries();
    assert.ok(name, "the first run kept an entry");
    const entry = readFileSync(join(dir, name));
    const moduleAt = entry.indexOf("\n\n") + 2;
    assert.deepEqual(entry.subarray(moduleAt, moduleAt + 4), Buffer.from([0, 0x61, 0x73, 0x6d]), "a module follows the header");

    assert.deepEqual(compress(), uncached, "from the entry");
    // A body that does not compile: the passes run again and replace it.
    writeFileSync(join(dir, name), Buffer.concat([entry.subarray(0, moduleAt), Buffer.from("not wasm")]));
    assert.deepEqual(compress(), uncached, "past a damaged entry");
    assert.deepEqual(readFileSync(join(dir, name)), entry, "the entry made again");
    assert.deepEqual(entries(), [name]);
  });
});
