// Is the addon a benchmark measures a build of the sources in src/?
//
// File times cannot tell: a git clone gives every file the time of the clone,
// so a prebuild can look older (or newer) than src/ whatever it was built
// from. Instead the addon's content is compared with a fresh build of
// binding.gyp + src/, the way test/package.test.js checks the committed
// prebuild: node-gyp in a scratch copy (offline, with this Node's headers
// when they are installed next to it), both binaries stripped, then compared
// byte for byte. The build is reproducible on one toolchain.
//
// compareAddonWithSources(addonPath, repoDir) ->
//   {matchesSrc: true|false|null, note}
// null means "not compared" (no node-gyp, no compiler, no strip ...), and the
// note says why; nothing is claimed either way then.

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

function nodeGypCommand() {
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

function failed(what, result) {
  const why = result.error ? result.error.message : `exit ${result.status}`;
  const tail =
    String(result.stderr ?? "")
      .trim()
      .split("\n")
      .slice(-1)[0] ?? "";
  return `${what} failed (${why})${tail ? `: ${tail}` : ""}`;
}

export function compareAddonWithSources(addonPath, repoDir) {
  const scratch = mkdtempSync(join(tmpdir(), "wtp-bench-src-"));
  try {
    for (const entry of ["binding.gyp", "src", "package.json"]) {
      cpSync(join(repoDir, entry), join(scratch, entry), { recursive: true });
    }
    const [command, ...pre] = nodeGypCommand();
    const args = [...pre, "rebuild"];
    const prefix = localHeadersPrefix();
    if (prefix !== null && !process.env.npm_config_nodedir) args.push(`--nodedir=${prefix}`);
    const build = spawnSync(command, args, { cwd: scratch, encoding: "utf8" });
    if (build.status !== 0) return { matchesSrc: null, note: failed("node-gyp rebuild of src/", build) };
    const fresh = join(scratch, "fresh.node");
    const measured = join(scratch, "measured.node");
    cpSync(join(scratch, "build", "Release", "wasi_thread_pool.node"), fresh);
    cpSync(addonPath, measured);
    for (const file of [fresh, measured]) {
      const strip = spawnSync("strip", ["--strip-all", file], { encoding: "utf8" });
      if (strip.status !== 0) return { matchesSrc: null, note: failed("strip", strip) };
    }
    const same = readFileSync(fresh).equals(readFileSync(measured));
    return {
      matchesSrc: same,
      note: same
        ? "identical (stripped) to a fresh build of src/"
        : "differs from a fresh build of src/ (stripped): rebuild, or pass --fresh-addon",
    };
  } catch (error) {
    return { matchesSrc: null, note: `not compared with src/: ${error?.message ?? error}` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
