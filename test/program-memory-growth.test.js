// Memory that grows on one thread never traps another (issue 26): the
// runner reserves a threaded program's memory at its maximum and runs the
// program's memory.grow/memory.size on a shared page counter
// (lib/wasm/memory-pass.js, docs/runtime.md "Memory growth across threads").
//
// - growfill (test/wasi-programs/growfill.c): a thread fills pages the main
//   thread has just grown, straight out of a long memset; four threads
//   malloc and fill growing blocks. Without the remedy it traps on x64
//   (memory.fill checks the thread's stale size) and on linux-arm64 (every
//   access does).
// - pigz -p 4 on a file (dlmalloc on four threads).
// Three runs each, on both pools, output exact. scripts/qemu-arm64.sh runs
// this file on the arm64 Node too. Needs ../shared (the sysroot for
// growfill, pigz.wasm) and clang-19: skips saying so when absent.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { SHARED, buildWasiPrograms, cWasiSkip, describeRun, runProgram, tempDir } from "./support/wasi-programs.js";

const RUNS = 3;
const PIGZ = join(SHARED, "real-programs", "pigz.wasm");
const BOUND_MS = 240_000; // qemu on a loaded 2-core machine

const skipC = cWasiSkip() || buildWasiPrograms();
const pigzMissing =
  (!existsSync(PIGZ) && `no ${PIGZ} (../shared is absent)`) ||
  (spawnSync("gzip", ["--version"]).error && "the system's gzip is missing (scripts/setup-debian.sh)");
// In CI a missing ../shared or gzip fails the test instead of skipping it.
const skipPigz = cWasiSkip() || (process.env.CI === "true" ? false : pigzMissing);

const GROWFILL_OUT = "ok grow\ngrow: 24 rounds, 96 pages\nok malloc\nmalloc: 4 threads, 12 blocks each\ngrowfill: done\n";

// 1 MiB of text that compresses to many 128 KiB blocks' worth of work for
// four threads. Deterministic.
function input() {
  const parts = [];
  let x = 99991;
  let size = 0;
  while (size < 1 << 20) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const word = `grow${x % 1009} fill${(x >>> 12) % 97} `;
    parts.push(word);
    size += word.length;
  }
  return Buffer.from(parts.join(""));
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`memory growth across threads, ${implementation} pool`, () => {
    test(`growfill: pages grown by one thread, filled by another at once (${RUNS} runs)`, { skip: skipC }, async () => {
      for (let i = 0; i < RUNS; i++) {
        const r = await runProgram("growfill", implementation, { boundMs: BOUND_MS });
        assert.equal(r.stdout, GROWFILL_OUT, `run ${i + 1}: ${describeRun(r)}`);
        assert.equal(r.result?.exitCode, 0, `run ${i + 1}: ${describeRun(r)}`);
      }
    });

    test(`pigz -p 4 -k -f on a file; gzip -dc gives the input (${RUNS} runs)`, { skip: skipPigz }, async () => {
      if (pigzMissing) assert.fail(`CI: ${pigzMissing}`);
      const data = tempDir("wtp-growth-pigz-");
      try {
        const bytes = input();
        writeFileSync(join(data.dir, "in.bin"), bytes);
        for (let i = 0; i < RUNS; i++) {
          const r = await runProgram(PIGZ, implementation, {
            args: ["-p", "4", "-k", "-f", "/data/in.bin"],
            preopens: { "/data": data.dir },
            boundMs: BOUND_MS,
          });
          assert.equal(r.result?.exitCode, 0, `run ${i + 1}: ${describeRun(r)}`);
          const back = spawnSync("gzip", ["-dc", join(data.dir, "in.bin.gz")], { maxBuffer: 64 << 20 });
          assert.equal(back.status, 0, `run ${i + 1}: gzip -dc: ${back.stderr}`);
          assert.ok(back.stdout.equals(bytes), `run ${i + 1}: gzip -dc gives the input`);
          assert.ok(readFileSync(join(data.dir, "in.bin.gz")).length > 0);
        }
      } finally {
        data.remove();
      }
    });
  });
}
