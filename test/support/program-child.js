// A child process for test/program.test.js: runs one of the programs of
// test/support/program-guests.js with runWasiThreadsProgram, on the pool
// implementation WTP_IMPL, with this process's stdin, stdout and stderr, and
// writes `RESULT <json>` on a line of its own to stderr. It then ends by
// itself: nothing the runner leaves behind may keep it alive.

import { writeSync } from "node:fs";
import { Writable } from "node:stream";
import { buildProgram } from "./program-guests.js";
import { runWasiThreadsProgram } from "../../lib/index.js";

const bytes = await buildProgram(process.env.WTP_SCENARIO);
const started = performance.now();
const preopens = process.env.WTP_PREOPENS ? JSON.parse(process.env.WTP_PREOPENS) : undefined;
// WTP_STREAMS=1: stdout and stderr are streams without a file descriptor
// (the output ring); what they got is copied to fds 1 and 2 afterwards.
const streams = process.env.WTP_STREAMS === "1";
const collected = { 1: [], 2: [] };
const collector = (fd) =>
  new Writable({
    write(chunk, _encoding, done) {
      collected[fd].push(chunk);
      done();
    },
  });
const { exitCode } = await runWasiThreadsProgram(bytes, {
  implementation: process.env.WTP_IMPL,
  poolSize: 8,
  preopens,
  ...(streams ? { stdout: collector(1), stderr: collector(2) } : {}),
});
if (streams) {
  writeSync(1, Buffer.concat(collected[1]));
  writeSync(2, Buffer.concat(collected[2]));
}
const ms = performance.now() - started;
process.stderr.write(`\nRESULT ${JSON.stringify({ exitCode, ms })}\n`);
