// The channel between a program's threads and the page that serves its one
// WASI (run.js takes the calls, wasi.js carries them out): one
// SharedArrayBuffer of 32-bit words, a header, then one request slot per
// thread's runtime, then the text area of a trap or a failure. Every guest
// thread's preview1 imports (client.js) forward each call here: the call's
// arguments go into the runtime's own slot and the thread blocks in
// Atomics.wait until the page has carried the call out on the guest's
// shared memory and written the result. Browser-safe; it imports only
// lib/program/control.js's constants.

import { STATE_EXITED, STATE_FAILED, STATE_RUNNING, STATE_TRAPPED } from "../control.js";

// Header words (Int32):
//   H_STATE      RUNNING until the program ends, then ENDING (the first
//                thread to end the program took it by compareExchange from
//                RUNNING, seq_cst), then EXITED, TRAPPED or FAILED (the
//                winner's seq_cst store, after H_EXIT_CODE and the text, and
//                before it rings H_DOORBELL). The page reads it after each
//                doorbell and takes only a final state.
//   H_EXIT_CODE  the exit status (EXITED) written by the CAS winner only.
//   H_DOORBELL   incremented (Atomics.add, seq_cst) by a thread after it
//                posted a request or ended the program, then notified; the
//                page waits on it with Atomics.waitAsync for a change from
//                the value it last saw, so a ring between its scan and its
//                wait is never lost (it rereads every slot after each change).
//   H_NEXT_SLOT  the next free slot: a runtime claims one with Atomics.add
//                when it is made (one per worker, one for the main thread).
//   H_SLOTS      the number of slots (written once before any thread runs).
//   H_TEXT_LEN   bytes of the trap / failure text (the CAS winner's).
//
// A slot (SLOT_WORDS words from slotBase(i)):
//   S_STATE      IDLE -> REQUEST (the slot's thread, after writing S_CALL and
//                the arguments; seq_cst store) -> BUSY (the page, CAS, so a
//                request is taken once) -> DONE (the page, after S_RESULT and
//                any out-values in guest memory; seq_cst store + notify) ->
//                IDLE (the thread, after reading S_RESULT). Only the slot's
//                thread waits on it.
//   S_CALL       the index of the preview1 function (CALLS below).
//   S_RESULT     the errno the page returns.
//   args         ARG_COUNT 64-bit words (a BigInt64Array over the same
//                buffer), the call's arguments as given (i32 sign-extended).

export const H_STATE = 0;
export const H_EXIT_CODE = 1;
export const H_DOORBELL = 2;
export const H_NEXT_SLOT = 3;
export const H_SLOTS = 4;
export const H_TEXT_LEN = 5;
const HEADER_WORDS = 8;

// The end states are the Node runner's (lib/program/control.js).
export const STATE_ENDING = -1;
export { STATE_EXITED, STATE_FAILED, STATE_RUNNING, STATE_TRAPPED };

export const S_STATE = 0;
export const S_CALL = 1;
export const S_RESULT = 2;
const S_ARGS = 4; // 8-byte aligned: slots and the header are multiples of 2 words
export const ARG_COUNT = 10;
const SLOT_WORDS = S_ARGS + 2 * ARG_COUNT;

export const SLOT_IDLE = 0;
export const SLOT_REQUEST = 1;
export const SLOT_BUSY = 2;
export const SLOT_DONE = 3;

export const TEXT_BYTES = 8192;

// The preview1 functions forwarded to the page, by index. The thread-local
// ones (clock_time_get, clock_res_get, random_get, sched_yield, proc_exit)
// never cross the channel.
export const CALLS = [
  "args_get",
  "args_sizes_get",
  "environ_get",
  "environ_sizes_get",
  "fd_advise",
  "fd_allocate",
  "fd_close",
  "fd_datasync",
  "fd_fdstat_get",
  "fd_fdstat_set_flags",
  "fd_fdstat_set_rights",
  "fd_filestat_get",
  "fd_filestat_set_size",
  "fd_filestat_set_times",
  "fd_pread",
  "fd_prestat_get",
  "fd_prestat_dir_name",
  "fd_pwrite",
  "fd_read",
  "fd_readdir",
  "fd_renumber",
  "fd_seek",
  "fd_sync",
  "fd_tell",
  "fd_write",
  "path_create_directory",
  "path_filestat_get",
  "path_filestat_set_times",
  "path_link",
  "path_open",
  "path_readlink",
  "path_remove_directory",
  "path_rename",
  "path_symlink",
  "path_unlink_file",
  "poll_oneoff",
  "proc_raise",
  "sock_accept",
  "sock_recv",
  "sock_send",
  "sock_shutdown",
];

// A new channel for `slots` runtimes: {buffer, words}.
export function createChannel(slots) {
  const bytes = (HEADER_WORDS + slots * SLOT_WORDS) * 4 + TEXT_BYTES;
  const buffer = new SharedArrayBuffer(bytes);
  const words = new Int32Array(buffer);
  words[H_SLOTS] = slots;
  return { buffer, words };
}

export function openChannel(buffer) {
  const words = new Int32Array(buffer, 0, HEADER_WORDS + SLOT_WORDS * new Int32Array(buffer)[H_SLOTS]);
  return {
    buffer,
    words,
    args: new BigInt64Array(buffer, 0, words.length / 2),
    text: new Uint8Array(buffer, words.length * 4, TEXT_BYTES),
  };
}

// The first word of slot `i` (its S_STATE); its arguments start at word
// base + S_ARGS, that is 64-bit index (base + S_ARGS) / 2.
export function slotBase(i) {
  return HEADER_WORDS + i * SLOT_WORDS;
}

export function argIndex(slot) {
  return (slotBase(slot) + S_ARGS) / 2;
}

// Ends the program unless it has ended: the first caller wins. `text` (the
// trap's or failure's, may be empty) goes to the text area. Returns whether
// this call won.
export function endChannel(channel, state, exitCode, text) {
  const { words } = channel;
  if (Atomics.compareExchange(words, H_STATE, STATE_RUNNING, STATE_ENDING) !== STATE_RUNNING) return false;
  const encoded = new TextEncoder().encode(text ?? "");
  const length = Math.min(encoded.length, channel.text.length);
  channel.text.set(encoded.subarray(0, length));
  Atomics.store(words, H_TEXT_LEN, length);
  Atomics.store(words, H_EXIT_CODE, exitCode);
  Atomics.store(words, H_STATE, state);
  ring(words);
  return true;
}

export function ring(words) {
  Atomics.add(words, H_DOORBELL, 1);
  Atomics.notify(words, H_DOORBELL);
}
