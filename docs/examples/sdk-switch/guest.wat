;; A tiny wasi-threads guest: run(n) spawns n threads and joins them.
;;
;; Imports what a wasi-threads guest imports (the shared memory and
;; wasi.thread-spawn) and exports wasi_thread_start(tid, startArg), which a
;; pool worker calls on a fresh instance over the same memory.
;;
;; Thread i (start argument i) sums 0..(i+1)*1000 and writes a 16-byte record
;; at 1024 + 16*i: [+0] done flag (atomic, notified), [+4] its tid,
;; [+8] its sum, [+12] 1 if it ran inline on the caller (spawn declined).
;; run(n) returns the sum of the n sums; word 256 (byte 1024 - 4 = 1020)
;; counts the threads that ran inline, as pthread_create's EAGAIN fallback
;; would.
;;
;; The join waits (memory.atomic.wait32) sit in run, a function with one
;; param, so it stays clear of the Liftoff hazard of Node 20 (a wait that
;; returns at once in a function with two i32 params loses the second one).
;;
;; Compile with wabt's parseWat(..., { threads: true }) (build-guest.js).

(module
  (import "env" "memory" (memory 1 16 shared))
  (import "wasi" "thread-spawn" (func $thread_spawn (param i32) (result i32)))

  (global $RECORDS i32 (i32.const 1024))
  (global $INLINE i32 (i32.const 1020))

  (func $record (param $i i32) (result i32)
    (i32.add (global.get $RECORDS) (i32.shl (local.get $i) (i32.const 4))))

  ;; The work of thread $i, recorded under $tid.
  (func $work (param $tid i32) (param $i i32) (param $inline i32)
    (local $r i32) (local $k i32) (local $n i32) (local $sum i32)
    (local.set $r (call $record (local.get $i)))
    (local.set $n (i32.mul (i32.add (local.get $i) (i32.const 1)) (i32.const 1000)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (local.get $k) (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (local.get $k)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (i32.store offset=4 (local.get $r) (local.get $tid))
    (i32.store offset=8 (local.get $r) (local.get $sum))
    (i32.store offset=12 (local.get $r) (local.get $inline))
    (i32.atomic.store (local.get $r) (i32.const 1))
    (drop (memory.atomic.notify (local.get $r) (i32.const 1))))

  ;; The entry point of a spawned thread.
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (call $work (local.get $tid) (local.get $arg) (i32.const 0)))

  ;; Spawn n threads (start argument = index), join them all, return the sum
  ;; of their sums. A declined spawn (-1) runs that thread's work inline.
  (func (export "run") (param $n i32) (result i32)
    (local $i i32) (local $r i32) (local $total i32)
    (i32.atomic.store (global.get $INLINE) (i32.const 0))
    ;; clear the records, so that run can be called again
    (local.set $i (i32.const 0))
    (block $cleared
      (loop $clear
        (br_if $cleared (i32.ge_u (local.get $i) (local.get $n)))
        (i32.atomic.store (call $record (local.get $i)) (i32.const 0))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $clear)))
    ;; spawn
    (local.set $i (i32.const 0))
    (block $spawned
      (loop $spawn
        (br_if $spawned (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.lt_s (call $thread_spawn (local.get $i)) (i32.const 0))
          (then
            (call $work (i32.const 0) (local.get $i) (i32.const 1))
            (drop (i32.atomic.rmw.add (global.get $INLINE) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $spawn)))
    ;; join
    (local.set $i (i32.const 0))
    (block $joined
      (loop $join
        (br_if $joined (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $r (call $record (local.get $i)))
        (block $done
          (loop $wait
            (br_if $done (i32.atomic.load (local.get $r)))
            (drop (memory.atomic.wait32 (local.get $r) (i32.const 0) (i64.const -1)))
            (br $wait)))
        (local.set $total (i32.add (local.get $total) (i32.load offset=8 (local.get $r))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $join)))
    (local.get $total))
)
