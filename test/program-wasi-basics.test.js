// Single-threaded WASI behaviour (issue 18), with test/wasi-programs/basics.c:
//   - differential runs: where node:wasi is right (args, env, clocks, a file
//     round trip, readdir, fd_seek/fd_tell, filestat), the program's output
//     is the same under the program's C WASI and under node:wasi per thread
//     (the runner's fallback, forced with WASI_THREAD_POOL_NODE_WASI=1);
//   - the ground of the official wasi-testsuite's preview1 cases, covered by
//     checks of our own against WASI's and POSIX's semantics: errno of bad
//     calls, directory fds, links and symlinks (trailing slashes, dangling),
//     renames, times and fstflags, stdio, preopens and renumbering onto one,
//     an unlinked open file, fd_allocate, paths of unusual shape;
//   - hostile pointers (a WAT guest): EFAULT, nothing done, the program goes on.
// Both pools; in child processes.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { watToBytes } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { buildWasiPrograms, cWasiSkip, describeRun, runProgram, tempDir } from "./support/wasi-programs.js";

const skip = cWasiSkip() || buildWasiPrograms();
const FALLBACK_ENV = "WASI_THREAD_POOL_NODE_WASI";

const DIFFERENTIAL = ["env", "clocks", "file", "readdir", "seek", "filestat"];
const SUITE = ["errors", "fdstat", "dirfd", "links", "renames", "times", "stdio", "dangling", "allocate", "more", "preopen"];
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

// What Wine 8 cannot express (scripts/wine-win64.sh sets WTP_UNDER_WINE=1):
// it makes no symbolic link (the WASI's path_symlink answers ENOTSUP there)
// and reads none (a Unix link is no reparse point), and it has no POSIX
// delete: a removed directory stays, and can be created in, until its last
// handle closes (create-in-removed-dir). So these checks' FAIL lines are
// allowed under Wine, and nowhere else.
const UNDER_WINE = process.env.WTP_UNDER_WINE === "1";
const WINE_CANNOT = UNDER_WINE
  ? [
      "readdir",
      "symlink",
      "unlink-symlink",
      "readlink",
      "readlink-short-buffer",
      "creat-excl-through-dangling-symlink",
      "create-in-removed-dir",
    ]
  : [];
// node:wasi is the reference of the differential runs except on Windows,
// where it is wrong itself (uvwasi, measured under Wine): its fd_readdir
// lists no entry and its fd_seek before the start answers ENOSYS. There the
// C WASI's output is checked on its own.
const NODE_WASI_IS_REFERENCE = process.platform !== "win32";

const wineCannot = (line) => WINE_CANNOT.some((name) => line.startsWith(`FAIL ${name}:`));

// No FAIL line but those; the program exits 1 if it printed any.
function assertClean(r) {
  assert.equal(r.code, 0, describeRun(r));
  const fails = r.stdout.split("\n").filter((l) => l.startsWith("FAIL "));
  assert.deepEqual(
    fails.filter((l) => !wineCannot(l)),
    [],
    describeRun(r),
  );
  assert.equal(r.result?.exitCode, fails.length ? 1 : 0, describeRun(r));
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`single-threaded WASI, ${implementation} pool`, { skip }, () => {
    test("differential: the C WASI and node:wasi print the same (env, clocks, file, readdir, seek, filestat)", async () => {
      const [own, node] = await Promise.all([
        runBasics(implementation, DIFFERENTIAL),
        NODE_WASI_IS_REFERENCE ? runBasics(implementation, DIFFERENTIAL, { fallback: true }) : null,
      ]);
      assertClean(own);
      if (node) {
        assertClean(node);
        assert.equal(own.stdout, node.stdout);
      }
      assert.match(own.stdout, /^envc 3$/m);
      assert.match(own.stdout, /^env \[WTP_T_B=two words = and an equals sign\]$/m);
      const link = UNDER_WINE ? "" : " link\\(link\\)";
      assert.match(own.stdout, new RegExp(`^entries a\\(file\\) b\\(file\\) c\\(file\\)${link} sub\\(dir\\)$`, "m"));
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

// Hostile pointers through the runner, with a precise call sequence (WAT):
// a guest range that leaves memory is EFAULT and nothing happens; the
// program goes on. proc_exit(k) names the first check k that failed (0: all
// held); the writes that must not happen would show on stdout.
const HOSTILE = `(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (data (i32.const 256) "visible\\n")
  (func $expect (param $got i32) (param $want i32) (param $k i32)
    (if (i32.ne (local.get $got) (local.get $want)) (then (call $exit (local.get $k)))))
  (func (export "_start")
    ;; 1: the iovec array runs off the end of memory
    (call $expect (call $fd_write (i32.const 1) (i32.const 65532) (i32.const 1) (i32.const 0)) (i32.const 21) (i32.const 1))
    ;; 2: an iovec's buffer runs off the end (the first iovec is fine: nothing is written)
    (i32.store (i32.const 64) (i32.const 256)) (i32.store (i32.const 68) (i32.const 8))
    (i32.store (i32.const 72) (i32.const 65000)) (i32.store (i32.const 76) (i32.const 1000))
    (call $expect (call $fd_write (i32.const 1) (i32.const 64) (i32.const 2) (i32.const 0)) (i32.const 21) (i32.const 2))
    ;; 3: a huge iovec count
    (call $expect (call $fd_write (i32.const 1) (i32.const 64) (i32.const 0x7fffffff) (i32.const 0)) (i32.const 21) (i32.const 3))
    ;; 4: the result word off the end
    (call $expect (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 65534)) (i32.const 21) (i32.const 4))
    ;; 5: a path that runs off the end
    (call $expect (call $path_open (i32.const 3) (i32.const 0) (i32.const 65530) (i32.const 100) (i32.const 0)
      (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 0)) (i32.const 21) (i32.const 5))
    ;; 6: clock_time_get's result off the end
    (call $expect (call $clock (i32.const 1) (i64.const 1) (i32.const 65532)) (i32.const 21) (i32.const 6))
    ;; 7: args_get's pointers off the end
    (call $expect (call $args_get (i32.const 65534) (i32.const 65534)) (i32.const 21) (i32.const 7))
    ;; 8: fd_read into a buffer off the end (stdin holds input: nothing may be consumed)
    (i32.store (i32.const 80) (i32.const 65530)) (i32.store (i32.const 84) (i32.const 100))
    (call $expect (call $fd_read (i32.const 0) (i32.const 80) (i32.const 1) (i32.const 88)) (i32.const 21) (i32.const 8))
    ;; 9: poll_oneoff with no subscriptions
    (call $expect (call $poll (i32.const 1024) (i32.const 2048) (i32.const 0) (i32.const 96)) (i32.const 28) (i32.const 9))
    ;; 10: after all that, a good write works
    (call $expect (call $fd_write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 100)) (i32.const 0) (i32.const 10))
    (call $exit (i32.const 0))))`;

describe("hostile pointers through the runner (a WAT guest)", { skip }, () => {
  for (const implementation of IMPLEMENTATIONS) {
    test(`EFAULT and nothing done for ranges off the end of memory; then a good call works (${implementation})`, async () => {
      const dir = tempDir("wtp-wasi-hostile-");
      try {
        const file = join(dir.dir, "hostile.wasm");
        writeFileSync(file, await watToBytes(HOSTILE, "hostile.wat"));
        const r = await runProgram(file, implementation, {
          preopens: { "/data": dir.dir },
          input: "input\n",
          env: { WTP_REST_OF_STDIN: "1" },
        });
        assert.equal(r.code, 0, describeRun(r));
        assert.equal(r.result?.exitCode, 0, `check ${r.result?.exitCode} failed\n${describeRun(r)}`);
        assert.equal(r.stdout, "visible\nrest: input\n", describeRun(r));
      } finally {
        dir.remove();
      }
    });
  }
});
