// The addon's handles and its copies in one process (issue 12):
//
// - a native pool handle holds the SharedArrayBuffer its raw pointer points
//   into (before, liveness rested on JavaScript passing the typed array on
//   every call, which C never read: a latent use-after-free), and lets it go
//   when the handle is collected (no reference cycle through the WeakMap);
// - a second copy of the addon loaded from another path (two package
//   versions, a bundler's copy) refuses to load with a clear error, since its
//   own parked counters would lose wake-ups on a shared pool; the package
//   then falls back to the JS twin and reports why.
//
// Each case runs in a child process (--expose-gc, or a process of its own
// for the dlopen'd copies).

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { native } from "../lib/native/binding.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function runChild(args, source, env = {}) {
  const child = spawnSync(process.execPath, [...args, "--input-type=module", "--eval", source], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60000,
  });
  assert.equal(child.status, 0, `child failed:\n${child.stdout}\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop());
}

describe("native handles and the SharedArrayBuffer", { skip: native.binding === null }, () => {
  it("a pool handle keeps the buffer alive without the typed array, and releases it when collected", () => {
    const result = runChild(
      ["--expose-gc"],
      `
      import { native } from "./lib/native/binding.js";
      const { binding } = native;
      const collected = new Set();
      const registry = new FinalizationRegistry((name) => collected.add(name));
      const settle = async () => {
        for (let i = 0; i < 10; i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
      };
      let handle;
      (() => {
        const sab = new SharedArrayBuffer(4 * (8 + 8));
        const control = new Int32Array(sab);
        registry.register(sab, "buffer");
        registry.register(control, "control");
        handle = binding.open(control);
        binding.format(handle, 1, binding.layout.IMPL_NATIVE, control);
      })();
      await settle();
      const whileHeld = [...collected];
      // The handle still reads the words (no typed array passed that C uses).
      const words = binding.report(handle, new Int32Array(new SharedArrayBuffer(64)));
      handle = null;
      await settle();
      console.log(JSON.stringify({ whileHeld, after: [...collected], slots: words.slots }));
      `,
    );
    // Before the fix the buffer went with the typed array while the handle
    // (and its pointer) lived on.
    assert.deepEqual(result.whileHeld, ["control"]);
    assert.deepEqual(result.after.sort(), ["buffer", "control"]);
    assert.equal(result.slots, 0);
  });

  it("a pool used through the API is collected with its typed array (no cycle through the handle cache)", () => {
    const result = runChild(
      ["--expose-gc"],
      `
      import * as api from "./lib/pool.js";
      const collected = new Set();
      const registry = new FinalizationRegistry((name) => collected.add(name));
      (() => {
        const pool = api.createWasiThreadPool({ capacity: 2, implementation: "native" });
        registry.register(pool.control.buffer, "buffer");
        const spawn = api.createWasiThreadPoolSpawn(pool, { owner: true, grow: () => {} });
        spawn(1);
        api.readWasiThreadPoolReport(pool);
        api.terminateWasiThreadPool(pool);
      })();
      for (let i = 0; i < 20 && !collected.has("buffer"); i++) { gc(); await new Promise((r) => setTimeout(r, 5)); }
      console.log(JSON.stringify({ collected: [...collected] }));
      `,
    );
    assert.deepEqual(result.collected, ["buffer"]);
  });
});

describe("two copies of the addon in one process", { skip: native.binding === null }, () => {
  function withCopy(fn) {
    const dir = mkdtempSync(join(tmpdir(), "wtp-copy-"));
    try {
      const copy = join(dir, "copied.node");
      copyFileSync(native.path, copy);
      return fn(copy);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("the second copy refuses to load, naming the first; the first keeps working", () => {
    withCopy((copy) => {
      const result = runChild(
        [],
        `
        import { createRequire } from "node:module";
        import * as api from "./lib/pool.js";
        const require = createRequire(import.meta.url);
        let error = null;
        try { require(${JSON.stringify(copy)}); } catch (e) { error = { code: e.code, message: e.message }; }
        const pool = api.createWasiThreadPool({ capacity: 1, implementation: "native" });
        const spawn = api.createWasiThreadPoolSpawn(pool, { grow: () => {} });
        console.log(JSON.stringify({ error, first: spawn(1).reason }));
        `,
      );
      assert.equal(result.error?.code, "WASI_THREAD_POOL_ADDON_COPY");
      assert.match(result.error.message, /another copy of the native addon is already loaded/);
      assert.ok(result.error.message.includes(native.path), result.error.message);
      assert.equal(result.first, null);
    });
  });

  it("with a copy loaded first, the package falls back to the JS twin and says why; a native pool is refused", () => {
    withCopy((copy) => {
      const result = runChild(
        [],
        `
        import { createRequire } from "node:module";
        const require = createRequire(import.meta.url);
        const other = require(${JSON.stringify(copy)});
        const control = new Int32Array(new SharedArrayBuffer(4 * 16));
        other.format(other.open(control), 1, other.layout.IMPL_NATIVE, control);
        const api = await import("./lib/pool.js");
        const info = api.getWasiThreadPoolImplementation();
        let refused = null;
        try { api.createWasiThreadPoolSpawn({ control, spawnWaitMs: 0 }); } catch (e) { refused = e.message; }
        console.log(JSON.stringify({ info, refused }));
        `,
      );
      assert.equal(result.info.implementation, "js");
      assert.equal(result.info.native.available, false);
      assert.match(result.info.native.error, /another copy of the native addon is already loaded/);
      assert.ok(result.info.native.error.includes(copy), result.info.native.error);
      assert.match(result.refused, /uses native waits, but the addon is not loaded.*another copy/);
    });
  });
});
