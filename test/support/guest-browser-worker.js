// Runs the browser pool worker (lib/wasiThreadBrowserWorker.mjs) inside a
// Node worker thread, for protocol tests without a browser: the two worker
// globals it uses, postMessage and onmessage, are bridged to parentPort.
// (A real browser test serves the bundle; see docs/browser-workers.md.)
//
// For ordering tests, the bridge also reports the state of the worker's slot
// at the moment the worker posts {t:"error"}: it posts
// {t:"slot-state-at-error", state} just before forwarding the error.

import { parentPort } from "node:worker_threads";
import { S_STATE, slotBase } from "../../lib/pool/layout.js";

let served = null; // {pool, slot} from the probe, if it had a pool

globalThis.postMessage = (message) => {
  if (message?.t === "error" && served !== null) {
    const state = Atomics.load(served.pool.control, slotBase(served.slot) + S_STATE);
    parentPort.postMessage({ t: "slot-state-at-error", state });
  }
  parentPort.postMessage(message);
};
await import("../../lib/wasiThreadBrowserWorker.mjs");
parentPort.on("message", (data) => {
  if (data?.t === "probe" && data.pool) served = { pool: data.pool, slot: data.slot };
  globalThis.onmessage?.({ data });
});
