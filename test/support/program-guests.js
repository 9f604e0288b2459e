// WebAssembly text programs for the runner's tests (test/program.test.js),
// written for this package. Each is a wasi-threads command: _start is the
// main thread, wasi_thread_start(tid, kind) runs one of the thread kinds
// below.
//
// Memory (bytes):
//    0 STARTED  threads that reached their blocking point (notified)
//    4 NEVER    a word that is never changed or notified
//    8 DONE     threads that finished (notified)
//   16 INSTANCES instances made (thread-instantiate-fails)
//   64 text     "main says bye" (13), 96 "exiter" (6)
//  512 + 64*tid  a thread's scratch: iovec, counts, its line text
//  8192 + 64*tid a thread's read buffer (64 bytes)
//
// Thread kinds (the start argument):
//   1 wait    STARTED++, then memory.atomic.wait32 for ever
//   2 busy    STARTED++, then loop for ever
//   3 reader  fd_read(0) once, STARTED++, fd_read(0) again (never returns in
//             the tests: stdin stays open); if it does, proc_exit(99)
//   4 exiter  waits for STARTED >= 3, writes "exiter" to fd 1, proc_exit(5)
//   5 trapper waits for STARTED >= 2, then `unreachable`
//   6 writer  100 lines "t<tid>-<nn>\n" then "t<tid> end" (no newline), DONE++
//   7 cat     copies fd 0 to fd 1 until end of file, DONE++
//   8 exiter2 waits for STARTED >= 2, writes "exiter", proc_exit(5)

import { watToBytes } from "../fixtures/build.js";

function header({ memModule = "env", memName = "memory", pages = "1 4" } = {}, extraImports = "") {
  return `
  (import "${memModule}" "${memName}" (memory ${pages} shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))${extraImports}
  (data (i32.const 64) "main says bye")
  (data (i32.const 96) "exiter")
  (func $scratch (param $tid i32) (result i32)
    (i32.add (i32.const 512) (i32.mul (i32.const 64) (i32.and (local.get $tid) (i32.const 63)))))
  (func $write (param $fd i32) (param $ptr i32) (param $len i32) (param $s i32)
    (i32.store (local.get $s) (local.get $ptr))
    (i32.store offset=4 (local.get $s) (local.get $len))
    (drop (call $fd_write (local.get $fd) (local.get $s) (i32.const 1) (i32.add (local.get $s) (i32.const 8)))))
  ;; fd_read(0) into the thread's buffer; returns the bytes read (0 at EOF)
  (func $read (param $tid i32) (result i32)
    (local $s i32)
    (local.set $s (call $scratch (local.get $tid)))
    (i32.store (local.get $s) (i32.add (i32.const 8192) (i32.mul (i32.const 64) (i32.and (local.get $tid) (i32.const 63)))))
    (i32.store offset=4 (local.get $s) (i32.const 64))
    (drop (call $fd_read (i32.const 0) (local.get $s) (i32.const 1) (i32.add (local.get $s) (i32.const 8))))
    (i32.load offset=8 (local.get $s)))
  (func $bump (param $word i32)
    (drop (i32.atomic.rmw.add (local.get $word) (i32.const 1)))
    (drop (memory.atomic.notify (local.get $word) (i32.const -1))))
  (func $await (param $word i32) (param $n i32)
    (local $v i32)
    (block $done
      (loop $again
        (local.set $v (i32.atomic.load (local.get $word)))
        (br_if $done (i32.ge_u (local.get $v) (local.get $n)))
        (drop (memory.atomic.wait32 (local.get $word) (local.get $v) (i64.const -1)))
        (br $again))))
  (func $wait_forever
    (loop $again
      (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const -1)))
      (br $again)))
  (func $busy (loop $again (br $again)))
  (func $reader (param $tid i32)
    (drop (call $read (local.get $tid)))
    (call $bump (i32.const 0))
    (drop (call $read (local.get $tid)))
    (call $proc_exit (i32.const 99)))
  (func $writer (param $tid i32)
    (local $s i32) (local $line i32) (local $n i32)
    (local.set $s (call $scratch (local.get $tid)))
    (local.set $line (i32.add (local.get $s) (i32.const 16)))
    ;; "t<tid>-nn\\n"
    (i32.store8 (local.get $line) (i32.const 116))
    (i32.store8 offset=1 (local.get $line) (i32.add (i32.const 48) (local.get $tid)))
    (i32.store8 offset=2 (local.get $line) (i32.const 45))
    (i32.store8 offset=5 (local.get $line) (i32.const 10))
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $n) (i32.const 100)))
        (i32.store8 offset=3 (local.get $line) (i32.add (i32.const 48) (i32.div_u (local.get $n) (i32.const 10))))
        (i32.store8 offset=4 (local.get $line) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
        (call $write (i32.const 1) (local.get $line) (i32.const 6) (local.get $s))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    ;; "t<tid> end"
    (i32.store8 offset=2 (local.get $line) (i32.const 32))
    (i32.store8 offset=3 (local.get $line) (i32.const 101))
    (i32.store8 offset=4 (local.get $line) (i32.const 110))
    (i32.store8 offset=5 (local.get $line) (i32.const 100))
    (call $write (i32.const 1) (local.get $line) (i32.const 6) (local.get $s))
    (call $bump (i32.const 8)))
  (func $cat (param $tid i32)
    (local $n i32)
    (block $eof
      (loop $next
        (local.set $n (call $read (local.get $tid)))
        (br_if $eof (i32.eqz (local.get $n)))
        (call $write (i32.const 1)
          (i32.add (i32.const 8192) (i32.mul (i32.const 64) (i32.and (local.get $tid) (i32.const 63))))
          (local.get $n) (call $scratch (local.get $tid)))
        (br $next)))
    (call $bump (i32.const 8)))
  (func (export "wasi_thread_start") (param $tid i32) (param $kind i32)
    (if (i32.eq (local.get $kind) (i32.const 1)) (then (call $bump (i32.const 0)) (call $wait_forever)))
    (if (i32.eq (local.get $kind) (i32.const 2)) (then (call $bump (i32.const 0)) (call $busy)))
    (if (i32.eq (local.get $kind) (i32.const 3)) (then (call $reader (local.get $tid))))
    (if (i32.eq (local.get $kind) (i32.const 4))
      (then
        (call $await (i32.const 0) (i32.const 3))
        (call $write (i32.const 1) (i32.const 96) (i32.const 6) (call $scratch (local.get $tid)))
        (call $proc_exit (i32.const 5))))
    (if (i32.eq (local.get $kind) (i32.const 5))
      (then (call $await (i32.const 0) (i32.const 2)) (unreachable)))
    (if (i32.eq (local.get $kind) (i32.const 6)) (then (call $writer (local.get $tid))))
    (if (i32.eq (local.get $kind) (i32.const 7)) (then (call $cat (local.get $tid))))
    (if (i32.eq (local.get $kind) (i32.const 8))
      (then
        (call $await (i32.const 0) (i32.const 2))
        (call $write (i32.const 1) (i32.const 96) (i32.const 6) (call $scratch (local.get $tid)))
        (call $proc_exit (i32.const 5)))))`;
}

const spawn = (...kinds) => kinds.map((k) => `(drop (call $spawn (i32.const ${k})))`).join("\n    ");
const MAIN_TID = 63;

// name -> {main: body of _start, memory?: {memModule, memName, pages}}
export const PROGRAMS = {
  // proc_exit on the main thread while the others block in a wait, loop,
  // and sit in fd_read; its last line is partial.
  "main-exit": {
    main: `${spawn(1, 2, 3)}
    (call $await (i32.const 0) (i32.const 3))
    (call $write (i32.const 1) (i32.const 64) (i32.const 13) (call $scratch (i32.const ${MAIN_TID})))
    (call $proc_exit (i32.const 3))`,
  },
  // proc_exit on another thread while the main thread waits for ever
  "thread-exit-main-waits": { main: `${spawn(1, 2, 3, 4)}\n    (call $wait_forever)` },
  // ... while the main thread busy-loops
  "thread-exit-main-busy": { main: `${spawn(1, 2, 3, 4)}\n    (call $busy)` },
  // ... while the main thread sits in fd_read (and a thread waits, one loops)
  "thread-exit-main-reads": { main: `${spawn(1, 2, 4)}\n    (call $reader (i32.const ${MAIN_TID}))` },
  // _start returns while the other threads block
  "start-returns": { main: `${spawn(1, 2)}\n    (call $await (i32.const 0) (i32.const 2))` },
  // a trap on thread 3 while thread 1 waits, thread 2 loops, main waits
  "thread-trap": { main: `${spawn(1, 2, 5)}\n    (call $wait_forever)` },
  // a trap on the main thread while thread 1 waits
  "main-trap": { main: `${spawn(1)}\n    (call $await (i32.const 0) (i32.const 1))\n    (unreachable)` },
  // three writers, then the main thread's partial line and proc_exit(0)
  output: {
    main: `${spawn(6, 6, 6)}
    (call $await (i32.const 8) (i32.const 3))
    (call $write (i32.const 1) (i32.const 64) (i32.const 13) (call $scratch (i32.const ${MAIN_TID})))
    (call $proc_exit (i32.const 0))`,
  },
  // memory imported as "a" "b"; threads link under that name; _start returns
  "memory-a-b": {
    memory: { memModule: "a", memName: "b" },
    main: `${spawn(6, 6)}\n    (call $await (i32.const 8) (i32.const 2))`,
  },
  // two writers and a thread that copies stdin to stdout; _start returns
  // when all three are done (test/embedder.test.js: runs at once)
  "writers-cat": { main: `${spawn(6, 6, 7)}\n    (call $await (i32.const 8) (i32.const 3))` },
  // 48 MiB of its 64 MiB memory written, a thread left waiting for ever;
  // _start returns (test/embedder.test.js: memory given back)
  touch: {
    memory: { pages: "1024 1024" },
    main: `${spawn(1)}
    (memory.fill (i32.const 0x100000) (i32.const 0x5a) (i32.const 0x3000000))
    (call $await (i32.const 0) (i32.const 1))`,
  },
  // a thread copies stdin to stdout until end of file
  cat: { main: `${spawn(7)}\n    (call $await (i32.const 8) (i32.const 1))` },
  // the module's start function traps in every instance but the first (the
  // main thread's): thread 1 cannot be instantiated while the main waits
  "thread-instantiate-fails": {
    extra: `
  (func $init (if (i32.atomic.rmw.add (i32.const 16) (i32.const 1)) (then (unreachable))))
  (start $init)`,
    main: `${spawn(1)}\n    (call $wait_forever)`,
  },
  // the main thread opens hello.txt in the first preopened directory (fd 3),
  // copies it to stdout, and exits with path_open's errno (0 when it opened)
  preopen: {
    imports: `
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))`,
    extra: `
  (data (i32.const 112) "hello.txt")`,
    main: `(local $errno i32) (local $n i32)
    (local.set $errno (call $path_open (i32.const 3) (i32.const 1) (i32.const 112) (i32.const 9)
      (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 200)))
    (if (i32.eqz (local.get $errno))
      (then
        (i32.store (i32.const 204) (i32.const 4096))
        (i32.store (i32.const 208) (i32.const 256))
        (drop (call $fd_read (i32.load (i32.const 200)) (i32.const 204) (i32.const 1) (i32.const 212)))
        (call $write (i32.const 1) (i32.const 4096) (i32.load (i32.const 212)) (i32.const 216))))
    (call $proc_exit (local.get $errno))`,
  },
};

export function programSource(name) {
  const program = PROGRAMS[name];
  if (!program) throw new Error(`no program ${name}`);
  return `(module${header(program.memory, program.imports)}${program.extra ?? ""}
  (func (export "_start")
    ${program.main}))`;
}

export function buildProgram(name) {
  return watToBytes(programSource(name), `${name}.wat`);
}

// Modules the runner must refuse, with the words its error must contain.
export const REFUSED = {
  "no-memory": {
    source: `(module (import "wasi" "thread-spawn" (func (param i32) (result i32))) (func (export "_start")))`,
    message: /has no memory/,
  },
  "own-memory": {
    source: `(module (import "wasi" "thread-spawn" (func (param i32) (result i32))) (memory 1 1 shared) (func (export "_start")))`,
    message: /defines its own memory/,
  },
  "not-shared": {
    source: `(module (import "wasi" "thread-spawn" (func (param i32) (result i32))) (import "env" "memory" (memory 1 1)) (func (export "_start")))`,
    message: /without "shared"/,
  },
  "no-start": {
    source: `(module (import "env" "memory" (memory 1 1 shared)) (func (export "_initialize")))`,
    message: /exports no _start/,
  },
};
