// The program runner in browsers: lib/program/browser/run.js (docs/runner.md,
// "In a browser page").

export { describeWasiThreadsMemory } from "../worker/wasm-memory.js";
export { TRAP_EXIT_CODE, runWasiThreadsProgram } from "./browser/run.js";
