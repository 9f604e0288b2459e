// The loader and the implementation choice: the addon loads (required in
// CI), WASI_THREAD_POOL_IMPLEMENTATION overrides the default, a missing addon
// falls back to the JS twin and says why, and a pool's implementation
// follows it into threads that cannot honour it only as a clear error.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { it } from "node:test";
import { native } from "../lib/native/binding.js";
import { usualAddonPath } from "../lib/native/prebuilds.js";
import * as pool from "../lib/pool.js";
import { Worker } from "node:worker_threads";

const poolUrl = new URL("../lib/pool.js", import.meta.url).href;

function inChild(env, code) {
  const script = `import * as P from ${JSON.stringify(poolUrl)};\n${code}`;
  const out = execFileSync(process.execPath, ["--input-type=module", "--eval", script], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  return JSON.parse(out);
}

it("the addon loads in CI", { skip: process.env.CI !== "true" && "outside CI" }, () => {
  assert.equal(native.error, null);
  assert.equal(pool.getWasiThreadPoolImplementation().implementation, "native");
});

it("getWasiThreadPoolImplementation says which implementation and why", () => {
  const info = pool.getWasiThreadPoolImplementation();
  assert.ok(info.implementation === "native" || info.implementation === "js");
  assert.equal(typeof info.reason, "string");
  assert.equal(info.native.available, native.binding !== null);
});

it("WASI_THREAD_POOL_IMPLEMENTATION=js makes the twin the default", () => {
  const r = inChild(
    { WASI_THREAD_POOL_IMPLEMENTATION: "js" },
    "const p = P.createWasiThreadPool({ capacity: 1 }); console.log(JSON.stringify([P.wasiThreadPoolImplementationOf(p), P.getWasiThreadPoolImplementation()]));",
  );
  assert.equal(r[0], "js");
  assert.equal(r[1].implementation, "js");
  assert.match(r[1].reason, /WASI_THREAD_POOL_IMPLEMENTATION=js/);
});

it("an unknown WASI_THREAD_POOL_IMPLEMENTATION is a RangeError naming the variable", () => {
  const r = inChild(
    { WASI_THREAD_POOL_IMPLEMENTATION: "fast" },
    "try { P.createWasiThreadPool({ capacity: 1 }); console.log('null'); } catch (e) { console.log(JSON.stringify([e.name, e.message])); }",
  );
  assert.equal(r[0], "RangeError");
  assert.match(r[1], /WASI_THREAD_POOL_IMPLEMENTATION=fast/);
});

it("getWasiThreadPoolImplementation reports an unknown WASI_THREAD_POOL_IMPLEMENTATION as createWasiThreadPool does", () => {
  const r = inChild(
    { WASI_THREAD_POOL_IMPLEMENTATION: "fast" },
    `const out = [];
     for (const f of [() => P.createWasiThreadPool({ capacity: 1 }), () => P.getWasiThreadPoolImplementation()]) {
       try { out.push({ returned: f() }); } catch (e) { out.push({ name: e.name, message: e.message }); }
     }
     console.log(JSON.stringify(out));`,
  );
  assert.equal(r[1].name, "RangeError", "not a quiet default");
  assert.deepEqual(r[1], r[0]);
  // An explicit implementation is still honoured under the bad variable.
  const explicit = inChild(
    { WASI_THREAD_POOL_IMPLEMENTATION: "fast" },
    'console.log(JSON.stringify(P.wasiThreadPoolImplementationOf(P.createWasiThreadPool({ capacity: 1, implementation: "js" }))));',
  );
  assert.equal(explicit, "js");
});

it("without the addon the package runs on the twin and says why", () => {
  const r = inChild(
    { WASI_THREAD_POOL_NO_ADDON: "1", WASI_THREAD_POOL_IMPLEMENTATION: "" },
    `const p = P.createWasiThreadPool({ capacity: 2 });
     let native = null;
     try { P.createWasiThreadPool({ capacity: 2, implementation: "native" }); } catch (e) { native = e.message; }
     console.log(JSON.stringify([P.wasiThreadPoolImplementationOf(p), P.getWasiThreadPoolImplementation(), native]));`,
  );
  assert.equal(r[0], "js");
  assert.equal(r[1].implementation, "js");
  assert.equal(r[1].native.available, false);
  assert.match(r[1].reason, /did not load/);
  assert.match(r[2], /native implementation was requested/);
});

// A thread that loads only the browser entry has no addon: a Node worker
// that imports lib/pool.browser.js and nothing else stands for it.
const browserPoolUrl = new URL("../lib/pool.browser.js", import.meta.url).href;

function inBrowserEntryWorker(workerData, code) {
  const script = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(${JSON.stringify(browserPoolUrl)}).then((P) => {
      const out = {};
      const attempt = (name, f) => { try { out[name] = { returned: f() }; } catch (e) { out[name] = { name: e.name, message: e.message }; } };
      ${code}
      parentPort.postMessage(out);
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true, workerData });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

it(
  "a native pool handed to a thread without the addon fails with a clear error, not a wrong wait",
  { skip: native.binding === null && "no addon" },
  async () => {
    const p = pool.createWasiThreadPool({ capacity: 2, implementation: "native" });
    const out = await inBrowserEntryWorker(
      { pool: p },
      `attempt("report", () => P.readWasiThreadPoolReport(workerData.pool));
     attempt("spawn", () => typeof P.createWasiThreadPoolSpawn(workerData.pool));`,
    );
    assert.match(out.report.message, /uses native waits, but the addon is not loaded/);
    assert.match(out.spawn.message, /uses native waits/);
  },
);

it("an overwritten implementation word is reported, not guessed", () => {
  const p = pool.createWasiThreadPool({ capacity: 1, implementation: "js" });
  p.control[7] = 12345;
  assert.throws(() => pool.readWasiThreadPoolReport(p), /word 7 holds 12345/);
});

it("the browser entry never offers the native implementation", async () => {
  const out = await inBrowserEntryWorker(
    null,
    `attempt("info", () => P.getWasiThreadPoolImplementation());
     attempt("create", () => P.createWasiThreadPool({ capacity: 1, implementation: "native" }));`,
  );
  assert.equal(out.info.returned.native.available, false);
  assert.match(out.info.returned.reason, /browser build/);
  assert.match(out.create.message, /no native addon/);
});

it(
  "the loader carries no test hook; the tests' unhooked terminate lives in test/support",
  { skip: native.binding === null && "no addon" },
  () => {
    assert.equal("terminateWithoutHook" in native, false);
    // Imported first, the support module captures Node's own terminate; the
    // package's hook is installed over it afterwards (with the first native
    // pool); imported later, it refuses rather than return the hooked function.
    const support = new URL("./support/unhooked-terminate.js", import.meta.url).href;
    const script = `
    const { Worker } = await import("node:worker_threads");
    const own = Worker.prototype.terminate;
    const { terminateWithoutHook } = await import(${JSON.stringify(support)});
    const P = await import(${JSON.stringify(poolUrl)});
    P.createWasiThreadPool({ capacity: 1, implementation: "native" });
    const hooked = Worker.prototype.terminate;
    const w = new Worker("setInterval(() => {}, 1000)", { eval: true });
    const code = await terminateWithoutHook(w);
    let late = null;
    try { await import(${JSON.stringify(support)} + "?again"); } catch (e) { late = e.message; }
    console.log(JSON.stringify({ hookedName: hooked.name, installed: hooked !== own, code, late }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "--eval", script], { encoding: "utf8" });
    const r = JSON.parse(out);
    assert.equal(r.installed, true);
    assert.equal(r.hookedName, "terminateWorker");
    assert.equal(typeof r.code, "number", "it terminated the worker");
    assert.match(r.late, /imported after lib\/native\/backend\.js/);
  },
);

// The loader finds the addon by a few stats where the package has its usual
// layout (lib/native/prebuilds.js, usualAddonPath), and must find the file
// node-gyp-build would; elsewhere it leaves the choice to node-gyp-build.
it("the loader's direct path is node-gyp-build's choice, or none", () => {
  const require = createRequire(import.meta.url);
  const base = mkdtempSync(join(tmpdir(), "wtp-addon-path-"));
  const layout = (name, files) => {
    const root = join(base, name);
    for (const file of ["package.json", ...files]) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), file === "package.json" ? '{"name":"wasi-thread-pool"}' : "");
    }
    return root;
  };
  const prebuild = (arch, tag) => `prebuilds/linux-${arch}/wasi-thread-pool.${tag}.node`;
  const both = (arch) => [prebuild(arch, "glibc"), prebuild(arch, "musl")];
  const env = (extra) => ({ npm_config_platform: "linux", npm_config_arch: "x64", LIBC: "glibc", ...extra });
  try {
    const cases = [
      [layout("local", ["build/Release/wasi_thread_pool.node", ...both("x64")]), env({})],
      [layout("glibc", both("x64")), env({})],
      [layout("musl", both("x64")), env({ LIBC: "musl" })],
      [layout("arm64", [...both("x64"), ...both("arm64")]), env({ npm_config_arch: "arm64" })],
    ];
    for (const [root, e] of cases) {
      const direct = usualAddonPath(root, e);
      assert.ok(direct !== null, `${root}: found directly`);
      const saved = { ...process.env };
      // node-gyp-build reads the process's environment: only this case's
      // settings (the Wine and qemu runs set PREBUILDS_ONLY for the suites).
      for (const name of ["PREBUILDS_ONLY", "WASI_THREAD_POOL_PREBUILD"]) delete process.env[name];
      Object.assign(process.env, e);
      try {
        // node-gyp-build reads its platform and libc when it loads: a fresh copy.
        delete require.cache[require.resolve("node-gyp-build/node-gyp-build.js")];
        delete require.cache[require.resolve("node-gyp-build")];
        assert.equal(direct, require("node-gyp-build").resolve(root), root);
      } finally {
        process.env = saved;
      }
    }
    // Where node-gyp-build's other rules may choose: no direct answer.
    const debug = layout("debug", ["build/Debug/wasi_thread_pool.node", ...both("x64")]);
    assert.equal(usualAddonPath(debug, env({})), null);
    const glibc = join(base, "glibc");
    assert.equal(usualAddonPath(glibc, env({ WASI_THREAD_POOL_PREBUILD: base })), null);
    assert.equal(usualAddonPath(glibc, env({ PREBUILDS_ONLY: "1" })), null);
    assert.equal(usualAddonPath(layout("none", []), env({})), null);
    assert.equal(usualAddonPath(layout("emptybuild", ["build/Release/other.txt", ...both("x64")]), env({})), null);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
