// The runner's code cache (lib/program/code-cache.cjs): a run that reached
// its program leaves V8's code of the file it loaded, the next run takes it,
// and an entry that no longer fits the file (a changed file, another V8, a
// damaged entry) is passed over and made again. Each load runs in a child
// process (the entry is written at the process's exit); then the CLI.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { CLI } from "./support/cli-child.js";

const require = createRequire(import.meta.url);
const CODE_CACHE = require.resolve("../lib/program/code-cache.cjs");
const { CACHE_DIR_ENV, SETTLED_MS } = require("../lib/program/cache-dir.cjs");

const work = mkdtempSync(join(tmpdir(), "wtp-code-cache-"));
after(() => rmSync(work, { recursive: true, force: true }));

let made = 0;
// A CommonJS file whose `answer` is `value`, padded to `length` characters
// (a file rewritten to the same length gets the same hash in V8's own check).
function moduleText(value, length = 400) {
  const text = `"use strict";\nexports.answer = ${JSON.stringify(value)};\nexports.twice = (n) => n * 2;\n`;
  return text + "/".repeat(length - text.length - 1) + "\n";
}

function makeModule(value) {
  const path = join(work, `module-${++made}.cjs`);
  writeFileSync(path, moduleText(value));
  return path;
}

// Waits until `path` was last changed SETTLED_MS ago: an entry is kept only
// for a settled file (lib/program/cache-dir.cjs).
async function settled(path) {
  for (;;) {
    const s = statSync(path);
    const wait = Math.max(s.mtimeMs, s.ctimeMs) + SETTLED_MS + 50 - Date.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

// One process that loads `file` and, unless told not to, asks for the entry:
// {answer, twice, cached}.
function load(file, dir, { keep = true, env = {} } = {}) {
  const script = `
    const { loadWithCodeCache } = require(${JSON.stringify(CODE_CACHE)});
    const { exports, keepCode, cached } = loadWithCodeCache(${JSON.stringify(file)});
    if (${keep}) keepCode();
    console.log(JSON.stringify({ answer: exports.answer, twice: exports.twice(21), cached }));`;
  const r = spawnSync(process.execPath, ["-e", script], {
    encoding: "utf8",
    env: { ...process.env, [CACHE_DIR_ENV]: dir, ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const entries = (dir) => {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".code"));
  } catch {
    return [];
  }
};

test("a kept run leaves an entry that the next run takes", async () => {
  const dir = join(work, "kept");
  const file = makeModule("first");
  await settled(file);
  assert.deepEqual(load(file, dir), { answer: "first", twice: 42, cached: false });
  assert.equal(entries(dir).length, 1);
  assert.deepEqual(load(file, dir), { answer: "first", twice: 42, cached: true });
  assert.equal(entries(dir).length, 1, "an entry V8 took is not written again");
});

test("no entry without keepCode, for a file changed just now, or with the cache off", async () => {
  const file = makeModule("quiet");
  const fresh = join(work, "fresh");
  load(file, fresh);
  assert.equal(entries(fresh).length, 0, "the file is not settled yet");
  await settled(file);
  const unkept = join(work, "unkept");
  load(file, unkept, { keep: false });
  assert.equal(entries(unkept).length, 0);
  const off = join(work, "off");
  assert.deepEqual(load(file, off, { env: { WASI_THREAD_POOL_CACHE: "0" } }), { answer: "quiet", twice: 42, cached: false });
  assert.equal(entries(off).length, 0);
});

test("a file rewritten to the same length is not run from the old entry", async () => {
  const dir = join(work, "changed");
  const file = makeModule("before");
  await settled(file);
  load(file, dir);
  assert.equal(load(file, dir).cached, true);
  writeFileSync(file, moduleText("after!"));
  assert.equal(readFileSync(file, "utf8").length, moduleText("before").length);
  assert.deepEqual(load(file, dir), { answer: "after!", twice: 42, cached: false });
  await settled(file);
  load(file, dir);
  assert.deepEqual(load(file, dir), { answer: "after!", twice: 42, cached: true });
});

test("a damaged entry is passed over and made again", async () => {
  const dir = join(work, "damaged");
  const file = makeModule("sound");
  await settled(file);
  load(file, dir);
  const [name] = entries(dir);
  const path = join(dir, name);
  const entry = readFileSync(path);
  const header = entry.indexOf("\n\n") + 2;
  // V8's data replaced by other bytes: V8 refuses them.
  writeFileSync(path, Buffer.concat([entry.subarray(0, header), Buffer.alloc(entry.length - header, 0x5a)]));
  assert.deepEqual(load(file, dir), { answer: "sound", twice: 42, cached: false });
  assert.deepEqual(load(file, dir), { answer: "sound", twice: 42, cached: true }, "made again");
  // The header of another file's entry: not this file's.
  writeFileSync(path, Buffer.concat([Buffer.from("wasi-thread-pool code cache 1\nfile 0:0:0:0:0\n\n"), entry.subarray(header)]));
  assert.deepEqual(load(file, dir), { answer: "sound", twice: 42, cached: false });
  assert.deepEqual(load(file, dir), { answer: "sound", twice: 42, cached: true }, "made again");
});

test("a directory others can write to is not used", { skip: process.platform === "win32" && "POSIX modes" }, async () => {
  const dir = join(work, "open");
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o777);
  const file = makeModule("open");
  await settled(file);
  load(file, dir);
  assert.deepEqual(entries(dir), []);
});

test("the CLI keeps its built file's code and runs the same from it", async (t) => {
  const built = join(CLI, "..", "..", "dist", "cli-main.cjs");
  try {
    statSync(built);
  } catch {
    t.skip("no dist/cli-main.cjs (node scripts/bundle-workers.js)");
    return;
  }
  await settled(built);
  const dir = join(work, "cli");
  const run = () => {
    const r = spawnSync(process.execPath, [CLI, "--version"], {
      encoding: "utf8",
      env: { ...process.env, [CACHE_DIR_ENV]: dir },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const version = run();
  assert.deepEqual(entries(dir), [], "a run that reached no program keeps nothing");
  const wat = join(work, "hello.wasm");
  const { watToBytes } = await import("./fixtures/build.js");
  writeFileSync(
    wat,
    await watToBytes(
      `(module
        (import "env" "memory" (memory 1 1 shared))
        (import "wasi" "thread-spawn" (func (param i32) (result i32)))
        (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
        (data (i32.const 64) "hello\\n")
        (func (export "_start")
          (i32.store (i32.const 0) (i32.const 64)) (i32.store (i32.const 4) (i32.const 6))
          (drop (call $w (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
        (func (export "wasi_thread_start") (param i32 i32)))`,
      "hello.wat",
    ),
  );
  const hello = (options = [], into = dir) => {
    const r = spawnSync(process.execPath, [CLI, "run", ...options, wat], {
      encoding: "utf8",
      env: { ...process.env, [CACHE_DIR_ENV]: into },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const moduleCacheOff = join(work, "cli-cache-n");
  assert.equal(hello(["-C", "cache=n"], moduleCacheOff), "hello\n");
  assert.equal(entries(moduleCacheOff).length, 1, "-C cache=n is the module cache's switch only");
  assert.equal(hello(), "hello\n");
  assert.equal(entries(dir).length, 1, "the run that reached its program kept the code");
  const kept = statSync(join(dir, entries(dir)[0])).size;
  assert.ok(kept > 50000, `the entry holds the functions the run compiled (${kept} bytes)`);
  assert.equal(hello(), "hello\n");
  assert.equal(run(), version);
});
