// Memory that grows on one thread never traps another, on the SDK host path
// (issue 26): a reactor guest compiled by compileWasiThreadGuest (which
// rewrites its memory.grow/memory.size, lib/worker/guest-memory.js), hosted
// by createWasiThreadSpawn (which grows the caller's memory to its maximum
// once, lib/host/node.js) with the main instance from
// createWasiThreadWorkerRuntime. run() starts 4 pthreads that malloc and
// fill growing blocks; without the remedy a thread traps ("memory access out
// of bounds") and the call never returns (the join waits for it). Each run
// is a child process bounded in time (a hang is the failure). Three runs
// on each pool. Needs clang-19 and ../shared's sysroot: skips saying so.
// scripts/qemu-arm64.sh runs this file on the arm64 Node too.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { buildWasiPrograms, programPath, runChild } from "./support/wasi-programs.js";

const CHILD = fileURLToPath(new URL("./support/growth-host-child.js", import.meta.url));
const RUNS = 3;
const skip = buildWasiPrograms();

for (const implementation of IMPLEMENTATIONS) {
  describe(`SDK host: a reactor whose threads allocate, ${implementation} pool`, { skip }, () => {
    test(`run() returns 0 wrong bytes, no guest error (${RUNS} runs)`, async () => {
      for (let i = 0; i < RUNS; i++) {
        const r = await runChild(process.execPath, [CHILD], {
          env: { WTP_WASM: programPath("reactor_grow"), WTP_IMPL: implementation },
          boundMs: 240_000,
        });
        assert.equal(r.stdout, "run -> 0\n", `run ${i + 1}: exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        assert.equal(r.code, 0, `run ${i + 1}: stderr:\n${r.stderr}`);
      }
    });
  });
}
