// docs/sdk-integration.md's recipes, run from their files in
// docs/examples/sdk-redirect/ against a stand-in of the SDK's layout (its
// index importing ./host/wasiThreadHost.js and ./host/wasiThreadPool.js
// relatively): the Node resolve hook, the two patched files, and the esbuild
// plugin each make the SDK's host and pool this package's.

import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const example = join(repo, "docs", "examples", "sdk-redirect");

const FROM_SDK = { hostFrom: "sdk", poolFrom: "sdk", probe: null, pool: "undefined", spawn: "sdk" };
const FROM_US = { hostFrom: "wasi-thread-pool", poolFrom: "wasi-thread-pool", probe: 1500, pool: "function", spawn: -1 };

// The example's files beside a stand-in SDK and this checkout as
// node_modules/wasi-thread-pool (and esbuild, for the bundle).
function makeApp(t) {
  const dir = mkdtempSync(join(tmpdir(), "wtp-sdk-redirect-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sdk = join(dir, "node_modules", "space-data-module-sdk");
  mkdirSync(join(sdk, "src", "host"), { recursive: true });
  symlinkSync(repo, join(dir, "node_modules", "wasi-thread-pool"), "junction");
  symlinkSync(join(repo, "node_modules", "esbuild"), join(dir, "node_modules", "esbuild"), "junction");
  const files = {
    [join(sdk, "package.json")]: JSON.stringify({
      name: "space-data-module-sdk",
      type: "module",
      exports: { ".": "./src/index.js" },
    }),
    [join(sdk, "src", "host", "wasiThreadHost.js")]:
      'export const FROM = "sdk"; export async function createWasiThreadSpawn() { return "sdk"; }\n',
    [join(sdk, "src", "host", "wasiThreadPool.js")]: 'export const FROM = "sdk";\n',
    [join(sdk, "src", "index.js")]:
      'export * as host from "./host/wasiThreadHost.js";\nexport * as pool from "./host/wasiThreadPool.js";\n',
    [join(dir, "package.json")]: JSON.stringify({ name: "app", type: "module" }),
  };
  for (const [path, text] of Object.entries(files)) writeFileSync(path, text);
  for (const file of readdirSync(example).filter((f) => f.endsWith(".mjs"))) copyFileSync(join(example, file), join(dir, file));
  return { dir, sdk };
}

const run = (dir, args) => JSON.parse(execFileSync(process.execPath, [...args, "app.mjs"], { cwd: dir, encoding: "utf8" }));

test("the resolve hook: without it the SDK's own modules load; with it, this package's", (t) => {
  const { dir } = makeApp(t);
  assert.deepEqual(run(dir, []), FROM_SDK);
  assert.deepEqual(run(dir, ["--import", "./wtp-redirect.mjs"]), FROM_US);
});

// module.registerHooks: Node 22.15 and later (module.register warns there
// from Node 26 on).
const registerHooks = (await import("node:module")).registerHooks;

test("the synchronous resolve hook (registerHooks)", { skip: !registerHooks && "no module.registerHooks in this Node" }, (t) => {
  const { dir } = makeApp(t);
  assert.deepEqual(run(dir, ["--import", "./wtp-redirect-sync.mjs"]), FROM_US);
});

test("the patched files: the SDK's two modules re-export this package's", (t) => {
  const { dir, sdk } = makeApp(t);
  for (const file of ["wasiThreadHost.js", "wasiThreadPool.js"]) {
    copyFileSync(join(example, "patch", file), join(sdk, "src", "host", file));
  }
  assert.deepEqual(run(dir, []), FROM_US);
});

test("the esbuild plugin: a browser bundle takes this package's host and browser pool", (t) => {
  const { dir } = makeApp(t);
  execFileSync(process.execPath, ["build.mjs"], { cwd: dir, encoding: "utf8" });
  const bundle = readFileSync(join(dir, "dist", "app.js"), "utf8");
  // esbuild heads each bundled file with a comment naming it.
  const files = [...bundle.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]);
  assert.doesNotMatch(bundle, /FROM = "sdk"/, "the SDK's own host or pool was bundled");
  assert.ok(
    files.some((f) => f.endsWith("lib/pool.browser.js")),
    `the browser pool entry was not bundled: ${files}`,
  );
  assert.ok(
    files.some((f) => f.endsWith("lib/host/host.js")),
    `the host was not bundled: ${files}`,
  );
  assert.ok(!files.some((f) => /lib\/(native|pool\.js$)/.test(f)), `the addon's loader was bundled: ${files}`);
});
