// A WASI proc_exit on a guest thread. Workers treat it as the thread's normal
// end; they recognise it by name, so that another runtime's error of the same
// name (the SDK's) is treated alike. No import: the browser program runner's
// thread runtime (lib/program/browser/client.js) throws it without loading
// the WASI shim.
export class WasiExitError extends Error {
  constructor(code) {
    super(`WASI proc_exit(${code})`);
    this.name = "WasiExitError";
    this.code = code;
  }
}
