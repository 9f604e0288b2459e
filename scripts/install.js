// npm "install" script: use a prebuilt binary when one matches this platform
// and Node-API version, otherwise build the addon from source. Never fails
// the install: without an addon the package runs on its pure-JS pool and
// getWasiThreadPoolImplementation() says why.
//
// Offline builds: node-gyp downloads Node's headers unless told where they
// are. When this Node's own headers are installed next to it
// (<prefix>/include/node/common.gypi), pass --nodedir=<prefix>.
//
//   node scripts/install.js           prebuild or existing build, else build
//   node scripts/install.js --force   always build from source
//
// From a git checkout it first builds the one-file pool workers into dist/
// (scripts/bundle-workers.js; the tarball ships them), when esbuild, a
// devDependency, is installed; without them the workers start from their
// modules (lib/worker/entries.js).

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { explainLoadFailure } from "../lib/native/prebuilds.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const force = process.argv.includes("--force");

// null when the addon loads (a build, or a prebuild for this platform),
// else why not: this platform, the prebuilds present, the reason.
function loadFailure() {
  let path = null;
  try {
    path = require("node-gyp-build").resolve(root);
    require(path);
    return null;
  } catch (error) {
    return explainLoadFailure(root, error, path);
  }
}

function nodeGypCommand() {
  // npm sets npm_config_node_gyp (node-gyp.js) for lifecycle scripts;
  // otherwise use the copy npm bundles next to this Node (<prefix>/lib/
  // node_modules on POSIX, next to node.exe on Windows).
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    join(dirname(process.execPath), "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ];
  const script = candidates.find((p) => p && p.endsWith(".js") && existsSync(p));
  return script ? [process.execPath, script] : ["node-gyp"];
}

function localHeadersPrefix() {
  const prefix = join(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "common.gypi")) ? prefix : null;
}

// A git checkout (.git is a folder, or a file in a worktree) with the bundler
// script: build the workers; never fail the install for them.
async function buildWorkersInCheckout() {
  if (!existsSync(join(root, ".git")) || !existsSync(join(root, "scripts", "bundle-workers.js"))) return;
  try {
    const { writeWorkerBundles } = await import("./bundle-workers.js");
    const written = await writeWorkerBundles();
    console.log(`wasi-thread-pool: built ${written.join(", ")}`);
  } catch (error) {
    console.warn(
      `wasi-thread-pool: the one-file pool workers were not built (${error.code ?? error.message}); workers start from their modules`,
    );
  }
}

await buildWorkersInCheckout();

const before = force ? null : loadFailure();
if (!force && before === null) {
  process.exit(0);
}

const [command, ...pre] = nodeGypCommand();
const args = [...pre, "rebuild"];
const prefix = localHeadersPrefix();
if (prefix !== null && !process.env.npm_config_nodedir) args.push(`--nodedir=${prefix}`);

// A bare "node-gyp" on Windows is node-gyp.cmd, which needs a shell.
const shell = process.platform === "win32" && command === "node-gyp";
const result = spawnSync(command, args, { cwd: root, stdio: "inherit", shell });
const after = result.status === 0 ? loadFailure() : null;
if (result.status === 0 && after === null) process.exit(0);

const why = result.error
  ? result.error.message
  : result.status !== 0
    ? `node-gyp exited with ${result.status}`
    : `the build did not load: ${after}`;
console.warn(
  `wasi-thread-pool: could not build the native addon (${why}); ` +
    "the pure-JavaScript pool will be used. getWasiThreadPoolImplementation() reports this at run time." +
    (before ? `\nwasi-thread-pool: before the build: ${before}` : ""),
);
process.exit(force ? 1 : 0);
