// What the package holds for the addon, and why none of it serves this
// machine: the loader (lib/native/binding.js) and the install script
// (scripts/install.js) put this in their messages.
//
// The names and the libc rule are node-gyp-build's: prebuilds/<platform>-<arch>/
// folders, a glibc/musl tag on Linux, and musl assumed only on Alpine (or when
// LIBC=musl is set).

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

// This process's platform, arch and libc (null off Linux), as node-gyp-build sees them.
function target(env) {
  const platform = env.npm_config_platform || process.platform;
  const arch = env.npm_config_arch || process.arch;
  const libc = platform !== "linux" ? null : env.LIBC || (existsSync("/etc/alpine-release") ? "musl" : "glibc");
  return { platform, arch, libc };
}

/** "linux-x64 (glibc)", "darwin-arm64"... for this process, as node-gyp-build sees it. */
export function currentTarget() {
  const { platform, arch, libc } = target(process.env);
  return libc === null ? `${platform}-${arch}` : `${platform}-${arch} (${libc})`;
}

// The addon's file where node-gyp-build would find it in the package's
// usual layouts, found with a few stats instead of node-gyp-build's module
// and its directory search (2 to 3 ms of a CLI run on Node 24): the local
// build (build/Release, the addon's only .node file there), or, with no
// local build, this target's prebuild under the name scripts/prebuild.sh
// gives it. Null wherever node-gyp-build's own rules may choose otherwise (a
// <NAME>_PREBUILD or PREBUILDS_ONLY setting, a build/Debug, an unusual
// layout): the caller asks node-gyp-build then.
export function usualAddonPath(root, env = process.env) {
  if (env.WASI_THREAD_POOL_PREBUILD || env.PREBUILDS_ONLY) return null;
  const local = join(root, "build", "Release", "wasi_thread_pool.node");
  if (existsSync(local)) return local;
  if (existsSync(join(root, "build", "Release")) || existsSync(join(root, "build", "Debug"))) return null;
  const { platform, arch, libc } = target(env);
  const prebuild = join(root, "prebuilds", `${platform}-${arch}`, `wasi-thread-pool${libc ? `.${libc}` : ""}.node`);
  return existsSync(prebuild) ? prebuild : null;
}

/** Every prebuild under root/prebuilds, as "linux-x64 (glibc)", "win32-x64"... sorted. */
export function presentPrebuilds(root) {
  const out = [];
  let folders;
  try {
    folders = readdirSync(join(root, "prebuilds"));
  } catch {
    return out;
  }
  for (const folder of folders) {
    let files;
    try {
      files = readdirSync(join(root, "prebuilds", folder)).filter((f) => f.endsWith(".node"));
    } catch {
      continue;
    }
    for (const file of files) {
      const libc = /\.(glibc|musl)\./.exec(file);
      out.push(libc ? `${folder} (${libc[1]})` : folder);
    }
  }
  return out.sort();
}

/**
 * One sentence for a failed load: this platform, the prebuilds present, and
 * the reason (`error`, node-gyp-build's or the dynamic loader's message).
 * `path` is the file that failed to load, or null when none matched.
 */
export function explainLoadFailure(root, error, path = null) {
  const message = String(error?.message ?? error).split("\n")[0];
  const present = presentPrebuilds(root);
  const list = present.length ? present.join(", ") : "none";
  const here = currentTarget();
  if (path === null || /No native build was found/.test(message)) {
    return (
      `no prebuild for ${here} (the package has prebuilds for: ${list}) and no local build (build/Release), ` +
      `which the install makes when a C compiler and Python are present (npm rebuild wasi-thread-pool); ` +
      `node-gyp-build: ${message}`
    );
  }
  const relative = path.startsWith(root) ? path.slice(root.length).replace(/^[/\\]/, "") : path;
  return `the addon ${relative} (for ${here}; prebuilds present: ${list}) did not load: ${message}`;
}
