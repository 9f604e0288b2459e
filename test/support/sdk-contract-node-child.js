// A child process for test/host-sdk-contract.test.js: the Node host driven as
// an SDK test drives it, with whatever `wasmModule` the parent names (argv[2]:
// "stand-in" for { __mockModule: true }, "missing" for none at all). A fresh
// process, because a warning the host emits is emitted once per process.
//
// It spawns one thread and waits for the worker's report of it (onGuestError,
// SDK-CONTRACT 3.4: a worker that cannot instantiate its module reports the
// thread it was started for), then prints one JSON line: the warnings the
// process emitted, the spawn's tid, what onGuestError got, and the report.

import { createWasiThreadSpawn } from "../../lib/index.js";

const warnings = [];
process.on("warning", (warning) => warnings.push({ name: warning.name, message: warning.message }));

const kind = process.argv[2];
const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
const moduleOption = kind === "stand-in" ? { wasmModule: { __mockModule: true } } : {};

// The host keeps the process alive only while a thread runs (SDK-CONTRACT
// 2.6); the worker's report comes after its slot is retired, so this timer
// keeps the event loop alive until it does (and ends a child that never hears).
let reported;
const guestError = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("no onGuestError within 30 s")), 30_000);
  reported = (value) => {
    clearTimeout(timer);
    resolve(value);
  };
});

const threads = await createWasiThreadSpawn({
  ...moduleOption,
  memory,
  instanceId: "contract",
  onGuestError: (instanceId, tid, error) =>
    reported({ instanceId, tid, name: error?.name ?? null, message: String(error?.message ?? error) }),
});

const tid = threads.threadSpawn(7);
const error = await guestError;
// The warning event is emitted on a later tick than emitWarning's call.
await new Promise((resolve) => setImmediate(resolve));
const report = threads.spawnReport();
await threads.terminateAll();
console.log(JSON.stringify({ warnings, tid, error, report }));
