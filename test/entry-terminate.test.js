// A user's worker that imports one of the package's Node entries and then
// blocks at its top level (the SDK's way: serveWasiThreadPoolSlot in the
// worker script) can be terminated, and the process ends normally. Node 24
// and 26 abort (V8's "Check failed: (location_) != nullptr" in
// SourceTextModule::AsyncModuleExecutionFulfilled, SIGTRAP) when a worker is
// terminated inside a module evaluated as the continuation of a dependency's
// top-level await: one `await` at the top level of any module an entry
// imports would crash such users there. npm test runs this on Node 24 and 26
// too (scripts/node-versions.sh). Each entry in a child process.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";

const ENTRIES = ["lib/index.js", "lib/pool.js", "lib/host/host.js", "lib/worker/runtime.js", "lib/liftoff.js"];
const dir = mkdtempSync(join(tmpdir(), "wtp-entry-terminate-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// The worker imports the entry, says so, and blocks; the main thread
// terminates it once it has, then ends.
const MAIN = `
import { Worker } from "node:worker_threads";
const worker = new Worker(new URL(process.argv[1]), { execArgv: [] });
await new Promise((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
console.log("terminated", await worker.terminate());
`;

for (const entry of ENTRIES) {
  test(`a worker that imports ${entry} and blocks at its top level is terminated cleanly`, () => {
    const file = join(dir, `${entry.replaceAll("/", "-")}.mjs`);
    const url = new URL(`../${entry}`, import.meta.url).href;
    writeFileSync(
      file,
      `import ${JSON.stringify(url)};\nimport { parentPort } from "node:worker_threads";\nparentPort.postMessage("imported");\n` +
        `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n`,
    );
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", MAIN, pathToFileURL(file).href], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(r.signal, null, `the process died of ${r.signal}: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^terminated 1$/m);
  });
}
