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

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const force = process.argv.includes("--force");

function loads() {
  try {
    require(require("node-gyp-build").resolve(root));
    return true;
  } catch {
    return false;
  }
}

function nodeGypCommand() {
  // npm sets npm_config_node_gyp for lifecycle scripts; otherwise use the
  // copy npm bundles next to this Node.
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ];
  const script = candidates.find((p) => p && existsSync(p));
  return script ? [process.execPath, script] : ["node-gyp"];
}

function localHeadersPrefix() {
  const prefix = join(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "common.gypi")) ? prefix : null;
}

if (!force && loads()) {
  process.exit(0);
}

const [command, ...pre] = nodeGypCommand();
const args = [...pre, "rebuild"];
const prefix = localHeadersPrefix();
if (prefix !== null && !process.env.npm_config_nodedir) args.push(`--nodedir=${prefix}`);

const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
if (result.status === 0 && loads()) process.exit(0);

const why = result.error ? result.error.message : `node-gyp exited with ${result.status}`;
console.warn(
  `wasi-thread-pool: could not build the native addon (${why}); ` +
    "the pure-JavaScript pool will be used. getWasiThreadPoolImplementation() reports this at run time.",
);
process.exit(force ? 1 : 0);
