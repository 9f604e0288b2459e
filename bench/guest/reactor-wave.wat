;; The reactor guest of the peer benchmark (bench/scenarios/peer.js): no
;; _start, no WASI; each call of wave(n, work) spawns n threads (lanes 1..n),
;; runs lane 0 itself, and joins them (memory.atomic.wait32 on a counter),
;; so one call is one wave. A declined spawn runs its lane inline.
;; malloc/free exist for @emnapi/wasi-threads, whose thread-spawn borrows 8
;; bytes of guest memory for its start handshake (a ring of 64 slots: the
;; spawns of one thread are sequential).
;;
;; Memory (one shared page): [0] threads finished, [4] sum of the lanes'
;; results, [8] work per lane, [12] malloc ring counter, [1024..1536) ring.
(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (func $mix (param $x i32) (param $n i32) (result i32)
    (local $i i32)
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x
          (i32.mul (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 15))) (i32.const 0x2c1b3c6d)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $x))
  (func $lane (param $k i32)
    (drop (i32.atomic.rmw.add (i32.const 4)
      (call $mix (i32.add (local.get $k) (i32.const 1)) (i32.atomic.load (i32.const 8))))))
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (call $lane (local.get $arg))
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const -1))))
  ;; Returns the number of declined spawns (lanes run inline).
  (func (export "wave") (param $n i32) (param $work i32) (result i32)
    (local $i i32) (local $spawned i32) (local $declined i32) (local $done i32)
    (i32.atomic.store (i32.const 0) (i32.const 0))
    (i32.atomic.store (i32.const 8) (local.get $work))
    (local.set $i (i32.const 1))
    (block $out
      (loop $next
        (br_if $out (i32.gt_u (local.get $i) (local.get $n)))
        (if (i32.lt_s (call $spawn (local.get $i)) (i32.const 0))
          (then
            (call $lane (local.get $i))
            (local.set $declined (i32.add (local.get $declined) (i32.const 1))))
          (else (local.set $spawned (i32.add (local.get $spawned) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $lane (i32.const 0))
    (block $joined
      (loop $wait
        (local.set $done (i32.atomic.load (i32.const 0)))
        (br_if $joined (i32.ge_u (local.get $done) (local.get $spawned)))
        (drop (memory.atomic.wait32 (i32.const 0) (local.get $done) (i64.const -1)))
        (br $wait)))
    (local.get $declined))
  (func (export "malloc") (param $size i32) (result i32)
    (i32.add (i32.const 1024)
      (i32.shl (i32.and (i32.atomic.rmw.add (i32.const 12) (i32.const 1)) (i32.const 63)) (i32.const 3))))
  (func (export "free") (param $ptr i32)))
