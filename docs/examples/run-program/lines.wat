;; lines: a small wasi-threads program for the samples. `lines FILE` reads
;; FILE (a path under one of its preopened directories), counts its lines on
;; four threads (each one a quarter of the bytes) and prints
;; "FILE: N lines". Exit status: 0, 1 when FILE cannot be opened, 2 without
;; an argument.
;;
;; Build: npx wat2wasm --enable-threads lines.wat -o lines.wasm
;;
;; Memory (bytes):
;;   0 argc, 4 argv buffer size, 16.. argv (16 pointers), 256.. argv strings
;;   (1 KiB); 1280 prestat, 1288 nread/nwritten, 1292 the file's fd,
;;   1296 iovecs; 1408 PENDING (threads not yet finished), 1412 LINES,
;;   1416 LENGTH (bytes read); 1424.. the prestat dir name (128 bytes);
;;   1600.. text; 65536.. the file (at most 192 KiB are read).
(module
  (import "env" "memory" (memory 4 4 shared))
  (import "wasi" "thread-spawn" (func $thread_spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))

  (global $THREADS i32 (i32.const 4))
  (global $PENDING i32 (i32.const 1408))
  (global $LINES i32 (i32.const 1412))
  (global $LENGTH i32 (i32.const 1416))
  (global $NAME i32 (i32.const 1424))
  (global $DATA i32 (i32.const 65536))
  (global $CAPACITY i32 (i32.const 196608))

  (data (i32.const 1600) "usage: lines FILE\n")
  (data (i32.const 1620) "lines: cannot open ")
  (data (i32.const 1640) ": ")
  (data (i32.const 1644) " lines\n")
  (data (i32.const 1652) "\n")

  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $end
      (loop $next
        (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; Writes the pieces (pointer, length) of the iovecs at 1296 to fd.
  (func $write (param $fd i32) (param $count i32)
    (drop (call $fd_write (local.get $fd) (i32.const 1296) (local.get $count) (i32.const 1288))))

  (func $iovec (param $i i32) (param $ptr i32) (param $len i32)
    (i32.store (i32.add (i32.const 1296) (i32.shl (local.get $i) (i32.const 3))) (local.get $ptr))
    (i32.store (i32.add (i32.const 1300) (i32.shl (local.get $i) (i32.const 3))) (local.get $len)))

  ;; Whether the n bytes at a and b are equal.
  (func $same (param $a i32) (param $b i32) (param $n i32) (result i32)
    (block $differ
      (loop $next
        (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
        (br_if $differ (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; Opens the path at p (n bytes) beneath the preopen whose name is a prefix
  ;; of it; returns the fd, or -1.
  (func $open (param $p i32) (param $n i32) (result i32)
    (local $fd i32) (local $len i32)
    (local.set $fd (i32.const 3))
    (loop $next
      (if (call $fd_prestat_get (local.get $fd) (i32.const 1280)) (then (return (i32.const -1))))
      (local.set $len (i32.load (i32.const 1284)))
      (if (i32.and
            (i32.and (i32.le_u (local.get $len) (i32.const 128)) (i32.lt_u (local.get $len) (local.get $n)))
            (i32.eqz (call $fd_prestat_dir_name (local.get $fd) (global.get $NAME) (local.get $len))))
        (then
          (if (i32.and
                (call $same (local.get $p) (global.get $NAME) (local.get $len))
                (i32.eq (i32.load8_u (i32.add (local.get $p) (local.get $len))) (i32.const 47)))
            (then
              (if (i32.eqz (call $path_open (local.get $fd) (i32.const 0)
                    (i32.add (local.get $p) (i32.add (local.get $len) (i32.const 1)))
                    (i32.sub (local.get $n) (i32.add (local.get $len) (i32.const 1)))
                    (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 1292)))
                (then (return (i32.load (i32.const 1292)))))
              (return (i32.const -1))))))
      (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
      (br $next))
    (i32.const -1))

  ;; Counts the newlines of quarter $i of the file into LINES, then ends.
  (func $count (param $i i32)
    (local $p i32) (local $end i32) (local $lines i32) (local $len i32)
    (local.set $len (i32.load (global.get $LENGTH)))
    (local.set $p (i32.add (global.get $DATA)
      (i32.div_u (i32.mul (local.get $len) (local.get $i)) (global.get $THREADS))))
    (local.set $end (i32.add (global.get $DATA)
      (i32.div_u (i32.mul (local.get $len) (i32.add (local.get $i) (i32.const 1))) (global.get $THREADS))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $lines (i32.add (local.get $lines) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (drop (i32.atomic.rmw.add (global.get $LINES) (local.get $lines)))
    (drop (i32.atomic.rmw.sub (global.get $PENDING) (i32.const 1)))
    (drop (memory.atomic.notify (global.get $PENDING) (i32.const 1))))

  (func (export "wasi_thread_start") (param $tid i32) (param $i i32)
    (call $count (local.get $i)))

  (func (export "_start")
    (local $path i32) (local $n i32) (local $fd i32) (local $i i32) (local $left i32) (local $p i32) (local $lines i32)
    (drop (call $args_sizes_get (i32.const 0) (i32.const 4)))
    (if (i32.or (i32.lt_u (i32.load (i32.const 0)) (i32.const 2))
          (i32.or (i32.gt_u (i32.load (i32.const 0)) (i32.const 16)) (i32.gt_u (i32.load (i32.const 4)) (i32.const 1024))))
      (then
        (call $iovec (i32.const 0) (i32.const 1600) (i32.const 18))
        (call $write (i32.const 2) (i32.const 1))
        (call $proc_exit (i32.const 2))))
    (drop (call $args_get (i32.const 16) (i32.const 256)))
    (local.set $path (i32.load (i32.const 20)))
    (local.set $n (call $strlen (local.get $path)))
    (local.set $fd (call $open (local.get $path) (local.get $n)))
    (if (i32.lt_s (local.get $fd) (i32.const 0))
      (then
        (call $iovec (i32.const 0) (i32.const 1620) (i32.const 19))
        (call $iovec (i32.const 1) (local.get $path) (local.get $n))
        (call $iovec (i32.const 2) (i32.const 1652) (i32.const 1))
        (call $write (i32.const 2) (i32.const 3))
        (call $proc_exit (i32.const 1))))
    ;; Read the file into DATA.
    (block $eof
      (loop $more
        (local.set $left (i32.sub (global.get $CAPACITY) (i32.load (global.get $LENGTH))))
        (br_if $eof (i32.eqz (local.get $left)))
        (call $iovec (i32.const 0) (i32.add (global.get $DATA) (i32.load (global.get $LENGTH))) (local.get $left))
        (br_if $eof (call $fd_read (local.get $fd) (i32.const 1296) (i32.const 1) (i32.const 1288)))
        (br_if $eof (i32.eqz (i32.load (i32.const 1288))))
        (i32.store (global.get $LENGTH) (i32.add (i32.load (global.get $LENGTH)) (i32.load (i32.const 1288))))
        (br $more)))
    ;; One thread per quarter; a spawn that fails runs its quarter here.
    (i32.atomic.store (global.get $PENDING) (global.get $THREADS))
    (block $spawned
      (loop $spawn
        (br_if $spawned (i32.ge_u (local.get $i) (global.get $THREADS)))
        (if (i32.lt_s (call $thread_spawn (local.get $i)) (i32.const 0))
          (then (call $count (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $spawn)))
    (block $joined
      (loop $join
        (local.set $left (i32.atomic.load (global.get $PENDING)))
        (br_if $joined (i32.eqz (local.get $left)))
        (drop (memory.atomic.wait32 (global.get $PENDING) (local.get $left) (i64.const -1)))
        (br $join)))
    ;; "FILE: N lines\n", the digits written backwards before 1600.
    (local.set $lines (i32.atomic.load (global.get $LINES)))
    (local.set $p (i32.const 1600))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $lines) (i32.const 10))))
      (local.set $lines (i32.div_u (local.get $lines) (i32.const 10)))
      (br_if $digit (local.get $lines)))
    (call $iovec (i32.const 0) (local.get $path) (local.get $n))
    (call $iovec (i32.const 1) (i32.const 1640) (i32.const 2))
    (call $iovec (i32.const 2) (local.get $p) (i32.sub (i32.const 1600) (local.get $p)))
    (call $iovec (i32.const 3) (i32.const 1644) (i32.const 7))
    (call $write (i32.const 1) (i32.const 4))))
