// runWasiThreadsProgram in a browser page (docs/runner.md, "In a browser
// page"): a wasi-threads command program with WASI's process semantics, as
// the Node runner runs one. The page's thread is the supervisor and the
// program's one WASI (wasi.js over memfs.js and stdio.js): it never runs
// guest code and never blocks. The guest's main thread runs in a module
// Worker (program-worker.js), its other threads on the browser host's pool of
// module workers under it, every thread with thread-runtime.js, whose
// preview1 imports forward each call over the channel (channel.js). The page
// takes the calls with Atomics.waitAsync on the channel's doorbell. When the
// program ends (proc_exit or _start's return on any thread, or a trap) the
// page terminates the main thread's worker, which ends every pool worker
// under it, writes the file system back into the page's objects and
// resolves {exitCode}.
//
// The room: lib/program/browser/ is the runner's browser half; browser-safe
// throughout (no node: module, no bare specifier), it imports lib/host/,
// lib/worker/ and lib/wasm/, and lib/program/control.js's constants.

import {
  ARG_COUNT,
  CALLS,
  H_DOORBELL,
  H_EXIT_CODE,
  H_SLOTS,
  H_STATE,
  H_TEXT_LEN,
  S_CALL,
  S_RESULT,
  S_STATE,
  SLOT_BUSY,
  SLOT_DONE,
  SLOT_REQUEST,
  STATE_EXITED,
  STATE_FAILED,
  STATE_TRAPPED,
  argIndex,
  createChannel,
  endChannel,
  openChannel,
  ring,
  slotBase,
} from "./channel.js";
import { BROKEN_PIPE_EXIT_CODE, FAILED_EXIT_CODE, TRAP_EXIT_CODE } from "../control.js";
import { docsLink } from "../docs.js";
import { createProgramWasi } from "./wasi.js";
import { readTree, writeBack } from "./memfs.js";
import { isDirectoryHandle, readOpfs, writeOpfs } from "./opfs.js";
import { checkOutput, checkStdin, createOutput, createStdin } from "./stdio.js";
import { compileWasiThreadGuest } from "../../worker/liftoff.browser.js";
import { describeWasiThreadsMemory } from "../../worker/wasm-memory.js";

export { TRAP_EXIT_CODE };

const PROGRAM_WORKER_URL = new URL("./program-worker.js", import.meta.url);
const THREAD_RUNTIME_URL = new URL("./thread-runtime.js", import.meta.url);

const OPTION_NAMES = [
  "args",
  "env",
  "stdin",
  "stdout",
  "stderr",
  "preopens",
  "poolSize",
  "probeTimeoutMs",
  "workerUrl",
  "workerBaseUrl",
];
export const DEFAULT_BROWSER_PROGRAM_POOL_SIZE = 8;
const ERRNO_IO = 29;

export const NOT_ISOLATED_MESSAGE =
  "runWasiThreadsProgram needs a cross-origin isolated page (self.crossOriginIsolated is false): serve the page " +
  "with the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, so " +
  `that its threads can share memory (SharedArrayBuffer; ${docsLink("runner.md", "in-a-browser-page")}).`;

function checkStrings(list, name) {
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string")) {
    throw new TypeError(`options.${name} must be an array of strings.`);
  }
  return list;
}

function normalizeEnv(env) {
  if (env === undefined) return [];
  if (env === null || typeof env !== "object" || Array.isArray(env)) {
    throw new TypeError("options.env must be an object of NAME: value strings.");
  }
  return Object.entries(env).map(([key, value]) => {
    if (typeof value !== "string") throw new TypeError(`options.env.${key} must be a string.`);
    if (key.includes("=")) throw new TypeError(`options.env name ${JSON.stringify(key)} contains "=".`);
    return `${key}=${value}`;
  });
}

// [{guestPath, where, dir, handle, before}]: a plain-object tree is read into
// `dir` here; an OPFS directory's `handle` is read by loadOpfsPreopens.
function normalizePreopens(preopens) {
  if (preopens === undefined) return [];
  if (preopens === null || typeof preopens !== "object" || Array.isArray(preopens)) {
    throw new TypeError(
      "options.preopens must be an object mapping guest paths to directories (plain objects or FileSystemDirectoryHandles).",
    );
  }
  return Object.entries(preopens).map(([guestPath, value]) => {
    const where = `preopens[${JSON.stringify(guestPath)}]`;
    if (isDirectoryHandle(value, where)) return { guestPath, where, dir: null, handle: value, before: null };
    return { guestPath, where, dir: readTree(value, where), handle: null, before: null };
  });
}

async function loadOpfsPreopens(preopens) {
  for (const preopen of preopens) {
    if (!preopen.handle) continue;
    const { tree, before } = await readOpfs(preopen.handle, preopen.where);
    preopen.dir = readTree(tree, preopen.where);
    preopen.before = before;
  }
}

// The files the program wrote, into the page's objects and OPFS directories.
async function storePreopens(preopens, exitCode) {
  for (const { dir, handle, before, where } of preopens) {
    const tree = writeBack(dir);
    if (handle) await writeOpfs(handle, tree, before, where, exitCode);
  }
}

function normalizeCount(value, name, fallback) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0 || value > 1024)
    throw new RangeError(`options.${name} must be an integer in [0, 1024].`);
  return value;
}

function normalizeOptions(options) {
  if (options === null || typeof options !== "object") throw new TypeError("options must be an object.");
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) throw new TypeError(`runWasiThreadsProgram: unknown option ${JSON.stringify(key)}.`);
  }
  checkStdin(options.stdin);
  checkOutput(options.stdout, "stdout");
  checkOutput(options.stderr, "stderr");
  const url = (value, name) => {
    if (value === undefined) return undefined;
    if (typeof value === "string" || value instanceof URL) return String(value);
    throw new TypeError(`options.${name} must be a string or a URL.`);
  };
  return {
    args: options.args === undefined ? ["program"] : checkStrings(options.args, "args"),
    env: normalizeEnv(options.env),
    preopens: normalizePreopens(options.preopens),
    poolSize: normalizeCount(options.poolSize, "poolSize", DEFAULT_BROWSER_PROGRAM_POOL_SIZE),
    probeTimeoutMs: options.probeTimeoutMs === undefined ? 15000 : normalizeCount(options.probeTimeoutMs, "probeTimeoutMs"),
    workerUrl: url(options.workerUrl, "workerUrl"),
    workerBaseUrl: url(options.workerBaseUrl, "workerBaseUrl"),
  };
}

async function compileProgram(wasm) {
  let compiled;
  if (wasm instanceof WebAssembly.Module) compiled = { module: wasm, memoryType: describeWasiThreadsMemory(wasm) };
  else if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) {
    const memoryType = describeWasiThreadsMemory(wasm);
    compiled = { module: await compileWasiThreadGuest(wasm), memoryType };
  } else {
    throw new TypeError("runWasiThreadsProgram expects the program's bytes (a BufferSource) or a WebAssembly.Module.");
  }
  if (!WebAssembly.Module.exports(compiled.module).some((e) => e.name === "_start" && e.kind === "function")) {
    throw new TypeError(
      "runWasiThreadsProgram: this module exports no _start function: it is not a command. A reactor (_initialize and " +
        `exported functions) is run with createWasiThreadSpawn (${docsLink("api.md", "reactors")}).`,
    );
  }
  return compiled;
}

// Takes every call posted on the channel until the program ends; answers
// each as soon as the WASI has (a call that waits, such as a read of stdin,
// holds only its own thread). Resolves once the channel's state is final.
async function serve(channel, wasi, stopped) {
  const { words, args } = channel;
  const slots = words[H_SLOTS];
  const answer = (slot, errno) => {
    const base = slotBase(slot);
    Atomics.store(words, base + S_RESULT, errno);
    Atomics.store(words, base + S_STATE, SLOT_DONE);
    Atomics.notify(words, base + S_STATE);
  };
  for (;;) {
    const seen = Atomics.load(words, H_DOORBELL);
    if (Atomics.load(words, H_STATE) > 0 || stopped.reason !== null) return;
    for (let slot = 0; slot < slots; slot++) {
      const base = slotBase(slot);
      if (Atomics.compareExchange(words, base + S_STATE, SLOT_REQUEST, SLOT_BUSY) !== SLOT_REQUEST) continue;
      const first = argIndex(slot);
      const name = CALLS[words[base + S_CALL]];
      const failed = (error) => {
        console.error(`wasi-thread-pool: ${name} failed:`, error);
        return ERRNO_IO;
      };
      let result;
      try {
        result = wasi.call(name, Array.from(args.subarray(first, first + ARG_COUNT)));
      } catch (error) {
        result = failed(error);
      }
      if (typeof result === "number") answer(slot, result);
      else
        result.then(
          (errno) => answer(slot, errno),
          (error) => answer(slot, failed(error)),
        );
    }
    const waited = Atomics.waitAsync(words, H_DOORBELL, seen);
    if (waited.async) await waited.value;
  }
}

// One write of the program's to stdout or stderr. A callback that throws or
// a stream whose write fails is a closed pipe, as on Node: the program ends
// with 141 (brokenPipe), and the write answers EIO meanwhile.
function writeOutput(output, bytes, brokenPipe) {
  let pending;
  try {
    pending = output.write(bytes);
  } catch (error) {
    brokenPipe();
    throw error;
  }
  if (!pending || typeof pending.then !== "function") return pending;
  return pending.catch((error) => {
    brokenPipe();
    throw error;
  });
}

// The rejection of a program that could not start, of the error's own kind.
function startError({ name, message }) {
  const kinds = {
    TypeError,
    RangeError,
    LinkError: WebAssembly.LinkError,
    CompileError: WebAssembly.CompileError,
    RuntimeError: WebAssembly.RuntimeError,
  };
  const Kind = Object.hasOwn(kinds, name) ? kinds[name] : Error;
  return new Kind(`runWasiThreadsProgram: the program could not start: ${message}`);
}

// {exitCode, message}: how the program ended (message for stderr or null).
function outcomeOf(channel, stopped) {
  const { words } = channel;
  const state = Atomics.load(words, H_STATE);
  const text = new TextDecoder().decode(channel.text.slice(0, Atomics.load(words, H_TEXT_LEN)));
  if (state === STATE_EXITED) return { exitCode: Atomics.load(words, H_EXIT_CODE), message: null };
  if (state === STATE_TRAPPED) return { exitCode: TRAP_EXIT_CODE, message: `wasi-thread-pool: ${text}\n` };
  if (state === STATE_FAILED) return { exitCode: FAILED_EXIT_CODE, message: `wasi-thread-pool: ${text}\n` };
  return {
    exitCode: TRAP_EXIT_CODE,
    message: `wasi-thread-pool: the program's main thread's worker failed: ${stopped.reason}\n`,
  };
}

export async function runWasiThreadsProgram(wasm, options = {}) {
  if (globalThis.crossOriginIsolated !== true || typeof SharedArrayBuffer !== "function") {
    throw new Error(NOT_ISOLATED_MESSAGE);
  }
  const opts = normalizeOptions(options ?? {});
  const { module, memoryType } = await compileProgram(wasm);
  await loadOpfsPreopens(opts.preopens);
  const memory = new WebAssembly.Memory({ initial: memoryType.initial, maximum: memoryType.maximum, shared: true });
  const channel = openChannel(createChannel(opts.poolSize + 1).buffer);
  const stdin = createStdin(options.stdin);
  const outputs = { 1: createOutput(options.stdout, 1), 2: createOutput(options.stderr, 2) };
  const wasi = createProgramWasi({
    memory,
    args: opts.args,
    env: opts.env,
    preopens: opts.preopens.map(({ guestPath, dir }) => [guestPath, dir]),
    stdin,
    output: (fd, bytes) => writeOutput(outputs[fd], bytes, () => endChannel(channel, STATE_EXITED, BROKEN_PIPE_EXIT_CODE, "")),
  });

  // Why the program stopped without ending itself: {reason} of a worker
  // error, or {failed: {name, message}} when it could not start.
  const stopped = { reason: null, failed: null };
  const stop = (reason, failed = null) => {
    stopped.reason ??= reason;
    stopped.failed ??= failed;
    ring(channel.words);
  };
  const worker = new Worker(PROGRAM_WORKER_URL, { type: "module", name: "wasi-thread-pool program" });
  worker.onmessage = (event) => stop("it could not start", event.data ?? {});
  worker.onerror = (event) => stop(event?.message ?? "an error");
  try {
    worker.postMessage({
      module,
      memory,
      channel: channel.buffer,
      args: opts.args,
      env: opts.env,
      poolSize: opts.poolSize,
      probeTimeoutMs: opts.probeTimeoutMs,
      runtimeUrl: THREAD_RUNTIME_URL.href,
      workerUrl: opts.workerUrl,
      workerBaseUrl: opts.workerBaseUrl,
    });
    await serve(channel, wasi, stopped);
  } finally {
    // Every thread ends here: the pool's workers are the main thread's worker's.
    worker.terminate();
    stdin.close();
  }
  const notStarted = stopped.failed !== null && !(Atomics.load(channel.words, H_STATE) > 0);
  const { exitCode, message } = notStarted ? { exitCode: null, message: null } : outcomeOf(channel, stopped);
  if (message !== null) await outputs[2].write(new TextEncoder().encode(message));
  await Promise.all([outputs[1].close(), outputs[2].close()]);
  if (notStarted) throw startError(stopped.failed);
  await storePreopens(opts.preopens, exitCode);
  return { exitCode };
}
