// A child process for test/program-streams.test.js: runs one program of
// test/support/stream-guests.js with runWasiThreadsProgram and a caller's
// stream as its stdout, and writes `RESULT <json>` on a line of its own to
// stderr. WTP_STREAM_CASE (JSON) is the program's shape ({writer, chunks,
// then}) and `stdout`, what its stream is:
//   "destroyed" / "ended"  a PassThrough destroyed / ended before the run
//   "failing"              a Writable whose every write fails
//   "throwing"             an object whose write() throws
//   "paused"               a PassThrough no one reads until the program's
//                          writer waits; then, by `act`: "read" (read it to
//                          the end), "stdin" (write a byte to the program's
//                          stdin: its other thread ends it) or "destroy"
// For "paused": once the stream has asked its writer to wait, the child
// watches it for WATCH_MS (the stream's buffered bytes, the process's RSS),
// then acts. The result says how the run ended and whether it ended while
// the stream was not read, the most bytes the stream buffered, the RSS
// growth while watched, and the bytes the stream passed on (checked whole
// and in order: byte p is chunk p / CHUNK_BYTES's index & 255).

import { PassThrough, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { CHUNK_BYTES, buildStreamProgram } from "./stream-guests.js";
import { runWasiThreadsProgram } from "../../lib/index.js";

const WATCH_MS = 1500;
const shape = JSON.parse(process.env.WTP_STREAM_CASE);
const bytes = await buildStreamProgram(shape);

let stdout;
if (shape.stdout === "failing") {
  stdout = new Writable({ write: (_chunk, _encoding, done) => done(new Error("the disk is full")) });
} else if (shape.stdout === "throwing") {
  stdout = {
    write() {
      throw new Error("the caller's write threw");
    },
  };
} else {
  stdout = new PassThrough();
  if (shape.stdout === "destroyed") stdout.destroy();
  if (shape.stdout === "ended") stdout.end();
}
const stdin = shape.act === "stdin" ? new PassThrough() : null;

// The bytes the stream passes on, checked as they come.
const received = { bytes: 0, inOrder: true };
function check(chunk) {
  for (let at = 0; at < chunk.length;) {
    const position = received.bytes + at;
    const end = Math.min(chunk.length, at + CHUNK_BYTES - (position % CHUNK_BYTES));
    const expected = Math.floor(position / CHUNK_BYTES) & 255;
    for (let i = at; i < end; i++) if (chunk[i] !== expected) received.inOrder = false;
    at = end;
  }
  received.bytes += chunk.length;
}

let settled = false;
const run = runWasiThreadsProgram(bytes, { stdout, stdin, poolSize: 4 }).then((outcome) => {
  settled = true;
  return outcome;
});

const watched = { endedUnread: false, mostBuffered: 0, rssGrowth: 0 };
if (shape.stdout === "paused") {
  // The state watched: the stream asked to wait (its reader does not read).
  while (!stdout.writableNeedDrain && !settled) await sleep(10);
  const rssBase = process.memoryUsage().rss;
  for (const until = performance.now() + WATCH_MS; performance.now() < until && !settled;) {
    watched.mostBuffered = Math.max(watched.mostBuffered, stdout.writableLength);
    watched.rssGrowth = Math.max(watched.rssGrowth, process.memoryUsage().rss - rssBase);
    await sleep(25);
  }
  watched.endedUnread = settled;
  if (shape.act === "read") stdout.on("data", check);
  if (shape.act === "stdin") stdin.write("x");
  if (shape.act === "destroy") stdout.destroy();
}
const { exitCode } = await run;
if (shape.stdout === "paused" && shape.act !== "destroy") {
  // What the stream holds once the program has ended: read it all.
  if (shape.act !== "read") stdout.on("data", check);
  stdout.end();
  await new Promise((resolve) => stdout.once("end", resolve));
}
process.stderr.write(`\nRESULT ${JSON.stringify({ exitCode, ...watched, ...received })}\n`);
