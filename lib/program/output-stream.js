// A caller's writable stream without a file descriptor (a PassThrough, a
// collector) as the reader of the program's stdout or stderr, behaving as a
// pipe's reader does to a native program (docs/runner.md, "A caller's
// streams"). Used by the supervisor only: lib/program/wasi.js (the C WASI's
// output pipes) and lib/program/run.js (the node:wasi fallback's output ring).
//
//   - Backpressure: write() answers false once the stream asked to wait (its
//     write() returned false); onReady() runs at its 'drain'. Meanwhile the
//     supervisor takes no more of the program's output, so the program's
//     writer waits in its write (a full pipe, a full ring) as on a pipe whose
//     reader does not read, and the stream holds no more than its own buffer.
//   - Closing: a stream destroyed, ended or failed (before the run or during
//     it; a write() that throws is a failure too) is a reader that has gone. onClosed() runs once; what is written
//     after is dropped, and the program's writes to it answer EPIPE, which
//     ends the program with 141 (lib/program/control.js, endOnBrokenPipe).
//     The sink listens for the stream's 'error' while it is attached: a
//     failing stream ends the program, not the caller's process.
// An object with write() and no events (no on/off) takes everything: it
// never waits and never closes.

// A Node stream that can take no more writes: destroyed, ended, or failed.
// A plain object with write() is never closed.
export function streamClosed(stream) {
  return stream.destroyed === true || stream.writable === false;
}

// stream: the caller's; onReady(): the stream drained after write() answered
// false; onClosed(): the stream closed (at once, from here, when it is
// closed already). Returns {write(bytes) -> boolean, waiting, detach()}.
export function createOutputSink(stream, { onReady = () => {}, onClosed = () => {} } = {}) {
  const evented = typeof stream.on === "function" && typeof stream.off === "function";
  let closed = false;
  // The stream's write() answered false (or it was full when handed over),
  // and no 'drain' has come since.
  let waiting = evented && stream.writableNeedDrain === true;

  const close = () => {
    if (closed) return;
    closed = true;
    waiting = false;
    detach();
    onClosed();
  };
  const drained = () => {
    if (!waiting) return;
    waiting = false;
    onReady();
  };
  const detach = () => {
    if (!evented) return;
    stream.off("drain", drained);
    stream.off("close", close);
    stream.off("finish", close);
    stream.off("error", close);
  };
  if (evented) {
    stream.on("drain", drained);
    stream.on("close", close);
    stream.on("finish", close);
    stream.on("error", close);
  }
  if (streamClosed(stream)) close();

  return {
    // Hands bytes to the stream (dropped once it has closed); false when the
    // stream asks the writer to wait for onReady().
    write(bytes) {
      if (!closed && streamClosed(stream)) close();
      if (closed) return true;
      let more;
      try {
        more = stream.write(bytes);
      } catch {
        close(); // the caller's stream failed: its reader has gone
        return true;
      }
      if (more === false && evented) waiting = true;
      return !waiting;
    },
    get waiting() {
      return waiting;
    },
    detach,
  };
}
