// Drives lib/host/host.js's browser branch under Node.
//
// The host picks its branch once, when the module is evaluated, from
// process.release. importBrowserHost() hides process.release, imports a fresh
// instance of lib/host/host.js (a cache-busting query makes it a new module), and
// puts process.release back. installBrowserGlobals() sets the globals the
// browser branch reads while a test runs, and returns the function that
// undoes it.

import { MockWorker } from "./mock-worker.js";

let instance = 0;

export async function importBrowserHost() {
  const release = Object.getOwnPropertyDescriptor(process, "release");
  Object.defineProperty(process, "release", { value: undefined, configurable: true });
  try {
    return await import(`../../lib/host/host.js?browser=${++instance}`);
  } finally {
    Object.defineProperty(process, "release", release);
  }
}

const UNSET = Symbol("unset");

function setGlobal(name, value, undo) {
  const previous = Object.getOwnPropertyDescriptor(globalThis, name);
  undo.push(() => {
    if (previous) Object.defineProperty(globalThis, name, previous);
    else delete globalThis[name];
  });
  if (value === UNSET) delete globalThis[name];
  else Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

const DEFAULTS = {
  crossOriginIsolated: true,
  hardwareConcurrency: 4,
  enable: true,
  location: undefined,
  self: undefined,
  Worker: MockWorker,
};

// Options: crossOriginIsolated (true), hardwareConcurrency (4), enable (the
// __SDM_ENABLE_BROWSER_WASI_THREADS__ global; true), location (unset),
// self (unset), Worker (MockWorker). An option given as `undefined` leaves
// that global unset (a default applies only to an option left out).
export function installBrowserGlobals(options = {}) {
  const { crossOriginIsolated, hardwareConcurrency, enable, location, self, Worker } = {
    ...DEFAULTS,
    ...options,
  };
  const undo = [];
  const orUnset = (value) => (value === undefined ? UNSET : value);
  setGlobal("crossOriginIsolated", orUnset(crossOriginIsolated), undo);
  setGlobal("navigator", hardwareConcurrency === undefined ? UNSET : { hardwareConcurrency }, undo);
  setGlobal("__SDM_ENABLE_BROWSER_WASI_THREADS__", orUnset(enable), undo);
  setGlobal("location", orUnset(location), undo);
  setGlobal("self", orUnset(self), undo);
  setGlobal("Worker", orUnset(Worker), undo);
  return () => {
    for (const step of undo.reverse()) step();
  };
}

// Collects console.error calls while `fn` runs (the host logs worker
// failures the way the SDK does; tests check and silence them).
export async function captureConsoleError(fn) {
  const original = console.error;
  const calls = [];
  console.error = (...args) => calls.push(args);
  try {
    const result = await fn();
    return { result, calls };
  } finally {
    console.error = original;
  }
}

export function sharedMemory() {
  return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
}

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
