// A threaded program's memory, made so that growth on one thread never traps
// another (issue 26, docs/runtime.md "Memory growth across threads"): a
// guest that compileWasiThreadGuest rewrote (lib/worker/guest-memory.js)
// runs its memory.size/memory.grow on a page counter its threads share, and
// its real shared memory is made at its maximum, so that it never grows
// while threads run.
//
//   reservesMemory(wasmModule) -> boolean: the module imports the counter's
//     functions (it was rewritten).
//   makeProgramMemory(memoryType, reserved) -> {memory, memoryPages}: the
//     shared memory (at its maximum when reserved) and the counter (null
//     when not reserved).
//   releaseProgramMemory(memory) -> boolean: gives the memory's pages back
//     to the OS once every thread of its program has stopped.
//
// The memory is also advised to the OS for huge pages (src/os/wtp_memory.h:
// Linux's transparent huge pages; nothing elsewhere), before any thread
// touches it: a program's first touches of tens of MiB cost one fault per
// 2 MiB instead of one per 4 KiB (the bench's group 13). Not where the
// kernel hands free huge-page-sized blocks back to a hypervisor (free page
// reporting): there each huge page's first touch waits for the host to back
// it again, and a program that touches hundreds of MiB took 3-4 times as
// long whenever its memory had been free for a few seconds.
// WASI_THREAD_POOL_HUGE_PAGES=0 leaves it to the system's default; =1 asks
// for huge pages there too.

import { native } from "../native/binding.js";
import { createMemoryCounter, importsMemoryCounter } from "../wasm/memory-counter.js";
import { RESERVE_ENV } from "../worker/guest-memory.js";
import { envSwitch } from "../worker/env-switch.js";
import { docsLink } from "./docs.js";

export const HUGE_PAGES_ENV = "WASI_THREAD_POOL_HUGE_PAGES";

export function hugePagesWanted(env = process.env) {
  return envSwitch(env, HUGE_PAGES_ENV);
}

// Whether the OS hands free huge pages to a hypervisor: a property of the
// machine, read from sysfs once per thread (not once per program made).
let reported = null;
function freeHugePagesReported() {
  const read = native.binding?.freeHugePagesReported;
  reported ??= typeof read === "function" && read();
  return reported;
}

// Whether huge pages are worth advising here: wanted, and either asked for
// outright (=1) or the OS does not hand free huge pages to a hypervisor.
function hugePagesPay(env) {
  if (!hugePagesWanted(env)) return false;
  return env[HUGE_PAGES_ENV] === "1" || !freeHugePagesReported();
}

// Whether the OS took the advice (false: not asked, not worth it here, no
// addon, an addon without adviseHugePages, or an OS that takes no such
// advice).
export function adviseHugePages(memory, env = process.env) {
  const advise = native.binding?.adviseHugePages;
  if (typeof advise !== "function" || !hugePagesPay(env)) return false;
  return advise(new Uint8Array(memory.buffer));
}

// A finished program's memory is garbage, but stays allocated, and resident,
// until V8 collects it: an embedder that runs program after program held
// gigabytes between collections (docs/runner.md, "Running many programs in
// one process"). Its pages go back to the OS as soon as the program ends
// (src/os/wtp_memory.h: Linux; elsewhere the memory waits for the
// collector); the memory stays valid, zero where read again. Only for
// memory no thread can touch any more: the caller has seen every worker of
// the program exit. True when the OS took the pages.
export function releaseProgramMemory(memory) {
  const release = native.binding?.releasePages;
  if (typeof release !== "function" || !(memory instanceof WebAssembly.Memory)) return false;
  return release(new Uint8Array(memory.buffer));
}

export function reservesMemory(wasmModule) {
  return importsMemoryCounter(wasmModule);
}

export function makeProgramMemory({ initial, maximum }, reserved) {
  hugePagesWanted(); // a bad value is refused before the memory is made
  if (!reserved) {
    const memory = new WebAssembly.Memory({ initial, maximum, shared: true });
    adviseHugePages(memory);
    return { memory, memoryPages: null };
  }
  let memory;
  try {
    memory = new WebAssembly.Memory({ initial: maximum, maximum, shared: true });
  } catch (error) {
    throw new RangeError(
      `runWasiThreadsProgram: cannot reserve the program's memory at its maximum (${maximum} pages): ${error.message} ` +
        `(${RESERVE_ENV}=0 grows it on demand instead: ${docsLink("runtime.md", "memory-growth-across-threads")}).`,
      { cause: error },
    );
  }
  adviseHugePages(memory);
  return { memory, memoryPages: createMemoryCounter(initial, maximum) };
}
