// A long-running embedder (docs/runner.md, "Running many programs in one
// process"): one Node process calls runWasiThreadsProgram again and again, as
// a server would, in a child process of its own
// (test/support/embedder-child.js).
//   - A finished run's memory goes back to the OS when the run ends, not when
//     V8 collects it: the program writes 48 MiB of its memory, and the
//     process's resident set after each run is within a few MiB of what it
//     was before (without the release every run left its 48 MiB resident
//     until a collection: hundreds of MiB, gigabytes over long sequences).
//   - Ports, threads and descriptors come back to what they were after the
//     first run: the program leaves a thread running on a worker that
//     another worker of the program spawned, and Node kept one MessagePort
//     for good per such worker ended with its parent.
//   - 8 runs at a time, many rounds: every run's stdout is its own stdin
//     and its own threads' lines, nothing of another run's.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import v8 from "node:v8";
import { runChild } from "./support/cli-child.js";
import { IMPLEMENTATIONS } from "./support/impls.js";

const CHILD = fileURLToPath(new URL("./support/embedder-child.js", import.meta.url));
// Only against a hang: a child's runs took 4-40 s on the 2-CPU machine,
// and 3 times that at load average 35.
const BOUND_MS = 300_000;
const MIB = 2 ** 20;
// The child counts MessagePorts with v8.queryObjects (Node 20.13 and later).
const noPortCount = typeof v8.queryObjects !== "function" && "v8.queryObjects is missing (Node 20.13 or later has it)";

async function embedder(kind, runs, implementation = "") {
  const env = { ...process.env, WTP_EMBEDDER: kind, WTP_RUNS: String(runs), WTP_IMPL: implementation };
  const r = await runChild(process.execPath, ["--no-warnings", CHILD], { env, timeoutMs: BOUND_MS });
  assert.equal(r.code, 0, r.stderr);
  const line = r.stdout.split("\n").find((text) => text.startsWith("RESULT "));
  assert.ok(line, r.stdout + r.stderr);
  return JSON.parse(line.slice("RESULT ".length));
}

describe("a long-running embedder", () => {
  test("a finished run's memory is no longer resident: the resident set after each of 12 runs is within 16 MiB of before it", async () => {
    const { samples } = await embedder("memory", 12);
    const grown = samples.map(({ before, after }) => Math.round((after - before) / MIB));
    // Each run writes 48 MiB: kept, it would show as about 48 here.
    assert.ok(
      grown.every((mib) => mib < 16),
      `MiB gained per run: ${grown.join(" ")}`,
    );
    const first = samples[0].before;
    const peak = Math.max(...samples.map((s) => s.after));
    assert.ok(peak - first < 64 * MIB, `resident set ${Math.round(first / MIB)} -> peak ${Math.round(peak / MIB)} MiB`);
  });

  for (const implementation of IMPLEMENTATIONS) {
    const title = `ports, resources, threads and descriptors after 12 runs are those after the first (${implementation} pool)`;
    test(title, { skip: noPortCount }, async () => {
      const { first, last } = await embedder("ports", 12, implementation);
      assert.deepEqual(last, first);
    });
  }

  test("8 runs at a time, 20 rounds: each run's output is its own", async () => {
    const { outputs } = await embedder("concurrent", 20);
    const WRITER = /t\d+-\d\d\n|t\d+ end/g;
    outputs.forEach((round, r) => {
      round.forEach((output, lane) => {
        const records = output.match(WRITER) ?? [];
        // Two writers: 100 lines and an end each, from two tids.
        assert.equal(records.length, 202, `round ${r} lane ${lane}: ${records.length} writer records`);
        const tids = new Set(records.map((record) => record.match(/^t(\d+)/)[1]));
        assert.equal(tids.size, 2, `round ${r} lane ${lane}: writers ${[...tids]}`);
        const expected = Array.from({ length: 40 }, (_, k) => `R${r}.L${lane}:${k}|${"x".repeat(k % 23)}\n`).join("");
        assert.equal(output.replace(WRITER, ""), expected, `round ${r} lane ${lane}`);
      });
    });
  });
});
