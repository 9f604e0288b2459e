// The program runner in browsers: not implemented. The names exist so that code and declarations shared with Node
// stay the same; the runner itself rejects, saying why.

import { docsLink } from "./docs.js";

export { describeWasiThreadsMemory } from "../worker/wasm-memory.js";

export const TRAP_EXIT_CODE = 134;

export async function runWasiThreadsProgram() {
  throw new Error(
    "runWasiThreadsProgram runs programs under Node only: this browser build has no runner " +
      `(${docsLink("api.md", "running-programs-ours")}). Use createWasiThreadSpawn and createWasiThreadWorkerRuntime in a module Worker.`,
  );
}
