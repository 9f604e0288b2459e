// The WASI behaviour programs (test/wasi-programs/*.c) for the
// test/program-wasi-*.test.js files: where they are built, why a test skips,
// and a child process that runs one of them (test/support/wasi-program-child.js).

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const PROGRAMS_DIR = join(ROOT, ".tmp", "wasi-programs");
export const CHILD = fileURLToPath(new URL("./wasi-program-child.js", import.meta.url));
export const CLI = join(ROOT, "bin", "wasi-thread-pool.js");
export const SHARED = join(ROOT, "..", "shared");

let built = null;

// Builds the programs once per test file (the script rebuilds only what is
// older than its source). Returns false when they are there, else the reason
// to skip (in CI the build fails instead, and so the test).
export function buildWasiPrograms() {
  if (built === null) {
    const r = spawnSync("sh", [join(ROOT, "scripts", "build-wasi-programs.sh")], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`scripts/build-wasi-programs.sh failed:\n${r.stderr}`);
    built = existsSync(join(PROGRAMS_DIR, "fds.wasm")) ? "" : r.stderr.trim() || "the WASI programs were not built";
  }
  return built || false;
}

// The program's C WASI serves Linux and macOS; elsewhere the runner runs on
// node:wasi per thread, which these tests show to be wrong: they skip there.
// (Where it should serve, they run: a C WASI that fails to load fails them.)
export function cWasiSkip() {
  const served = process.platform === "linux" || process.platform === "darwin";
  return served ? false : `the program's C WASI serves Linux and macOS, not ${process.platform}`;
}

export function programPath(name) {
  return join(PROGRAMS_DIR, `${name}.wasm`);
}

export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// Runs `command args` with `input` on its stdin (ended unless `keepOpen`);
// resolves {code, signal, stdout, stderr, result, ms}. Rejects if it does not
// end within boundMs (a hang is what this catches). onStdout(text so far,
// child) sees stdout as it comes.
// pauseMs: the reader does not read stdout for that long at first.
export function runChild(
  command,
  args,
  { env = {}, input = "", keepOpen = false, boundMs = 60_000, onStdout, pauseMs = 0 } = {},
) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
      onStdout?.(stdout, child);
    });
    if (pauseMs > 0) {
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), pauseMs);
    }
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.stdin.on("error", () => {});
    if (input) child.stdin.write(input);
    if (!keepOpen) child.stdin.end();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not end within ${boundMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, boundMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      child.stdin.destroy();
      const line = stderr.split("\n").find((l) => l.startsWith("RESULT "));
      resolve({ code, signal, stdout, stderr, result: line ? JSON.parse(line.slice(7)) : null, ms: performance.now() - started });
    });
  });
}

// Runs a WASI program with runWasiThreadsProgram in a child process.
// programEnv: the program's environment (env: the child process's).
export function runProgram(name, implementation, { args = [], preopens, env = {}, programEnv, after, ...options } = {}) {
  return runChild(process.execPath, [CHILD], {
    ...options,
    env: {
      ...env,
      WTP_WASM: name.endsWith(".wasm") ? name : programPath(name),
      WTP_IMPL: implementation,
      WTP_ARGS: JSON.stringify([name.replace(/^.*\//, ""), ...args]),
      ...(preopens ? { WTP_PREOPENS: JSON.stringify(preopens) } : {}),
      ...(after ? { WTP_AFTER: after } : {}),
      ...(programEnv ? { WTP_ENV: JSON.stringify(programEnv) } : {}),
    },
  });
}

// The program's own report: its "FAIL" lines, for an assertion message.
export function describeRun(r) {
  return `exit ${r.code} (${r.signal}), result ${JSON.stringify(r.result)}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}
