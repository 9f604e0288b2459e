// The real-toolchain guests of the bench (bench/guest/pthread-waves.c with
// wasi-libc's pthreads, bench/guest/zig-waves.zig with Zig 0.11's
// std.Thread), built on demand into .tmp/bench/. buildRealGuest(name) ->
// {path} or {skip: why} (no clang-19, no sysroot, no Zig: the row skips);
// buildPthreadProgram(src, out) builds another C source the pthread guest's
// way.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = join(repoDir, ".tmp", "bench");
const CLANG = process.env.WASI_CLANG || "/usr/lib/llvm-19/bin/clang";
const SYSROOT = process.env.WASI_THREADS_SYSROOT || resolve(repoDir, "..", "shared", "wasi-threads-sysroot");
const ZIG = process.env.ZIG || join(repoDir, "node_modules", "@ryoppippi", "zig-linux-x64", "zig");

// A row's skip for a failed build: the first line of what the tool said.
export function buildFailedSkip(error) {
  const said = String(error.stderr ?? error.message)
    .trim()
    .split("\n")[0];
  return { skip: `build failed: ${said}` };
}

export const REAL_GUESTS = {
  pthread: {
    source: "bench/guest/pthread-waves.c",
    tool: CLANG,
    needs: [CLANG, SYSROOT],
    args: (src, out) => [
      "--target=wasm32-wasi-threads",
      `--sysroot=${SYSROOT}`,
      "-pthread",
      "-O2",
      src,
      "-o",
      out,
      "-Wl,--import-memory,--export-memory,--max-memory=268435456",
      "-Wl,-z,stack-size=1048576",
    ],
  },
  zig: {
    source: "bench/guest/zig-waves.zig",
    tool: ZIG,
    needs: [ZIG],
    args: (src, out) => [
      "build-exe",
      src,
      "-target",
      "wasm32-wasi",
      "-mcpu=generic+atomics+bulk_memory",
      "-fno-single-threaded",
      "--import-memory",
      "--shared-memory",
      "--max-memory=268435456",
      "-O",
      "ReleaseFast",
      "-rdynamic",
      "--cache-dir",
      join(outDir, "zig-cache"),
      "--global-cache-dir",
      join(outDir, "zig-cache"),
      `-femit-bin=${out}`,
    ],
  },
};

export function buildRealGuest(name) {
  const guest = REAL_GUESTS[name];
  if (!guest) throw new RangeError(`guest must be one of ${Object.keys(REAL_GUESTS).join(", ")}`);
  const missing = guest.needs.find((p) => !existsSync(p));
  if (missing) return { skip: `${missing} not present` };
  const src = join(repoDir, guest.source);
  const out = join(outDir, `${name}-waves.wasm`);
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) return { path: out };
  mkdirSync(outDir, { recursive: true });
  try {
    execFileSync(guest.tool, guest.args(src, out), { stdio: "pipe" });
  } catch (error) {
    return buildFailedSkip(error);
  }
  return { path: out };
}

// A C source built for wasm32-wasi-threads with the pthread guest's flags
// (maxMemory: its --max-memory in bytes instead of theirs) when `out` is
// older than it: {path} or {skip: why}.
export function buildPthreadProgram(src, out, { maxMemory = null } = {}) {
  const guest = REAL_GUESTS.pthread;
  const missing = guest.needs.find((p) => !existsSync(p));
  if (missing) return { skip: `${missing} not present` };
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) return { path: out };
  mkdirSync(dirname(out), { recursive: true });
  const args = guest.args(src, out);
  const sized = maxMemory === null ? args : args.map((arg) => arg.replace(/--max-memory=\d+/, `--max-memory=${maxMemory}`));
  try {
    execFileSync(guest.tool, sized, { stdio: "pipe" });
  } catch (error) {
    return buildFailedSkip(error);
  }
  return { path: out };
}
