// Spawning as a process expects (docs/runner.md, "Threads and workers"): in a
// program run by the runner, pthread_create fails with EAGAIN only when the
// program already has its limit of threads alive (maxThreads, --max-threads),
// never because a worker is starting or finishing. The guest is C with
// pthreads (guest/spawn/spawn.c, built by scripts/build-c-guests.sh with
// clang-19 and ../shared/wasi-threads-sysroot); it counts its own threads.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runWasiThreadsProgram } from "../lib/index.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { CLI, runCli } from "./support/cli-child.js";
import { collector } from "./support/collector.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const WASM = fileURLToPath(new URL("../guest/out/spawn.wasm", import.meta.url));
const CLANG19 = "/usr/lib/llvm-19/bin/clang";
const SYSROOT = fileURLToPath(new URL("../../shared/wasi-threads-sysroot", import.meta.url));
// A hang (a spawn that waits for ever) is what the bound catches.
const BOUND_MS = 120_000;

const skip =
  existsSync(WASM) || (existsSync(CLANG19) && existsSync(SYSROOT))
    ? false
    : `no clang-19 (${CLANG19}) or no ../shared/wasi-threads-sysroot to build guest/out/spawn.wasm`;

function cli(args) {
  return runCli(args, { timeoutMs: BOUND_MS });
}

describe("spawning in a program run by the runner", { skip }, () => {
  before(() => {
    if (!existsSync(WASM)) execFileSync("sh", ["scripts/build-c-guests.sh"], { cwd: ROOT, stdio: "inherit" });
  });

  for (const implementation of IMPLEMENTATIONS) {
    test(`a burst of 2,000 short threads on 4 workers: every thread runs (${implementation} pool)`, async () => {
      const r = await cli(["run", "--pool", "4", "--implementation", implementation, WASM, "burst", "2000"]);
      assert.equal(r.stdout, "burst: ran 2000 of 2000, EAGAIN 0, other 0\n", r.stderr);
      assert.equal(r.code, 0, r.stderr);
    });

    test(`--max-threads 3: a fourth thread alive is EAGAIN, and a create after a join succeeds (${implementation} pool)`, async () => {
      const r = await cli(["run", "--max-threads", "3", "--implementation", implementation, WASM, "limit", "3"]);
      assert.equal(
        r.stdout,
        "limit: 3 threads alive\nlimit: create 4: Resource temporarily unavailable\n" +
          "limit: after a join, create: ok\nlimit: done\n",
        r.stderr,
      );
      assert.equal(r.code, 0, r.stderr);
    });

    test(`16 threads that stay alive until all 16 have started: every one starts (${implementation} pool)`, async () => {
      // The first threads get workers at once; the rest are queued, and the
      // queue, stalled behind threads that do not end, gets workers of its own.
      const r = await cli(["run", "--implementation", implementation, WASM, "alive", "16"]);
      assert.equal(r.stdout, "alive: 16\n", r.stderr);
      assert.equal(r.code, 0, r.stderr);
    });

    test(`64 threads created back to back, each staying alive: every one starts (${implementation} pool)`, async () => {
      // Past the first few, they are queued; each worker that comes up starts
      // the next ones' (lib/program/threads.js, feedQueue), as the queue's
      // watcher does for a stalled queue.
      const r = await cli(["run", "--implementation", implementation, WASM, "together", "64"]);
      assert.equal(r.stdout.match(/^together: thread \d+ started [\d.]+ ms after pthread_create$/gm)?.length, 64, r.stdout);
      assert.equal(r.code, 0, r.stderr);
      // Under runWasiThreadsProgram, the supervisor starts the workers
      // (lib/program/starts.js).
      const stdout = collector();
      const bytes = await import("node:fs").then((fs) => fs.readFileSync(WASM));
      const run = await runWasiThreadsProgram(bytes, { args: ["spawn", "together", "64"], implementation, stdout, stdin: null });
      assert.equal(run.exitCode, 0, stdout.text());
      assert.equal(stdout.text().match(/^together: thread \d+ started/gm)?.length, 64, stdout.text());
    });

    test(`--pool 1: a burst of 500 short threads all run on one worker, one after another (${implementation} pool)`, async () => {
      const r = await cli(["run", "--pool", "1", "--implementation", implementation, WASM, "burst", "500"]);
      assert.equal(r.stdout, "burst: ran 500 of 500, EAGAIN 0, other 0\n", r.stderr);
      assert.equal(r.code, 0, r.stderr);
    });

    test(`--pool 1 and 2 threads that wait for each other: the runner says why the program waits (${implementation} pool)`, async () => {
      // alive 2 needs both threads running at once: one worker runs the
      // first, the second waits in the queue for ever. The program is killed
      // once the runner has said so on stderr.
      const child = spawn(process.execPath, [CLI, "run", "--pool", "1", "--implementation", implementation, WASM, "alive", "2"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      const said = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), BOUND_MS);
        child.stderr.setEncoding("utf8").on("data", (chunk) => {
          stderr += chunk;
          if (stderr.includes("\n")) {
            clearTimeout(timer);
            resolve(true);
          }
        });
      });
      child.kill("SIGKILL");
      assert.ok(said, "nothing on stderr");
      assert.match(stderr, /^wasi-thread-pool: 1 thread\(s\) wait for a worker, and all 1 workers \(poolSize, --pool\)/);
    });

    test(`maxThreads: the limit holds with as many workers as threads, and with more (${implementation} pool)`, async () => {
      const bytes = await import("node:fs").then((fs) => fs.readFileSync(WASM));
      for (const poolSize of [2, 16]) {
        const stdout = collector();
        const { exitCode } = await runWasiThreadsProgram(bytes, {
          args: ["spawn", "limit", "2"],
          maxThreads: 2,
          poolSize,
          implementation,
          stdout,
          stdin: null,
        });
        assert.equal(exitCode, 0, `poolSize ${poolSize}: ${stdout.text()}`);
        assert.match(stdout.text(), /create 3: Resource temporarily unavailable\n/);
      }
    });
  }

  test("maxThreads is checked and names itself", async () => {
    for (const maxThreads of [-1, 1.5, "4", Number.NaN]) {
      await assert.rejects(runWasiThreadsProgram(new Uint8Array(8), { maxThreads }), (error) => {
        assert.ok(error instanceof RangeError, `${maxThreads}: ${error}`);
        assert.match(error.message, /maxThreads/);
        return true;
      });
    }
  });

  test("--max-threads is in --help and is an integer from 0 to 268435454", async () => {
    const help = await cli(["--help"]);
    assert.match(help.stdout, /--max-threads <N>/);
    const bad = await cli(["run", "--max-threads", "x", WASM]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--max-threads must be an integer from 0 to 268435454 \(got "x"\)/);
  });
});
