// What the package may read of a `wasmModule` it is handed.
//
//   moduleImports(wasmModule) -> WebAssembly.Module.imports(wasmModule), or
//     null for a value the engine does not take as a compiled module (an
//     SDK test's stand-in, or none at all).
//
// The hosts hand wasmModule to their workers and never require it to be a
// module (SDK-CONTRACT 2.2): what cannot be read is passed on untouched, and
// the worker that cannot instantiate it says so. Browser-safe.

export function moduleImports(wasmModule) {
  try {
    return WebAssembly.Module.imports(wasmModule);
  } catch {
    return null;
  }
}
