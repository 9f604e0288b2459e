// The supervisor's side of the program's C WASI (lib/program/run.js): whether
// it serves this run, making it (args, env, preopens, stdio), feeding and
// draining the stdio that is not a file descriptor, stopping and releasing
// it. The threads' side is lib/program/wasi-c.js; docs/runner.md, "The WASI layer".
//
// stdio: the program's fds 0-2 are host descriptors, duplicated by the WASI
// at create (so the program closing or renumbering them never closes the
// host's). A descriptor option is passed as is; stdin defaults to the
// process's fd 0, which the program reads only when it reads. Anything else
// goes through a pipe made here:
//   - stdin bytes, a string or null: the supervisor writes them into the
//     pipe (then closes it: end of file), without blocking its event loop;
//   - a stdin stream: piped into the pipe as the program drains it (so at
//     most a pipe's capacity is read ahead of the program);
//   - a stdout/stderr stream without fd: the supervisor reads the pipe and
//     writes every chunk to the stream, in order, as a pipe's reader would
//     (lib/program/output-stream.js: it stops reading while the stream asks
//     to wait, and closes the pipe when the stream closes); after the
//     program's end it reads until end of file (the WASI's last reference
//     closes the write end), so nothing written before the end is lost.

import { closeSync } from "node:fs";
import { native } from "../native/binding.js";
import { createOutputSink } from "./output-stream.js";

// Set to 1 to run programs on node:wasi per thread even where the C WASI is
// available (tests, differential runs).
export const NODE_WASI_ENV = "WASI_THREAD_POOL_NODE_WASI";

// The output pipes' end is seen at once after the release; this only bounds
// a run whose WASI a thread still holds (not expected).
const OUTPUT_END_BOUND_MS = 10000;

let fallbackTold = false;

// The WASIs of the programs running in this process. The process's exit
// joins every worker, and a worker blocked in a WASI call (a read of stdin)
// would hold it until its peer acts: the "exit" event stops them first.
const running = new Set();
let exitHookInstalled = false;

function stopAllAtExit() {
  for (const id of running) native.binding.wasiStop(id);
}

// null when the program's C WASI serves this run, else why not.
export function programWasiUnavailable() {
  if (process.env[NODE_WASI_ENV] === "1") return { reason: `${NODE_WASI_ENV}=1`, forced: true };
  if (native.binding === null) return { reason: `the addon did not load: ${native.error}`, forced: false };
  if (typeof native.binding.wasiCreate !== "function") {
    return { reason: `the addon has no C WASI on ${process.platform}`, forced: false };
  }
  return null;
}

// Once per process, on the process's stderr, unless asked for.
export function tellFallbackOnce({ reason, forced }) {
  if (forced || fallbackTold) return;
  fallbackTold = true;
  process.stderr.write(
    `wasi-thread-pool: running the program on node:wasi, one per thread (${reason}). Lost: one fd table for ` +
      "the program (a file opened on one thread is not open on another), the sandbox (node:wasi follows " +
      "symlinks out of a preopened directory), blocking calls that the program's end can stop, and stdio of " +
      "the program's own (closing or renumbering fds 0-2 acts on the host's).\n",
  );
}

// An environment entry for wasiCreate: "NAME=value", or its bytes when the
// value is given as bytes (not UTF-8: lib/program/setup.js).
function envEntry([name, value]) {
  if (typeof value === "string") return `${name}=${value}`;
  const head = new TextEncoder().encode(`${name}=`);
  const entry = new Uint8Array(head.length + value.length);
  entry.set(head);
  entry.set(value, head.length);
  return entry;
}

function closeQuietly(fd) {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

// Writes stdin's bytes or stream into the pipe's write end.
function feedStdin(Socket, fd, source) {
  const sink = new Socket({ fd, readable: false, writable: true });
  sink.on("error", () => {}); // EPIPE: the program closed its stdin or ended
  if (source.bytes) sink.end(source.bytes);
  else source.stream.pipe(sink);
  return () => {
    if (source.stream) {
      source.stream.unpipe(sink);
      source.stream.pause();
      if (typeof source.stream.unref === "function") source.stream.unref();
    }
    sink.destroy();
  };
}

// Reads the pipe's read end into stream (lib/program/output-stream.js): while
// the stream asks to wait, the pipe is not read, so the program's writes
// wait once it is full (the stop ends such a wait); a stream that closes
// closes the read end, so the program's writes meet EPIPE. Returns
// finish(): after the program's end, reads the pipe to its end of file into
// the stream, without waiting for it (at most a pipe's capacity), and
// resolves there.
function drainInto(Socket, fd, stream) {
  const source = new Socket({ fd, readable: true, writable: false });
  let finishing = false;
  const sink = createOutputSink(stream, {
    onReady: () => source.resume(),
    onClosed: () => source.destroy(),
  });
  source.on("data", (chunk) => {
    if (!sink.write(chunk) && !finishing) source.pause();
  });
  const ended = new Promise((resolve) => {
    source.once("end", resolve);
    source.once("close", resolve);
    source.once("error", resolve);
  });
  return async () => {
    finishing = true;
    source.resume();
    let timer;
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, OUTPUT_END_BOUND_MS)))]);
    clearTimeout(timer);
    source.destroy();
    sink.detach();
  };
}

// opts: lib/program/setup.js's normalized options. Resolves {id, stop(),
// release()}; throws wasiCreate's error (a preopen that cannot be opened,
// named) with every descriptor made here closed. node:net is loaded only for
// pipes (stdio that is not a descriptor).
export async function createProgramWasi(opts) {
  const binding = native.binding;
  const given = []; // the ends handed to the WASI (it dups them): ours to close
  const kept = []; // the supervisor's ends
  const stdio = [0, opts.stdout.fd, opts.stderr.fd];
  let stdinFd = -1;
  const outputs = [];
  let id;
  try {
    if (!opts.stdin.processStdin) {
      const [read, write] = binding.pipe();
      given.push(read);
      kept.push(write);
      stdio[0] = read;
      stdinFd = write;
    }
    for (const [index, output] of [
      [1, opts.stdout],
      [2, opts.stderr],
    ]) {
      if (!output.stream) continue;
      const [read, write] = binding.pipe();
      given.push(write);
      kept.push(read);
      stdio[index] = write;
      outputs.push({ fd: read, stream: output.stream });
    }
    id = binding.wasiCreate({
      args: opts.args,
      env: Object.entries(opts.env).map(envEntry),
      preopens: Object.entries(opts.preopens),
      stdio,
    });
  } catch (error) {
    kept.forEach(closeQuietly);
    throw error;
  } finally {
    given.forEach(closeQuietly);
  }
  running.add(id);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", stopAllAtExit);
  }
  const { Socket } = kept.length > 0 ? await import("node:net") : {};
  const stopFeeding = stdinFd >= 0 ? feedStdin(Socket, stdinFd, opts.stdin) : () => {};
  const drains = outputs.map(({ fd, stream }) => drainInto(Socket, fd, stream));
  return {
    id,
    // The program has ended: every call blocked in the WASI returns.
    stop() {
      binding.wasiStop(id);
    },
    // After the threads' workers are gone: the supervisor's reference goes
    // (the last one: the WASI closes every descriptor), then the output
    // pipes are read to their end.
    async release() {
      binding.wasiStop(id);
      binding.wasiRelease(id);
      running.delete(id);
      stopFeeding();
      await Promise.all(drains.map((drain) => drain()));
    },
  };
}
