// The words a running program's threads and its supervisor share
// (docs/runner.md). One Int32Array over a SharedArrayBuffer per program, plus
// a stdin buffer and a text area for a trap's description.
//
// Every thread of the program (the guest's main thread in its worker, every
// pool worker) writes these words; the supervisor (the thread that called
// runWasiThreadsProgram) waits on C_DOORBELL with Atomics.waitAsync, so its
// event loop is never blocked, and acts on whatever changed.
//
// Words:
//   C_STATE      RUNNING until the program ends. The first thread to CAS it
//                RUNNING -> EXITED, TRAPPED or FAILED decides how the program
//                ended (FAILED: proc_exit outside [0..126), an error as in
//                wasmtime, its text in the text area);
//                every other ending loses the CAS and parks.
//   C_EXIT_CODE  written (once) by the CAS winner before it rings.
//   C_DOORBELL   incremented, then notified, by every thread that wants the
//                supervisor's attention (an ending, a stdin request).
//                The supervisor reads it before it looks at the other words
//                and waits on the value it read, so no ring is lost.
//   C_STDIN_*    the stdin hand-over (below).
//   C_PARK       never changes: a thread whose program has ended waits on it
//                until its worker is terminated (Atomics.wait: interruptible).
//   C_TRAP_LEN   bytes of the trap text in the text area (the CAS winner).
//   C_OUT_*      the output ring, when stdout or stderr is a stream (below).
//   C_OUT_CLOSED bit (1 << fd) set by the supervisor when fd's stream has
//                closed (below); never cleared.
//   C_WATCHER    0, then 1 once a thread of a program that owns its process
//                (the CLI, lib/program/process.js) has started the queue's
//                watcher (CAS 0 -> 1 by the spawning thread that first saw a
//                queued thread: one watcher per program).
//
// stdin, one buffer, one reader at a time (C_STDIN_LOCK):
//   EMPTY -> REQUESTED   a reader that found nothing (then rings, waits)
//   REQUESTED -> FULL    the supervisor put C_STDIN_LEN bytes in the buffer
//   REQUESTED -> EOF     the supervisor's stream ended (stays EOF)
//   FULL -> EMPTY        the reader that took the last byte
// All seq_cst (Atomics); a reader waits on C_STDIN_STATE while REQUESTED.
//
// Output ring (only when stdout or stderr is a stream without a file
// descriptor): records [fd: 1 byte][length: 4 bytes LE][bytes], in a ring of
// OUT_RING_BYTES (a power of two). C_OUT_HEAD and C_OUT_TAIL count bytes
// ever written and consumed (modulo 2^32; positions are & (size - 1)).
// Writers take C_OUT_LOCK, copy a whole record, then publish it by storing
// C_OUT_HEAD and ringing; a writer that finds no room waits on C_OUT_TAIL.
// The supervisor alone consumes: it reads records up to C_OUT_HEAD, stores
// C_OUT_TAIL and notifies it. A record is never visible half written. The
// supervisor stops consuming while a stream asks to wait (its 'drain'
// resumes it), so a full ring is a full pipe: its writers wait. When a
// stream closes, the supervisor sets the fd's bit in C_OUT_CLOSED, then
// notifies C_OUT_TAIL; a writer reads the bit before each record and after
// each wait for room, and answers EPIPE once it is set. All seq_cst.

export const C_STATE = 0;
export const C_EXIT_CODE = 1;
export const C_DOORBELL = 2;
export const C_STDIN_STATE = 3;
export const C_STDIN_LEN = 4;
export const C_STDIN_POS = 5;
export const C_STDIN_LOCK = 6;
export const C_PARK = 7;
export const C_TRAP_LEN = 8;
export const C_OUT_LOCK = 9;
export const C_OUT_HEAD = 10;
export const C_OUT_TAIL = 11;
export const C_WATCHER = 12;
export const C_OUT_CLOSED = 13;
export const CONTROL_WORDS = 16;

export const STATE_RUNNING = 0;
export const STATE_EXITED = 1;
export const STATE_TRAPPED = 2;
export const STATE_FAILED = 3;

// A trap ends the program the way an abort ends a process: 128 + SIGABRT.
export const TRAP_EXIT_CODE = 134;
// proc_exit outside [0..126): an error, as wasmtime reports it.
export const FAILED_EXIT_CODE = 1;

// A write into a pipe (or socket) that no one reads ends the program as
// SIGPIPE ends a native process that has not asked otherwise: the status a
// shell shows for it, 128 + SIGPIPE (docs/runner.md, "A write into a closed
// pipe ends the program").
export const BROKEN_PIPE_EXIT_CODE = 141;
const ERRNO_PIPE = 64;

// WASI's exit statuses, as wasmtime checks them: proc_exit(n) for n outside
// [0, MAX_EXIT_STATUS) is an error of the program (exit 1), not its status.
export const MAX_EXIT_STATUS = 126;

export const STDIN_EMPTY = 0;
export const STDIN_REQUESTED = 1;
export const STDIN_FULL = 2;
export const STDIN_EOF = 3;

export const STDIN_BUFFER_BYTES = 65536;
export const TRAP_TEXT_BYTES = 8192;
export const OUT_RING_BYTES = 1 << 20;
const OUT_RECORD_HEADER = 5;

export function createProgramControl({ outputRing = false } = {}) {
  return {
    control: new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS)),
    stdinBuffer: new Uint8Array(new SharedArrayBuffer(STDIN_BUFFER_BYTES)),
    trapText: new Uint8Array(new SharedArrayBuffer(TRAP_TEXT_BYTES)),
    outRing: outputRing ? new Uint8Array(new SharedArrayBuffer(OUT_RING_BYTES)) : null,
  };
}

function ringCopyIn(ringBytes, at, bytes) {
  const mask = ringBytes.length - 1;
  const start = at & mask;
  const first = Math.min(bytes.length, ringBytes.length - start);
  ringBytes.set(bytes.subarray(0, first), start);
  if (first < bytes.length) ringBytes.set(bytes.subarray(first), 0);
}

function ringCopyOut(ringBytes, at, length) {
  const mask = ringBytes.length - 1;
  const start = at & mask;
  const first = Math.min(length, ringBytes.length - start);
  const out = new Uint8Array(length);
  out.set(ringBytes.subarray(start, start + first));
  if (first < length) out.set(ringBytes.subarray(0, length - first), first);
  return out;
}

// The error a write to a closed stream throws (fd_write answers EPIPE).
function brokenPipe(fd) {
  return Object.assign(new Error(`fd ${fd}: the stream has closed`), { code: "EPIPE" });
}

// A guest thread's write to fd 1 or 2 when that fd is a stream: the bytes go
// into the ring, in records; blocks (interruptibly) while the ring is full.
// Throws an EPIPE error once fd's stream has closed (bytes of a longer write
// already in the ring stay there).
export function writeOutputRing(program, fd, bytes) {
  const { control, outRing } = program;
  if (bytes.length === 0) return;
  // The largest payload of one record (a quarter of the ring): a longer
  // write is split, so that a record always fits an empty ring.
  const chunkBytes = outRing.length / 4;
  while (Atomics.compareExchange(control, C_OUT_LOCK, 0, 1) !== 0) Atomics.wait(control, C_OUT_LOCK, 1);
  try {
    for (let offset = 0; offset < bytes.length;) {
      const chunk = bytes.subarray(offset, offset + chunkBytes);
      const need = OUT_RECORD_HEADER + chunk.length;
      for (;;) {
        if (Atomics.load(control, C_OUT_CLOSED) & (1 << fd)) throw brokenPipe(fd);
        const tail = Atomics.load(control, C_OUT_TAIL);
        const head = Atomics.load(control, C_OUT_HEAD);
        if (outRing.length - ((head - tail) >>> 0) >= need) break;
        Atomics.wait(control, C_OUT_TAIL, tail);
      }
      const head = Atomics.load(control, C_OUT_HEAD);
      const header = new Uint8Array(OUT_RECORD_HEADER);
      header[0] = fd;
      new DataView(header.buffer).setUint32(1, chunk.length, true);
      ringCopyIn(outRing, head, header);
      ringCopyIn(outRing, head + OUT_RECORD_HEADER, chunk);
      Atomics.store(control, C_OUT_HEAD, (head + need) | 0);
      ring(control);
      offset += chunk.length;
    }
  } finally {
    Atomics.store(control, C_OUT_LOCK, 0);
    Atomics.notify(control, C_OUT_LOCK, 1);
  }
}

// The supervisor's side: hands the published records, oldest first, to
// deliver(fd, bytes), and frees their room; stops after a record for which
// deliver answers false (its stream asks to wait).
export function drainOutputRing(program, deliver) {
  const { control, outRing } = program;
  if (!outRing) return;
  let tail = Atomics.load(control, C_OUT_TAIL);
  const head = Atomics.load(control, C_OUT_HEAD);
  while (tail !== head) {
    const header = ringCopyOut(outRing, tail, OUT_RECORD_HEADER);
    const length = new DataView(header.buffer).getUint32(1, true);
    const bytes = ringCopyOut(outRing, tail + OUT_RECORD_HEADER, length);
    tail = (tail + OUT_RECORD_HEADER + length) | 0;
    Atomics.store(control, C_OUT_TAIL, tail);
    Atomics.notify(control, C_OUT_TAIL);
    if (deliver(header[0], bytes) === false) return;
  }
}

// The supervisor's side: fd's stream has closed. Writers waiting for room
// wake and answer EPIPE, and so does every later write to fd.
export function closeOutputRing(program, fd) {
  Atomics.or(program.control, C_OUT_CLOSED, 1 << fd);
  Atomics.notify(program.control, C_OUT_TAIL);
}

export function ring(control) {
  Atomics.add(control, C_DOORBELL, 1);
  Atomics.notify(control, C_DOORBELL);
}

// The calling thread's program has ended (or is ending): wait to be
// terminated. Atomics.wait, so worker.terminate() interrupts it at once.
export function parkForever(control) {
  for (;;) Atomics.wait(control, C_PARK, 0);
}

// This thread's way of ending the process when it ends the program, or null:
// the program's supervisor ends it (runWasiThreadsProgram). Set by
// lib/program/wasi-c.js in every thread of a program that owns its process.
let processEnder = null;

export function setProcessEnder(ender) {
  processEnder = ender;
}

// The thread that decided the program's end: its process ends too, when the
// program owns it (processEnder never returns); else it parks.
function afterEnd(program, won, onEnd) {
  onEnd?.();
  if (won && processEnder !== null) processEnder(program);
  parkForever(program.control);
}

// Ends the program with exit status `code` (proc_exit's u32) unless it has
// ended already; a status outside [0..126) ends it as a failure. Never returns.
// onEnd (optional) runs after the ending is decided, before the thread parks
// (lib/program/wasi-c.js stops the program's WASI there: its other threads' blocked
// calls return).
export function endProgram(program, code, onEnd) {
  const status = code >>> 0;
  if (status >= MAX_EXIT_STATUS) {
    endWithText(program, STATE_FAILED, `proc_exit(${status}): exit with invalid exit status outside of [0..126)`, onEnd);
  }
  endWithStatus(program, status, onEnd);
}

function endWithStatus(program, status, onEnd) {
  const { control } = program;
  const won = Atomics.compareExchange(control, C_STATE, STATE_RUNNING, STATE_EXITED) === STATE_RUNNING;
  if (won) {
    Atomics.store(control, C_EXIT_CODE, status);
    ring(control);
  }
  afterEnd(program, won, onEnd);
}

// fd_write(fd, iovs, count, nwritten) that ends the program with
// BROKEN_PIPE_EXIT_CODE where `write` answers EPIPE (never returns then);
// onEnd as endProgram's.
export function endOnBrokenPipe(program, write, onEnd) {
  return (fd, iovs, count, nwritten) => {
    const errno = write(fd, iovs, count, nwritten);
    if (errno === ERRNO_PIPE) endWithStatus(program, BROKEN_PIPE_EXIT_CODE, onEnd);
    return errno;
  };
}

// Ends the program with a trap on `thread` (text for the user) unless it has
// ended already; never returns.
export function trapProgram(program, thread, error) {
  endWithText(program, STATE_TRAPPED, `${thread} trapped: ${trapReport(error)}`);
}

// A V8 stack frame line ("    at ...") of guest code: wasm://wasm/<hash>:... or
// a bare wasm-function[N] (a module compiled without a URL).
const FRAME = /^\s+at /;
const GUEST_FRAME = /wasm:\/\/|wasm-function\[/;

// What a trap says: the error's own lines (its name and message) and the
// guest's frames, innermost first; the runner's JS frames below the guest
// (wasi_thread_start's or _start's callers) and any between its frames (an
// import of the runner's that threw) are the runner's internals, not the
// program's, and are left out.
export function trapReport(error) {
  const stack = typeof error?.stack === "string" ? error.stack : String(error);
  return stack
    .split("\n")
    .filter((line) => !FRAME.test(line) || GUEST_FRAME.test(line))
    .join("\n");
}

function endWithText(program, state, message, onEnd) {
  const { control, trapText } = program;
  const won = Atomics.compareExchange(control, C_STATE, STATE_RUNNING, state) === STATE_RUNNING;
  if (won) {
    const text = new TextEncoder().encode(message);
    const length = Math.min(text.length, trapText.length);
    trapText.set(text.subarray(0, length));
    Atomics.store(control, C_TRAP_LEN, length);
    ring(control);
  }
  afterEnd(program, won, onEnd);
}

export function programEnded(program) {
  return Atomics.load(program.control, C_STATE) !== STATE_RUNNING;
}

// How an ended program ends its process: {exitCode, message}, message being
// the runner's line for stderr (a trap or a failure) or null. null while the
// program runs.
export function programOutcome(program) {
  const { control, trapText } = program;
  const state = Atomics.load(control, C_STATE);
  if (state === STATE_RUNNING) return null;
  if (state === STATE_TRAPPED || state === STATE_FAILED) {
    const text = new TextDecoder().decode(trapText.slice(0, Atomics.load(control, C_TRAP_LEN)));
    return { exitCode: state === STATE_TRAPPED ? TRAP_EXIT_CODE : FAILED_EXIT_CODE, message: `wasi-thread-pool: ${text}\n` };
  }
  return { exitCode: Atomics.load(control, C_EXIT_CODE) >>> 0, message: null };
}

// The line a stalled queue with a full pool gets on stderr, once.
export function fullStallMessage(queued, poolSize) {
  return (
    `wasi-thread-pool: ${queued} thread(s) wait for a worker, and all ${poolSize} workers (poolSize, --pool) ` +
    "run threads that do not end: if those wait for the queued ones, the program waits for ever.\n"
  );
}

// Reads up to `max` bytes of the program's stdin, blocking (interruptibly)
// until the supervisor has data or the stream has ended. Returns a
// Uint8Array (empty at end of file).
export function readStdin(program, max) {
  const { control, stdinBuffer } = program;
  // One reader at a time: 0 free, 1 held.
  while (Atomics.compareExchange(control, C_STDIN_LOCK, 0, 1) !== 0) Atomics.wait(control, C_STDIN_LOCK, 1);
  try {
    for (;;) {
      const state = Atomics.load(control, C_STDIN_STATE);
      if (state === STDIN_FULL) {
        const length = Atomics.load(control, C_STDIN_LEN);
        const pos = Atomics.load(control, C_STDIN_POS);
        const take = Math.min(max, length - pos);
        const bytes = stdinBuffer.slice(pos, pos + take);
        if (pos + take >= length) Atomics.store(control, C_STDIN_STATE, STDIN_EMPTY);
        else Atomics.store(control, C_STDIN_POS, pos + take);
        return bytes;
      }
      if (state === STDIN_EOF || max === 0) return new Uint8Array(0);
      if (state === STDIN_EMPTY) {
        Atomics.store(control, C_STDIN_STATE, STDIN_REQUESTED);
        ring(control);
      }
      Atomics.wait(control, C_STDIN_STATE, STDIN_REQUESTED);
    }
  } finally {
    Atomics.store(control, C_STDIN_LOCK, 0);
    Atomics.notify(control, C_STDIN_LOCK, 1);
  }
}
