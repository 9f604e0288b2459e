// The program runner in browsers: not implemented (docs/runner.md, "Not
// done"). The names exist so that code and declarations shared with Node
// stay the same; the runner itself rejects, saying why.

export { describeWasiThreadsMemory } from "../worker/wasm-memory.js";

export const TRAP_EXIT_CODE = 134;

export async function runWasiThreadsProgram() {
  throw new Error(
    "runWasiThreadsProgram runs programs under Node only: this browser build has no runner " +
      "(docs/runner.md). Use createWasiThreadSpawn and createWasiThreadWorkerRuntime in a module Worker.",
  );
}
