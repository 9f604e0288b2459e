// The runner tests' WASI programs, in two kinds:
//
// 1. Small WASI preview1 command programs in WebAssembly text, written for
//    this package's runner tests (test/cli.test.js, test/program-exit.test.js,
//    test/program-plain.test.js): showProgram, exitProgram. Each comes in two
//    shapes:
//      threaded: imports a shared memory and wasi.thread-spawn (a wasi-threads
//                program, run on the pool);
//      plain:    defines and exports its own memory, no thread-spawn (an
//                ordinary single-threaded WASI program).
//
//    show: writes its arguments, one a line, then "#env", its environment, one
//    variable a line, then, when fd 3 is a preopened directory holding
//    hello.txt, "#file" and that file's bytes; then exits with `exitCode`.
//
//    exit(code, {onThread}): proc_exit(code) on the main thread, or on a thread
//    (threaded only) while the main thread waits for ever.
//
// 2. The WASI behaviour programs (test/wasi-programs/*.c) for the
//    test/program-wasi-*.test.js files: where they are built, why a test
//    skips, and a child process that runs one of them
//    (test/support/wasi-program-child.js).

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { programWasiUnavailable } from "../../lib/program/wasi.js";
import { watToBytes } from "../fixtures/build.js";

// --- 1. The WAT programs.

// The memory's and thread-spawn's imports (threaded), or the memory's
// definition, which comes after every import (plain).
function memoryImports(plain) {
  return plain
    ? ""
    : '(import "env" "memory" (memory 1 4 shared))\n  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))';
}
const memoryDefinition = (plain) => (plain ? '(memory (export "memory") 1 4)' : "");

const PREVIEW1 = '"wasi_snapshot_preview1"';

// Memory layout of show: 16 iovec, 32 counts, 64 "#env\n", 72 "#file\n",
// 80 "hello.txt", 96 fd, 0x400 pointer arrays, 0x1000 string buffer,
// 0x8000 file buffer.
export function showSource({ plain = false, exitCode = 0 } = {}) {
  return `(module
  ${memoryImports(plain)}
  (import ${PREVIEW1} "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import ${PREVIEW1} "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import ${PREVIEW1} "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import ${PREVIEW1} "args_get" (func $args_get (param i32 i32) (result i32)))
  (import ${PREVIEW1} "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import ${PREVIEW1} "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import ${PREVIEW1} "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import ${PREVIEW1} "proc_exit" (func $proc_exit (param i32)))
  ${memoryDefinition(plain)}
  (data (i32.const 64) "#env\\n")
  (data (i32.const 72) "#file\\n")
  (data (i32.const 80) "hello.txt")
  (func $write (param $ptr i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $ptr))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  ;; NULs -> newlines, then write
  (func $lines (param $ptr i32) (param $len i32)
    (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
      (if (i32.eqz (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (then (i32.store8 (i32.add (local.get $ptr) (local.get $i)) (i32.const 10))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $write (local.get $ptr) (local.get $len)))
  (func $file
    (local $n i32)
    (br_if 0 (call $path_open (i32.const 3) (i32.const 0) (i32.const 80) (i32.const 9) (i32.const 0)
      (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 96)))
    (call $write (i32.const 72) (i32.const 6))
    (i32.store (i32.const 16) (i32.const 0x8000))
    (i32.store (i32.const 20) (i32.const 4096))
    (drop (call $fd_read (i32.load (i32.const 96)) (i32.const 16) (i32.const 1) (i32.const 24)))
    (call $write (i32.const 0x8000) (i32.load (i32.const 24))))
  (func (export "_start")
    (drop (call $args_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $args_get (i32.const 0x400) (i32.const 0x1000)))
    (call $lines (i32.const 0x1000) (i32.load (i32.const 36)))
    (call $write (i32.const 64) (i32.const 5))
    (drop (call $environ_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $environ_get (i32.const 0x400) (i32.const 0x1000)))
    (call $lines (i32.const 0x1000) (i32.load (i32.const 36)))
    (call $file)
    (call $proc_exit (i32.const ${exitCode}))))`;
}

export function exitSource(code, { plain = false, onThread = false } = {}) {
  if (plain && onThread) throw new Error("a plain program has no threads");
  const start = onThread
    ? `(drop (call $spawn (i32.const 0)))
    (loop $again (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))) (br $again))`
    : `(call $proc_exit (i32.const ${code}))`;
  return `(module
  ${memoryImports(plain)}
  (import ${PREVIEW1} "proc_exit" (func $proc_exit (param i32)))
  ${memoryDefinition(plain)}
  (func (export "_start") ${start})
  ${plain ? "" : `(func (export "wasi_thread_start") (param i32 i32) (call $proc_exit (i32.const ${code})))`})`;
}

export const showProgram = (options) => watToBytes(showSource(options), "show.wat");
export const exitProgram = (code, options) => watToBytes(exitSource(code, options), "exit.wat");

// --- 2. The WASI behaviour programs in C.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const PROGRAMS_DIR = join(ROOT, ".tmp", "wasi-programs");
export const CHILD = fileURLToPath(new URL("./wasi-program-child.js", import.meta.url));
export const CLI = join(ROOT, "bin", "wasi-thread-pool.js");
export const SHARED = join(ROOT, "..", "shared");

let built = null;

// Builds the programs once per test file (the script rebuilds only what is
// older than its source). Returns false when they are there, else the reason
// to skip (in CI the build fails instead, and so the test).
// On Windows there is no sh: the programs must have been built beforehand
// (scripts/wine-win64.sh builds them on the Linux side before node.exe runs
// the suites); missing ones are a reason to skip, or in CI a failure.
export function buildWasiPrograms() {
  if (built === null && process.platform === "win32") {
    const absent = PROGRAM_NAMES.filter((name) => !existsSync(programPath(name)));
    built = absent.length
      ? `${absent.join(", ")} not in ${PROGRAMS_DIR} (no sh on Windows: build them with scripts/build-wasi-programs.sh first)`
      : "";
    if (built && process.env.CI === "true") throw new Error(built);
  }
  if (built === null) {
    const r = spawnSync("sh", [join(ROOT, "scripts", "build-wasi-programs.sh")], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`scripts/build-wasi-programs.sh failed:\n${r.stderr}`);
    built = existsSync(join(PROGRAMS_DIR, "fds.wasm")) ? "" : r.stderr.trim() || "the WASI programs were not built";
  }
  return built || false;
}

// The programs of test/wasi-programs (each a .c file there).
const PROGRAM_NAMES = ["basics", "blocking", "fds", "growfill", "process", "reactor_grow", "rights", "sandbox"];

// The program's C WASI serves Linux and macOS, and Windows where the addon
// has it (issue 30); elsewhere the runner runs on node:wasi per thread,
// which these tests show to be wrong: they skip there. (Where it should
// serve, they run: a C WASI that fails to load fails them. On Windows an
// addon without it is a reason to skip that names the addon: the Wine
// script checks separately that the runner does not fall back.)
export function cWasiSkip() {
  if (process.platform === "linux" || process.platform === "darwin") return false;
  if (process.platform === "win32") {
    const unavailable = programWasiUnavailable();
    return unavailable ? `the program's C WASI does not serve here: ${unavailable.reason}` : false;
  }
  return `the program's C WASI serves Linux, macOS and Windows, not ${process.platform}`;
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
