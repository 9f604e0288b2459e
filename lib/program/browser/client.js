// A guest thread's preview1 imports in a browser program: every call but the
// thread-local ones crosses the channel (channel.js) to the page's one WASI
// (wasi.js, served by run.js), so that every thread shares one fd table and
// one file system. Browser-safe; it imports only channel.js,
// lib/program/control.js's constants and lib/worker/exit-error.js.
//
// createWasiClient(buffer, memory) -> {imports, trap(thread, error), finish()}
//   imports  the wasi_snapshot_preview1 object of one runtime (one slot,
//            claimed here; a runtime runs one thread at a time).
//   trap     ends the program as a trap on `thread` (a label).
//   finish   ends the program with status 0 (_start returned).

import {
  ARG_COUNT,
  CALLS,
  H_NEXT_SLOT,
  H_SLOTS,
  S_CALL,
  S_RESULT,
  S_STATE,
  SLOT_DONE,
  SLOT_IDLE,
  SLOT_REQUEST,
  STATE_EXITED,
  STATE_FAILED,
  STATE_TRAPPED,
  argIndex,
  endChannel,
  openChannel,
  ring,
  slotBase,
} from "./channel.js";
import { MAX_EXIT_STATUS, trapReport } from "../control.js";
import { WasiExitError } from "../../worker/exit-error.js";

const ERRNO_SUCCESS = 0;
const ERRNO_FAULT = 21;
const ERRNO_INVAL = 28;

const CLOCK_REALTIME = 0;
const CLOCK_MONOTONIC = 1;
const CLOCK_PROCESS_CPUTIME = 2;
const CLOCK_THREAD_CPUTIME = 3;

// Nanoseconds of a clock, or null for an unknown one. The monotonic clock is
// performance.timeOrigin + now(): one origin for every agent of the page.
function clockNs(id) {
  if (id === CLOCK_REALTIME) return BigInt(Date.now()) * 1000000n;
  if (id === CLOCK_MONOTONIC || id === CLOCK_PROCESS_CPUTIME || id === CLOCK_THREAD_CPUTIME) {
    return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  }
  return null;
}

// A view of `length` bytes at `ptr` of the memory, or null when out of bounds.
function guestBytes(memory, ptr, length) {
  const buffer = memory.buffer;
  const start = ptr >>> 0;
  const size = length >>> 0;
  return start + size > buffer.byteLength ? null : new Uint8Array(buffer, start, size);
}

export function createWasiClient(buffer, memory) {
  const channel = openChannel(buffer);
  const { words, args } = channel;
  const slot = Atomics.add(words, H_NEXT_SLOT, 1);
  if (slot >= words[H_SLOTS]) {
    throw new RangeError(`runWasiThreadsProgram: more thread runtimes than the channel's ${words[H_SLOTS]} slots`);
  }
  const base = slotBase(slot);
  const first = argIndex(slot);

  function call(index, values) {
    for (let i = 0; i < values.length && i < ARG_COUNT; i++) {
      args[first + i] = typeof values[i] === "bigint" ? values[i] : BigInt(values[i] | 0);
    }
    words[base + S_CALL] = index;
    Atomics.store(words, base + S_STATE, SLOT_REQUEST);
    ring(words);
    // The page answers, or the program ends and this worker is terminated.
    let state;
    while ((state = Atomics.load(words, base + S_STATE)) !== SLOT_DONE) Atomics.wait(words, base + S_STATE, state);
    const result = Atomics.load(words, base + S_RESULT);
    Atomics.store(words, base + S_STATE, SLOT_IDLE);
    return result;
  }

  const imports = {};
  CALLS.forEach((name, index) => {
    imports[name] = (...values) => call(index, values);
  });

  imports.clock_time_get = (id, _precision, out) => {
    const ns = clockNs(id);
    if (ns === null) return ERRNO_INVAL;
    const target = guestBytes(memory, out, 8);
    if (target === null) return ERRNO_FAULT;
    new DataView(target.buffer, target.byteOffset, 8).setBigUint64(0, ns, true);
    return ERRNO_SUCCESS;
  };
  imports.clock_res_get = (id, out) => {
    if (clockNs(id) === null) return ERRNO_INVAL;
    const target = guestBytes(memory, out, 8);
    if (target === null) return ERRNO_FAULT;
    new DataView(target.buffer, target.byteOffset, 8).setBigUint64(0, 1000n, true);
    return ERRNO_SUCCESS;
  };
  // crypto.getRandomValues refuses views of a SharedArrayBuffer: fill a
  // private buffer and copy.
  imports.random_get = (ptr, length) => {
    const target = guestBytes(memory, ptr, length);
    if (target === null) return ERRNO_FAULT;
    const chunk = new Uint8Array(Math.min(target.length, 65536));
    for (let offset = 0; offset < target.length; offset += chunk.length) {
      const view = chunk.subarray(0, Math.min(chunk.length, target.length - offset));
      crypto.getRandomValues(view);
      target.set(view, offset);
    }
    return ERRNO_SUCCESS;
  };
  imports.sched_yield = () => ERRNO_SUCCESS;
  // proc_exit ends every thread: the page terminates the program's workers
  // once it sees the end; this thread ends now.
  imports.proc_exit = (code) => {
    const status = code >>> 0;
    if (status < MAX_EXIT_STATUS) endChannel(channel, STATE_EXITED, status, "");
    else {
      endChannel(channel, STATE_FAILED, 1, `proc_exit(${status}): exit with invalid exit status outside of [0..126)`);
    }
    throw new WasiExitError(status);
  };

  return {
    imports,
    trap(thread, error) {
      endChannel(channel, STATE_TRAPPED, 0, `${thread} trapped: ${trapReport(error)}`);
    },
    finish() {
      endChannel(channel, STATE_EXITED, 0, "");
    },
  };
}
