// What `npm run bench` builds from this repository before its first row, so
// that a fresh clone runs every row its machine allows (issue 28): the
// one-file pool workers (scripts/bundle-workers.js, into dist/) and the
// thread-wave guest (scripts/build-guest.sh, into guest/out/). Both go to
// ignored folders. A tool the machine lacks (clang, wasm-ld, gcc, esbuild)
// is a reason to skip the rows that need its output; a build of ours that
// fails with its tools present is an error the run reports as one.
//
// The other builds the rows need are already made on demand by the rows
// themselves: the C references (bench/c/, cc), the real-toolchain guests
// (bench/lib/real-guests.js), the runner's C guests (bench/lib/runner-rows.js),
// each skipping with its reason when clang-19, the sysroot or Zig is missing.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

// The scenario scripts that load guest/out/thread-wave.wasm (peer.js only in
// its wave-guest mode).
const WAVE_GUEST_SCRIPTS = new Set(["waves.js", "waves-pool.js"]);

export function needsWaveGuest(scenario) {
  return WAVE_GUEST_SCRIPTS.has(scenario.script) || (scenario.script === "peer.js" && scenario.params?.mode === "wave-guest");
}

function onPath(tool) {
  if (tool.includes("/")) return existsSync(tool);
  return (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, tool)));
}

// scripts/build-guest.sh's tools (its CLANG / WASM_LD / CC overrides).
function waveGuestToolsMissing() {
  const tools = [process.env.CLANG || "clang", process.env.WASM_LD || "wasm-ld", process.env.CC || "gcc"];
  const missing = tools.filter((tool) => !onPath(tool));
  return missing.length ? `${missing.join(", ")} not found (apt-get install -y clang lld gcc)` : null;
}

// Builds what the plan needs. Returns {workers, waveGuest}, each {ok} |
// {skip: why} | {error: what failed}, and logs one line per build.
export async function prepareBench({ repoDir, plan, log }) {
  const out = { waveGuest: { ok: true }, workers: null };
  out.workers = await buildWorkers(log);
  if (plan.some(needsWaveGuest)) out.waveGuest = buildWaveGuest(repoDir, log);
  return out;
}

async function buildWorkers(log) {
  let bundler;
  try {
    bundler = await import("../../scripts/bundle-workers.js");
  } catch (error) {
    if (error.code !== "ERR_MODULE_NOT_FOUND" || !/esbuild/.test(error.message)) {
      log(`bench: scripts/bundle-workers.js FAILED to load: ${error.message}`);
      return { error: `scripts/bundle-workers.js failed to load: ${error.message}` };
    }
    // esbuild (a devDependency) is absent: the package's per-module workers run.
    log("bench: the one-file pool workers are not built (esbuild is not installed); the per-module workers run");
    return { skip: "esbuild not installed" };
  }
  try {
    const written = await bundler.writeWorkerBundles();
    log(`bench: built ${written.join(", ")} (scripts/bundle-workers.js)`);
    return { ok: true };
  } catch (error) {
    // Our own sources did not bundle: the rows still run (on the per-module
    // workers), and the run fails at its end.
    log(`bench: scripts/bundle-workers.js FAILED: ${error.message}`);
    return { error: `scripts/bundle-workers.js failed: ${error.message}` };
  }
}

function buildWaveGuest(repoDir, log) {
  const missing = waveGuestToolsMissing();
  if (missing) {
    log(`bench: guest/out/thread-wave.wasm not built: ${missing}; its rows are skipped`);
    return { skip: `the thread-wave guest cannot be built: ${missing}` };
  }
  try {
    execFileSync("sh", [join(repoDir, "scripts", "build-guest.sh")], { cwd: repoDir, stdio: "pipe" });
  } catch (error) {
    const why = String(error.stderr ?? error.message)
      .trim()
      .split("\n")
      .slice(-3)
      .join(" / ");
    log(`bench: scripts/build-guest.sh FAILED: ${why}`);
    return { error: `scripts/build-guest.sh failed: ${why}` };
  }
  log("bench: built guest/out/thread-wave.wasm (scripts/build-guest.sh)");
  return { ok: true };
}
