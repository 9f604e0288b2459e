// WebAssembly text programs for the runner's caller-stream tests
// (test/program-streams.test.js), written for this package: a writer that
// floods stdout, on the main thread or on another thread, and optionally a
// second thread of control that waits for one byte of stdin and then ends
// the program (proc_exit(7)) or traps.
//
// Memory (bytes):
//    0 DONE     the writer finished (notified)
//   64 iovec and nwritten of the writer; 96 of the stdin reader
//  128 the stdin reader's one-byte buffer
//  65536 the chunk the writer writes (CHUNK_BYTES): chunk i is CHUNK_BYTES
//        bytes of the value i & 255, so that the output shows every chunk
//        whole and in order
//
// The writer ignores what fd_write answers (as `yes` does): only the runner
// can end it.

import { watToBytes } from "../fixtures/build.js";

export const CHUNK_BYTES = 65536;

// writer: "main" or "thread"; chunks: how many (0: for ever); then: what the
// other thread of control does once it has read a byte of stdin: "exit"
// (proc_exit(7)), "trap" (unreachable), or null (nothing: it waits for the
// writer, or there is none).
export function streamProgramSource({ writer = "main", chunks = 0, then = null } = {}) {
  const ender = then === null ? "" : `(call $read_byte) ${then === "exit" ? "(call $proc_exit (i32.const 7))" : "(unreachable)"}`;
  const onThread = writer === "thread" ? "(call $flood)" : ender;
  const onMain =
    writer === "main"
      ? `${then !== null ? "(drop (call $spawn (i32.const 0)))" : ""} (call $flood)`
      : `(drop (call $spawn (i32.const 0))) ${then !== null ? ender : "(call $await_done)"}`;
  return `(module
  (import "env" "memory" (memory 2 2 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (func $flood
    (local $i i32)
    (block $out
      (loop $next
        (br_if $out (i32.and (i32.ne (i32.const ${chunks}) (i32.const 0)) (i32.ge_u (local.get $i) (i32.const ${chunks}))))
        (memory.fill (i32.const 65536) (local.get $i) (i32.const ${CHUNK_BYTES}))
        (i32.store (i32.const 64) (i32.const 65536))
        (i32.store (i32.const 68) (i32.const ${CHUNK_BYTES}))
        (drop (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 72)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const -1))))
  (func $await_done
    (loop $again
      (if (i32.eqz (i32.atomic.load (i32.const 0)))
        (then (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))) (br $again)))))
  (func $read_byte
    (i32.store (i32.const 96) (i32.const 128))
    (i32.store (i32.const 100) (i32.const 1))
    (drop (call $fd_read (i32.const 0) (i32.const 96) (i32.const 1) (i32.const 104))))
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32) ${onThread})
  (func (export "_start") ${onMain}))`;
}

export function buildStreamProgram(shape) {
  return watToBytes(streamProgramSource(shape), "stream.wat");
}
