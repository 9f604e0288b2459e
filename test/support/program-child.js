// A child process for test/program.test.js: runs one of the programs of
// test/support/program-guests.js with runWasiThreadsProgram, on the pool
// implementation WTP_IMPL, with this process's stdin, stdout and stderr, and
// writes `RESULT <json>` on a line of its own to stderr. It then ends by
// itself: nothing the runner leaves behind may keep it alive.

import { buildProgram } from "./program-guests.js";
import { runWasiThreadsProgram } from "../../lib/index.js";

const bytes = await buildProgram(process.env.WTP_SCENARIO);
const started = performance.now();
const preopens = process.env.WTP_PREOPENS ? JSON.parse(process.env.WTP_PREOPENS) : undefined;
const { exitCode } = await runWasiThreadsProgram(bytes, { implementation: process.env.WTP_IMPL, poolSize: 8, preopens });
const ms = performance.now() - started;
process.stderr.write(`\nRESULT ${JSON.stringify({ exitCode, ms })}\n`);
