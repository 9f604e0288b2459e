// Small WASI preview1 command programs in WebAssembly text, written for this
// package's runner tests (test/cli.test.js, test/program-exit.test.js,
// test/program-plain.test.js). Each comes in two shapes:
//   threaded: imports a shared memory and wasi.thread-spawn (a wasi-threads
//             program, run on the pool);
//   plain:    defines and exports its own memory, no thread-spawn (an
//             ordinary single-threaded WASI program).
//
// show: writes its arguments, one a line, then "#env", its environment, one
// variable a line, then, when fd 3 is a preopened directory holding
// hello.txt, "#file" and that file's bytes; then exits with `exitCode`.
//
// exit(code, {onThread}): proc_exit(code) on the main thread, or on a thread
// (threaded only) while the main thread waits for ever.

import { watToBytes } from "../fixtures/build.js";

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
