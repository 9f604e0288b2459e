// Single-threaded WASI behaviour (issue 18), with test/wasi-programs/basics.c:
//   - differential runs: where node:wasi is right (args, env, clocks, a file
//     round trip, readdir, fd_seek/fd_tell, filestat), the program's output
//     is the same under the program's C WASI and under node:wasi per thread
//     (the runner's fallback, forced with WASI_THREAD_POOL_NODE_WASI=1);
//   - the ground of the official wasi-testsuite's preview1 cases, covered by
//     checks of our own against WASI's and POSIX's semantics: errno of bad
//     calls, directory fds, links and symlinks (trailing slashes, dangling),
//     renames, times and fstflags, stdio, preopens and renumbering onto one,
//     an unlinked open file, fd_allocate.
// Both pools; in child processes.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { buildWasiPrograms, describeRun, runProgram, tempDir } from "./support/wasi-programs.js";

const skip = buildWasiPrograms();
const FALLBACK_ENV = "WASI_THREAD_POOL_NODE_WASI";

const DIFFERENTIAL = ["env", "clocks", "file", "readdir", "seek", "filestat"];
const SUITE = ["errors", "fdstat", "dirfd", "links", "renames", "times", "stdio", "dangling", "allocate", "preopen"];
const PROGRAM_ENV = { WTP_T_A: "alpha", WTP_T_B: "two words = and an equals sign", WTP_T_EMPTY: "" };
const ARGS = ["args", "plain", "with space", "ünïcödé", "", "--flag=value"];

async function runBasics(implementation, cases, { fallback = false } = {}) {
  const data = tempDir("wtp-wasi-basics-");
  try {
    return await runProgram("basics", implementation, {
      args: cases,
      preopens: { "/data": data.dir },
      programEnv: PROGRAM_ENV,
      env: { [FALLBACK_ENV]: fallback ? "1" : "" },
    });
  } finally {
    data.remove();
  }
}

function assertClean(r) {
  assert.equal(r.code, 0, describeRun(r));
  assert.doesNotMatch(r.stdout, /^FAIL /m, describeRun(r));
  assert.equal(r.result?.exitCode, 0, describeRun(r));
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`single-threaded WASI, ${implementation} pool`, { skip }, () => {
    test("differential: the C WASI and node:wasi print the same (env, clocks, file, readdir, seek, filestat)", async () => {
      const [own, node] = await Promise.all([
        runBasics(implementation, DIFFERENTIAL),
        runBasics(implementation, DIFFERENTIAL, { fallback: true }),
      ]);
      assertClean(own);
      assertClean(node);
      assert.equal(own.stdout, node.stdout);
      assert.match(own.stdout, /^envc 3$/m);
      assert.match(own.stdout, /^env \[WTP_T_B=two words = and an equals sign\]$/m);
      assert.match(own.stdout, /^entries a\(file\) b\(file\) c\(file\) link\(link\) sub\(dir\)$/m);
      assert.match(own.stdout, /^seek-end 0 7$/m);
      assert.match(own.stdout, /^file 0 type 4 size 12 nlink 1$/m);
    });

    test("differential: args, as given, under both", async () => {
      const [own, node] = await Promise.all([
        runBasics(implementation, ARGS),
        runBasics(implementation, ARGS, { fallback: true }),
      ]);
      assertClean(own);
      assert.equal(own.stdout, node.stdout);
      assert.equal(
        own.stdout,
        "argc 7\narg 1 [args]\narg 2 [plain]\narg 3 [with space]\narg 4 [ünïcödé]\narg 5 []\narg 6 [--flag=value]\ndone\n",
      );
    });

    test("the wasi-testsuite's ground: errno of bad calls, directory fds, links, renames, times, stdio, preopens", async () => {
      const r = await runBasics(implementation, SUITE);
      assertClean(r);
      assert.equal((r.stdout.match(/^ok /gm) ?? []).length >= 50, true, describeRun(r));
    });
  });
}
