// A worker of @emnapi/wasi-threads for the peer benchmark
// (bench/scenarios/peer.js), written as its README shows: the module is
// instantiated once, on `load`, and every thread this worker runs is a
// `start` message handled on this worker's event loop.

import { parentPort } from "node:worker_threads";
import { ThreadMessageHandler, WASIThreads } from "@emnapi/wasi-threads";
import { WASI } from "@tybys/wasm-util";

const postMessage = (message) => parentPort.postMessage(message);
const handler = new ThreadMessageHandler({
  postMessage,
  onLoad({ wasmModule, wasmMemory }) {
    const wasi = new WASI({ version: "preview1" });
    const wasiThreads = new WASIThreads({ wasi, childThread: true, postMessage });
    const instance = new WebAssembly.Instance(wasmModule, {
      env: { memory: wasmMemory },
      wasi_snapshot_preview1: wasi.wasiImport,
      ...wasiThreads.getImportObject(),
    });
    // (No initialize(): this reactor guest has no _initialize and imports its
    // memory; wasi_thread_start is all the handler calls.)
    return { module: wasmModule, instance };
  },
});
parentPort.on("message", (data) => handler.handle({ data }));
