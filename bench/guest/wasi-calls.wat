;; The WASI call rows of `npm run bench` (bench/scenarios/wasi-calls.js):
;; loops of one preview1 call each, run by the host on the guest's own
;; thread, so that a loop's time / its count is the cost of one call through
;; the imports it was given (the program's C WASI or node:wasi).
;;
;; Memory (one shared page is plenty):
;;   64   iovec {buf 4096, len 4096}      80  nwritten / nread
;;   88   fd_seek's result                 96  the opened fd
;;   104  clock_time_get's timestamp       128 the path "bench.dat"
;;   200  fd_fdstat_get of the preopen (fs_rights_inheriting at 216)
;;   4096 the 4 KiB buffer
(module
  (import "env" "memory" (memory 1 16 shared))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (data (i32.const 64) "\00\10\00\00\00\10\00\00")
  (data (i32.const 128) "bench.dat")

  ;; Reads the rights the preopen (fd 3) hands down, once. 0 or errno.
  (func (export "prepare") (result i32) (call $fd_fdstat_get (i32.const 3) (i32.const 200)))

  ;; path_open of "bench.dat" in the preopen with those rights; oflags 9 =
  ;; CREAT | TRUNC, 0 = open. The fd, or -errno.
  (func $open (param $oflags i32) (result i32) (local $e i32)
    (local.set $e (call $path_open (i32.const 3) (i32.const 0) (i32.const 128) (i32.const 9) (local.get $oflags)
      (i64.load (i32.const 216)) (i64.load (i32.const 216)) (i32.const 0) (i32.const 96)))
    (if (local.get $e) (then (return (i32.sub (i32.const 0) (local.get $e)))))
    (i32.load (i32.const 96)))
  (func (export "open_file") (param $oflags i32) (result i32) (call $open (local.get $oflags)))

  ;; n writes of 4 KiB; back to the start every 256 (1 MiB), so that the
  ;; file stays small (one fd_seek per 256 writes is counted in). 0 or errno.
  (func (export "write_loop") (param $fd i32) (param $n i32) (result i32) (local $i i32) (local $e i32)
    (block $out (loop $next
      (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $e (call $fd_write (local.get $fd) (i32.const 64) (i32.const 1) (i32.const 80)))
      (br_if $out (local.get $e))
      (if (i32.eqz (i32.and (local.get $i) (i32.const 255)))
        (then (local.set $e (call $fd_seek (local.get $fd) (i64.const 0) (i32.const 0) (i32.const 88)))))
      (br_if $out (local.get $e))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $e))

  ;; n reads of 4 KiB; at the end of the file (a read of 0) back to the start.
  (func (export "read_loop") (param $fd i32) (param $n i32) (result i32) (local $i i32) (local $e i32)
    (block $out (loop $next
      (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $e (call $fd_read (local.get $fd) (i32.const 64) (i32.const 1) (i32.const 80)))
      (br_if $out (local.get $e))
      (if (i32.eqz (i32.load (i32.const 80)))
        (then (local.set $e (call $fd_seek (local.get $fd) (i64.const 0) (i32.const 0) (i32.const 88)))))
      (br_if $out (local.get $e))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $e))

  ;; n times path_open of "bench.dat" then fd_close. 0 or errno.
  (func (export "open_close_loop") (param $n i32) (result i32) (local $i i32) (local $e i32) (local $fd i32)
    (block $out (loop $next
      (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $fd (call $open (i32.const 0)))
      (if (i32.lt_s (local.get $fd) (i32.const 0)) (then (local.set $e (i32.sub (i32.const 0) (local.get $fd))) (br $out)))
      (local.set $e (call $fd_close (local.get $fd)))
      (br_if $out (local.get $e))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $e))

  ;; n times clock_time_get(MONOTONIC). 0 or errno.
  (func (export "clock_loop") (param $n i32) (result i32) (local $i i32) (local $e i32)
    (block $out (loop $next
      (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $e (call $clock_time_get (i32.const 1) (i64.const 1) (i32.const 104)))
      (br_if $out (local.get $e))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $e)))
