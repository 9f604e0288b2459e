// Importing the package changes nothing in the process: no patched
// Worker.prototype.terminate, no "exit" listener, no V8 flag. The hooks that
// make native waits end promptly come with the first native pool, in each
// thread that uses one (lib/native/backend.js); --no-liftoff comes only with
// compileWasiThreadGuest or protectFromLiftoffHazard (lib/worker/liftoff.js).
//
// Each case runs in a fresh process: hooks and V8 flags are process-wide.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { native } from "../lib/native/binding.js";
import { probeLiftoffHazard } from "../lib/worker/liftoff.js";

const lib = (file) => JSON.stringify(new URL(`../lib/${file}`, import.meta.url).href);
// This engine's answer, in this process, which has set no flag: where it
// shows the hazard, a child's probe after the import must show it as well.
const AFFECTED = probeLiftoffHazard();

function inChild(code, env = {}) {
  const script = `
    import { Worker } from "node:worker_threads";
    const own = Worker.prototype.terminate;
    const listeners = () => process.listenerCount("exit");
    const before = listeners();
    const state = () => ({ hooked: Worker.prototype.terminate !== own, exitListeners: listeners() - before });
    ${code}`;
  const out = execFileSync(process.execPath, ["--input-type=module", "--eval", script], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  return JSON.parse(out);
}

for (const entry of ["index.js", "pool.js", "host/host.js", "worker/runtime.js", "liftoff.js"]) {
  it(`importing lib/${entry} patches nothing and sets no V8 flag`, () => {
    const r = inChild(`
      await import(${lib(entry)});
      const { liftoffHazardState, probeLiftoffHazard } = await import(${lib("worker/liftoff.js")});
      // The raw probe compiles its bytes for the first time in this process:
      // on an affected engine it still shows the hazard unless --no-liftoff was set.
      console.log(JSON.stringify({ ...state(), protected: liftoffHazardState().protected, hazard: probeLiftoffHazard() }));`);
    assert.equal(r.hooked, false);
    assert.equal(r.exitListeners, 0);
    assert.equal(r.protected, false);
    assert.equal(r.hazard, AFFECTED, AFFECTED ? "--no-liftoff was set on import" : "the probe differs in a child");
  });
}

it("creating a JS pool or a host over one installs no hook", () => {
  const r = inChild(`
    const P = await import(${lib("index.js")});
    P.createWasiThreadPool({ capacity: 1, implementation: "js" });
    console.log(JSON.stringify(state()));`);
  assert.deepEqual(r, { hooked: false, exitListeners: 0 });
});

it("creating the first native pool installs both hooks, once", { skip: native.binding === null && "no addon" }, () => {
  const r = inChild(`
    const P = await import(${lib("index.js")});
    P.createWasiThreadPool({ capacity: 1, implementation: "native" });
    const first = state();
    const hook = Worker.prototype.terminate;
    P.createWasiThreadPool({ capacity: 1, implementation: "native" });
    console.log(JSON.stringify({ first, again: state(), same: Worker.prototype.terminate === hook, name: hook.name }));`);
  assert.deepEqual(r.first, { hooked: true, exitListeners: 1 });
  assert.deepEqual(r.again, { hooked: true, exitListeners: 1 });
  assert.equal(r.same, true);
  assert.equal(r.name, "terminateWorker");
});

it(
  "a worker that first uses a native pool created elsewhere installs its terminate hook",
  { skip: native.binding === null && "no addon" },
  () => {
    const r = inChild(`
    const P = await import(${lib("pool.js")});
    const pool = P.createWasiThreadPool({ capacity: 1, implementation: "native" });
    const source = \`
      const { parentPort, workerData, Worker } = require("node:worker_threads");
      const own = Worker.prototype.terminate;
      import(workerData.url).then((P) => {
        const before = Worker.prototype.terminate === own;
        P.readWasiThreadPoolReport(workerData.pool);
        parentPort.postMessage({ before, after: Worker.prototype.terminate !== own });
      });\`;
    const worker = new Worker(source, { eval: true, execArgv: [], workerData: { pool, url: ${lib("pool.js")} } });
    const got = await new Promise((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
    await worker.terminate();
    console.log(JSON.stringify(got));`);
    assert.deepEqual(r, { before: true, after: true });
  },
);
