// Run from a checkout's own copy (node <checkout>/test/support/worker-entry-child.js):
// which file each pool worker of that checkout starts (lib/worker/entries.js),
// and that the SDK host's workers and the runner's workers serve threads from
// it. Prints one JSON line: {host, program} (paths from the checkout's root),
// {hostThreads, hostSum} of a guest whose 2 coordinator threads each spawn 3
// threads from their workers, and {cliCode, cliEnds, cliStderr} of the CLI
// running a program whose 3 threads each write 100 lines.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { workerEntryUrl } from "../../lib/worker/entries.js";
import { KIND, W, arg, startGuest } from "./guest-host.js";
import { buildProgram } from "./program-guests.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const from = (url) => relative(root, fileURLToPath(url));

const { host, main, words } = await startGuest({});
const joined = main.spawn_join(2, arg(KIND.COORDINATOR, 3));
const result = {
  host: from(workerEntryUrl("host")),
  program: from(workerEntryUrl("program")),
  hostJoined: joined,
  hostThreads: Atomics.load(words, W.DONE),
  hostSum: Atomics.load(words, W.SUM),
};
await host.terminateAll();

const dir = mkdtempSync(join(tmpdir(), "wtp-worker-entry-"));
try {
  const wasm = join(dir, "output.wasm");
  writeFileSync(wasm, await buildProgram("output"));
  const cli = spawnSync(process.execPath, [join(root, "bin", "wasi-thread-pool.js"), "run", wasm], {
    encoding: "utf8",
    timeout: 60_000,
  });
  result.cliCode = cli.status;
  result.cliEnds = (cli.stdout.match(/ end/g) ?? []).length;
  result.cliStderr = cli.stderr;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
