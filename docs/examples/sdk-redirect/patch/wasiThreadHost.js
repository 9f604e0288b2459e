// node_modules/space-data-module-sdk/src/host/wasiThreadHost.js
export * from "wasi-thread-pool/host";
