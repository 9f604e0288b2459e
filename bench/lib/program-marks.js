// Preloaded (node --import) into a `wasi-thread-pool run` process by the
// program-costs rows (bench/lib/program-costs.js): wall-clock marks of the
// main thread, on the process's clock (performance.now(), ms since the
// process started), written as one JSON line to the file named in
// WTP_MARKS_FILE when the process exits through Node ("exit" event):
//   boot     this file's first line (Node's own start-up is over)
//   compile  [start, end] of each WebAssembly.compile / new Module
//   instance [start, end] of each new WebAssembly.Instance on this thread
//   exit     the "exit" event (the program has ended; the process tears down)
// Bench only: it wraps two WebAssembly constructors of this thread.

import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

if (process.env.WTP_MARKS_FILE && isMainThread) {
  const marks = { boot: performance.now(), compile: [], instance: [], exit: null };
  const timed = (list, run) => {
    const start = performance.now();
    const result = run();
    if (result && typeof result.then === "function") {
      return result.then((value) => (list.push([start, performance.now()]), value));
    }
    list.push([start, performance.now()]);
    return result;
  };
  const { compile, Module, Instance } = WebAssembly;
  WebAssembly.compile = (...args) => timed(marks.compile, () => compile(...args));
  WebAssembly.Module = new Proxy(Module, {
    construct: (target, args) => timed(marks.compile, () => Reflect.construct(target, args)),
  });
  WebAssembly.Instance = new Proxy(Instance, {
    construct: (target, args) => timed(marks.instance, () => Reflect.construct(target, args)),
  });
  process.on("exit", () => {
    marks.exit = performance.now();
    writeFileSync(process.env.WTP_MARKS_FILE, JSON.stringify(marks));
  });
}
