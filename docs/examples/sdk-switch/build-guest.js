// Compiles guest.wat to guest.wasm with wabt (a dev dependency): the
// threads feature is needed for the shared memory and the atomics.
//
//   node build-guest.js [out.wasm]

import { readFileSync, writeFileSync } from "node:fs";
import initWabt from "wabt";

const wabt = await initWabt();
const source = new URL("./guest.wat", import.meta.url);
const out = process.argv[2] ?? new URL("./guest.wasm", import.meta.url);

const module = wabt.parseWat("guest.wat", readFileSync(source, "utf8"), { threads: true });
try {
  const { buffer } = module.toBinary({});
  // (wabt's own validate() ignores the threads feature; ask the engine.)
  if (!WebAssembly.validate(buffer)) throw new Error("guest.wasm does not validate");
  writeFileSync(out, buffer);
  console.log(`guest.wasm: ${buffer.length} bytes`);
} finally {
  module.destroy();
}
