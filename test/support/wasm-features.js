// WebAssembly text to bytes with the wabt features a test names (the
// decoder and memory pass tests need SIMD, exceptions, tail calls...), and
// optionally the name section.

import wabtInit from "wabt";

// Every feature the decoder's tests generate modules with.
export const ALL_FEATURES = {
  threads: true,
  exceptions: true,
  simd: true,
  tail_call: true,
  multi_value: true,
  bulk_memory: true,
  reference_types: true,
};

let wabtPromise = null;

export async function watToBytesWith(source, features, { names = false, filename = "module.wat" } = {}) {
  wabtPromise ??= wabtInit();
  const wabt = await wabtPromise;
  const module = wabt.parseWat(filename, source, features);
  try {
    if (names) module.resolveNames();
    module.validate(features);
    return new Uint8Array(module.toBinary({ write_debug_names: names }).buffer);
  } finally {
    module.destroy();
  }
}
