// wasi-thread-pool/liftoff for Node: the Node 20 Liftoff guard's public names
// (lib/worker/liftoff.js; types/liftoff.d.ts). The runner's and the host's
// own steps there (the compile with the module cache's store, the host's
// warning, the raw probe) stay internal: they import that file by path. The
// browser condition is lib/worker/liftoff.browser.js, with the same names.

export {
  compileWasiThreadGuest,
  compileWasiThreadGuestSync,
  liftoffHazardAffected,
  liftoffHazardState,
  protectFromLiftoffHazard,
} from "./worker/liftoff.js";
