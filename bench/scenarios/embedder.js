// Group 14 of `npm run bench` (bench/lib/embedder-plan.js): one process that
// calls runWasiThreadsProgram again and again, as a server would
// (docs/runner.md, "Running many programs in one process"), on the pool
// implementation params.impl. params: {impl, runs}: `runs` runs, one after
// another, of each of two of the runner tests' programs
// (test/support/program-guests.js):
//   touch          writes 48 MiB of its 64 MiB memory, a thread left waiting:
//                  the resident set after each run (no collection asked
//                  for), its peak and its last value;
//   start-returns  _start returns while two threads still run, one of them
//                  on a worker that the main thread's spawn grew: after a
//                  full collection (v8.queryObjects runs one), the JS heap
//                  and the MessagePorts gained per run.
// And the wall time per run of each.

import v8 from "node:v8";
import { Writable } from "node:stream";
import { MessagePort } from "node:worker_threads";
import { emit, params } from "../lib/child.js";
import { runWasiThreadsProgram } from "../../lib/index.js";
import { buildProgram } from "../../test/support/program-guests.js";

const { impl, runs = 100 } = params();
const MIB = 2 ** 20;
// The first runs settle the runner's own modules, caches and code (the heap
// grows by about 0.7 MiB over them, then stays within 0.2 MiB): the figures
// per run are taken from the end of this fifth of the runs to the last.
const WARM_UP = Math.max(3, Math.floor(runs / 5));

const sink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

async function runner(program) {
  const bytes = await buildProgram(program);
  return async () => {
    const options = { implementation: impl, stdin: null, stdout: sink(), stderr: sink() };
    const { exitCode } = await runWasiThreadsProgram(bytes, options);
    if (exitCode !== 0) throw new Error(`${program}: exit ${exitCode}`);
  };
}

// After a full collection: the heap in use and the MessagePorts alive.
function settled() {
  // v8.queryObjects: Node 20.13 and later (NaN before).
  const ports = typeof v8.queryObjects === "function" ? v8.queryObjects(MessagePort, { format: "count" }) : NaN;
  return { ports, heap: process.memoryUsage().heapUsed };
}

const touch = await runner("touch");
let peak = 0;
let started = performance.now();
for (let i = 0; i < runs; i++) {
  await touch();
  peak = Math.max(peak, process.memoryUsage.rss());
}
const touchMs = (performance.now() - started) / runs;
const touchEnd = process.memoryUsage.rss();

const returns = await runner("start-returns");
for (let i = 0; i < WARM_UP; i++) await returns();
const first = settled();
started = performance.now();
for (let i = WARM_UP; i < runs; i++) await returns();
const returnsMs = (performance.now() - started) / (runs - WARM_UP);
const last = settled();

const value = (v) => ({ value: v });
emit({
  metrics: {
    touchRssPeakMiB: value(peak / MIB),
    touchRssEndMiB: value(touchEnd / MIB),
    touchMsPerRun: value(touchMs),
    heapKiBPerRun: value((last.heap - first.heap) / 1024 / (runs - WARM_UP)),
    portsPer100Runs: value(((last.ports - first.ports) * 100) / (runs - WARM_UP)),
    returnsMsPerRun: value(returnsMs),
  },
  info: { runs },
});
