// The host side of the memory pass (lib/wasm/memory-pass.js): the page
// counter a program's threads share, and the two functions the rewritten
// program imports in place of memory.size and memory.grow.
//
//   createMemoryCounter(initial, maximum) -> Int32Array over a
//     SharedArrayBuffer: [0] the program's size in pages, [1] its maximum
//     (written once, before the counter is shared; read plainly).
//   memoryGrowthImports(counter) -> {memory_size, memory_grow}, the import
//     object's MEMORY_IMPORT_MODULE entry: memory_size reads [0] (an
//     Atomics.load, seq_cst, pairing with memory_grow's compare-exchange);
//     memory_grow(delta) adds delta pages (unsigned) with a compare-exchange
//     unless that passes the maximum, and returns the old size, or -1 and
//     changes nothing: exactly memory.grow's result, atomic across threads.

import { moduleImports } from "./module-imports.js";

export const MEMORY_IMPORT_MODULE = "wasi-thread-pool";

export function createMemoryCounter(initial, maximum) {
  if (!(Number.isInteger(initial) && Number.isInteger(maximum) && initial >= 0 && initial <= maximum && maximum <= 65536)) {
    throw new RangeError("createMemoryCounter: 0 <= initial <= maximum <= 65536 pages.");
  }
  const counter = new Int32Array(new SharedArrayBuffer(8));
  counter[0] = initial;
  counter[1] = maximum;
  return counter;
}

export function memoryGrowthImports(counter) {
  return {
    memory_size: () => Atomics.load(counter, 0),
    memory_grow(delta) {
      const add = delta >>> 0;
      const maximum = counter[1];
      for (;;) {
        const old = Atomics.load(counter, 0);
        if (add > maximum - old) return -1;
        if (Atomics.compareExchange(counter, 0, old, old + add) === old) return old;
      }
    },
  };
}

// The counter of each reserved memory, by its WebAssembly.Memory object, in
// this thread (a worker gets the counter with the memory and registers it).
const counters = new WeakMap();

export function registerMemoryCounter(memory, counter) {
  counters.set(memory, counter);
}

export function memoryCounterOf(memory) {
  return (memory && counters.get(memory)) ?? null;
}

const PAGE = 65536;

// Reserves a shared memory for a rewritten guest: grows it to `maximum`
// pages, or to the most it accepts below that (its own maximum, which JS
// cannot read), and returns its counter: [its size before, the size
// reached]. Once per memory object: a second call gives the same counter.
export function reserveMemory(memory, maximum) {
  const known = memoryCounterOf(memory);
  if (known) return known;
  const initial = memory.buffer.byteLength / PAGE;
  let reached = initial;
  const tryGrow = (pages) => {
    try {
      memory.grow(pages - reached);
      reached = pages;
      return true;
    } catch {
      return false; // beyond the memory's maximum (or no address space)
    }
  };
  if (maximum > reached && !tryGrow(maximum)) {
    // Binary search for the largest size it accepts.
    let lo = reached;
    let hi = maximum;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (tryGrow(mid)) lo = mid;
      else hi = mid;
    }
  }
  const counter = createMemoryCounter(initial, Math.max(reached, initial));
  registerMemoryCounter(memory, counter);
  return counter;
}

// Whether a compiled module was rewritten by the memory pass (it imports
// the counter's functions); false for a value that is not a module.
export function importsMemoryCounter(wasmModule) {
  return moduleImports(wasmModule)?.some((e) => e.module === MEMORY_IMPORT_MODULE) ?? false;
}

// The counter a rewritten guest's instances share over `memory`: the one
// registered in this thread, or a new reservation up to `maximum` pages
// (the module's declared maximum). null for a module that was not
// rewritten.
export function guestMemoryCounter(wasmModule, memory, maximum) {
  if (!importsMemoryCounter(wasmModule)) return null;
  return memoryCounterOf(memory) ?? reserveMemory(memory, maximum);
}
