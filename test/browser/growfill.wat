;; Memory that one thread grows, filled by another at once (issue 26), as
;; test/wasi-programs/growfill.c's first part, by hand so that the browser
;; test needs no toolchain. run() (the main thread) spawns one filler thread;
;; in each of ROUNDS rounds it waits until the filler has started a long
;; memory.fill of its own block, grows the memory by 4 pages, and publishes
;; the new pages' address. The filler, straight out of its fill (no call, no
;; loop: no stack check in between), fills the new pages with memory.fill
;; and checks them. Correct on any engine; V8 checks memory.fill against a
;; per-thread copy of the memory's size, so without the memory pass the
;; filler traps. run() returns the wrong bytes seen (0 when right), or -1
;; (memory.grow failed) or -2 (the filler stopped answering: it trapped).
;; size() is the guest's memory.size.
;;
;; Words: 0 filling (round started), 4 published (round of `fresh`),
;; 8 checked (rounds checked), 12 fresh (address), 16 bad. The filler's
;; block: pages 1 to 4.
(module
  (import "env" "memory" (memory 5 128 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))

  ;; Waits until the word at $addr is no longer $value: 1, or 0 after 10 s.
  (func $changed (param $addr i32) (param $value i32) (result i32)
    (loop $again
      (if (i32.ne (i32.atomic.load (local.get $addr)) (local.get $value))
        (then (return (i32.const 1))))
      (if (i32.eq (memory.atomic.wait32 (local.get $addr) (local.get $value) (i64.const 10000000000))
                  (i32.const 2))
        (then (return (i32.const 0))))
      (br $again))
    (i32.const 0))

  (func $publish (param $addr i32) (param $value i32)
    (i32.atomic.store (local.get $addr) (local.get $value))
    (drop (memory.atomic.notify (local.get $addr) (i32.const 1))))

  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (local $r i32) (local $p i32) (local $i i32)
    (local.set $r (i32.const 1))
    (loop $round
      (call $publish (i32.const 0) (local.get $r))
      (memory.fill (i32.const 65536) (local.get $r) (i32.const 262144))
      (if (i32.ne (i32.atomic.load (i32.const 4)) (local.get $r))
        (then (drop (call $changed (i32.const 4) (i32.sub (local.get $r) (i32.const 1))))))
      (local.set $p (i32.load (i32.const 12)))
      (memory.fill (local.get $p) (local.get $r) (i32.const 262144))
      (local.set $i (i32.const 0))
      (loop $check
        (if (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i))) (local.get $r))
          (then (i32.store (i32.const 16) (i32.add (i32.load (i32.const 16)) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4093)))
        (br_if $check (i32.lt_u (local.get $i) (i32.const 262144))))
      (call $publish (i32.const 8) (local.get $r))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $round (i32.le_u (local.get $r) (i32.const 24)))))

  (func (export "run") (result i32)
    (local $r i32) (local $old i32)
    (if (i32.lt_s (call $spawn (i32.const 0)) (i32.const 0)) (then (return (i32.const -3))))
    (local.set $r (i32.const 1))
    (loop $round
      (if (i32.eqz (call $changed (i32.const 0) (i32.sub (local.get $r) (i32.const 1))))
        (then (return (i32.const -2))))
      (local.set $old (memory.grow (i32.const 4)))
      (if (i32.lt_s (local.get $old) (i32.const 0)) (then (return (i32.const -1))))
      (i32.store (i32.const 12) (i32.mul (local.get $old) (i32.const 65536)))
      (call $publish (i32.const 4) (local.get $r))
      (if (i32.eqz (call $changed (i32.const 8) (i32.sub (local.get $r) (i32.const 1))))
        (then (return (i32.const -2))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $round (i32.le_u (local.get $r) (i32.const 24))))
    (i32.load (i32.const 16)))

  (func (export "size") (result i32) (memory.size)))
