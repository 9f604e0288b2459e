import { readFileSync } from "node:fs";
import { runWasiThreadsProgram } from "wasi-thread-pool";

const { exitCode } = await runWasiThreadsProgram(readFileSync("lines.wasm"), {
  args: ["lines", "/data/input.txt"],
  preopens: { "/data": "./data" },
});
console.log(`exit status ${exitCode}`);
