// Runs the browser pool worker (lib/wasiThreadBrowserWorker.mjs) inside a
// Node worker thread, for protocol tests without a browser: the two worker
// globals it uses, postMessage and onmessage, are bridged to parentPort.
// (A real browser test serves the bundle; see docs/browser-workers.md.)

import { parentPort } from "node:worker_threads";

globalThis.postMessage = (message) => parentPort.postMessage(message);
await import("../../lib/wasiThreadBrowserWorker.mjs");
parentPort.on("message", (data) => globalThis.onmessage?.({ data }));
