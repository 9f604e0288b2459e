// node_modules/space-data-module-sdk/src/host/wasiThreadPool.js
export * from "wasi-thread-pool/pool";
