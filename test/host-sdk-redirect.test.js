// docs/sdk-integration.md's Node recipe: a resolve hook makes a stand-in of
// the SDK's layout (its harness importing ./host/wasiThreadHost.js and
// ./host/wasiThreadPool.js relatively) load this package instead.

import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const hooks = readFileSync(new URL("./support/host-sdk-redirect-hooks.mjs", import.meta.url), "utf8");

function makeApp() {
  const dir = mkdtempSync(join(tmpdir(), "wtp-sdk-redirect-"));
  const sdk = join(dir, "node_modules", "space-data-module-sdk");
  mkdirSync(join(sdk, "src", "host"), { recursive: true });
  symlinkSync(repo, join(dir, "node_modules", "wasi-thread-pool"), "dir");
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
    [join(dir, "wtp-redirect-hooks.mjs")]: hooks,
    [join(dir, "wtp-redirect.mjs")]:
      'import { register } from "node:module";\nregister("./wtp-redirect-hooks.mjs", import.meta.url);\n',
    [join(dir, "app.mjs")]: `
import { host, pool } from "space-data-module-sdk";
const threads = await host.createWasiThreadSpawn({ requiresHostcalls: true });
console.log(JSON.stringify({
  hostFrom: host.FROM ?? "wasi-thread-pool",
  poolFrom: pool.FROM ?? "wasi-thread-pool",
  probe: host.BROWSER_POOL_PROBE_TIMEOUT_MS ?? null,
  pool: typeof pool.createWasiThreadPool,
  spawn: typeof threads === "object" ? threads.threadSpawn(0) : threads,
}));
`,
  };
  for (const [path, text] of Object.entries(files)) writeFileSync(path, text);
  return dir;
}

test("without the hook the SDK's own modules load; with it, this package's", (t) => {
  const dir = makeApp();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args) => JSON.parse(execFileSync(process.execPath, [...args, "app.mjs"], { cwd: dir, encoding: "utf8" }));
  assert.deepEqual(run([]), { hostFrom: "sdk", poolFrom: "sdk", probe: null, pool: "undefined", spawn: "sdk" });
  assert.deepEqual(run(["--import", "./wtp-redirect.mjs"]), {
    hostFrom: "wasi-thread-pool",
    poolFrom: "wasi-thread-pool",
    probe: 1500,
    pool: "function",
    spawn: -1,
  });
});

test("the documented hook is this file's code", () => {
  const doc = readFileSync(new URL("../docs/sdk-integration.md", import.meta.url), "utf8");
  const body = hooks.slice(hooks.indexOf("const REDIRECTS"));
  assert.ok(doc.includes(body.trimEnd()), "docs/sdk-integration.md has drifted from test/support/host-sdk-redirect-hooks.mjs");
});
