// One fd table per program (issue 18): an fd opened on one thread is the same
// file on every thread, with one offset and one set of flags; close and
// renumber act for every thread; stdio belongs to the program (dup2 and
// freopen onto stdout; close(1) leaves the host's fd 1 open; a host's socket
// as stdio is no socket to the program, and stays as it was). The programs
// are test/wasi-programs/fds.c, run in child processes on both pools; each
// test also reads the files on the host.

import assert from "node:assert/strict";
import { fstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { buildWasiPrograms, cWasiSkip, describeRun, runProgram, tempDir } from "./support/wasi-programs.js";

const skip = cWasiSkip() || buildWasiPrograms();

async function runCase(implementation, name, options = {}) {
  const data = tempDir("wtp-wasi-fds-");
  try {
    const r = await runProgram("fds", implementation, { args: [name], preopens: { "/data": data.dir }, ...options });
    const files = Object.fromEntries(readdirSync(data.dir).map((f) => [f, readFileSync(join(data.dir, f), "utf8")]));
    return { ...r, files };
  } finally {
    data.remove();
  }
}

function assertPassed(r, exitCode = 0) {
  assert.equal(r.code, 0, describeRun(r));
  assert.equal(r.result?.exitCode, exitCode, describeRun(r));
  assert.doesNotMatch(r.stdout + r.stderr, /^FAIL /m, describeRun(r));
}

// fds.c's stdio-not-sockets in a child whose stdio a parent's spawn with
// stdio "pipe" made (socketpairs on POSIX): the test writes to stdin once
// the program has tried shutdown, send and recv on every stdio fd, and
// reads everything the program and then the child write to stdout.
async function assertStdioNotSockets(implementation, env = {}) {
  let socketStdio = null;
  let wrote = false;
  const r = await runProgram("fds", implementation, {
    args: ["stdio-not-sockets"],
    env,
    keepOpen: true,
    after: "runner after\n",
    onStdout: (text, child) => {
      socketStdio ??=
        process.platform === "win32" || [child.stdin, child.stdout].every((s) => fstatSync(s._handle.fd).isSocket());
      if (!wrote && text.includes("tried\n")) {
        wrote = true;
        child.stdin.end("later\n");
      }
    },
  });
  assert.equal(socketStdio, true, "the child's stdio must be sockets for this test to mean anything");
  assertPassed(r);
  assert.match(
    r.stdout,
    /^ok stdio-type-not-socket\nok shutdown-enotsock\nok send-enotsock\nok recv-enotsock\ntried\n/m,
    describeRun(r),
  );
  // Everything after the shutdown attempts reached the parent, both ways.
  assert.ok(r.stdout.endsWith("tried\nok stdin-after\nread: later\ndone\nrunner after\n"), describeRun(r));
  assert.equal(r.result.after, "written", describeRun(r));
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`fds shared by every thread, ${implementation} pool`, { skip }, () => {
    test("opened on one thread, written on another, closed on a third: the write lands in that file", async () => {
      const r = await runCase(implementation, "share");
      assertPassed(r);
      assert.equal(r.files["a.txt"], "written by another thread\n");
      assert.equal(r.files["decoy.txt"], "", "the write landed in a file the writing thread had opened");
    });

    test("one offset and one set of flags for every thread", async () => {
      const r = await runCase(implementation, "offsets");
      assertPassed(r);
      assert.equal(r.files["o.txt"], "AAAABBBBZ");
    });

    test("fd_renumber on one thread moves the file for every thread", async () => {
      const r = await runCase(implementation, "renumber");
      assertPassed(r);
      assert.equal(r.files["x.txt"], "to x through y\n");
      assert.equal(r.files["y.txt"], "");
    });

    test("a file renumbered onto fd 1 (dup2) takes every thread's later stdout", async () => {
      const r = await runCase(implementation, "dup2-stdout", { after: "runner after\n" });
      assertPassed(r);
      assert.equal(r.files["out.txt"], "from a thread\nfrom main\n");
      assert.equal(r.stdout, "before\nrunner after\n", "the host's fd 1 must stay open and untouched");
    });

    test("freopen of stdout: printf from every thread goes to the file", async () => {
      const r = await runCase(implementation, "freopen-stdout", { after: "runner after\n" });
      assertPassed(r);
      assert.equal(r.files["out.txt"], "printf from a thread\nprintf from main\n");
      assert.equal(r.stdout, "before\nrunner after\n");
    });

    test("stdio is no socket to the program: shutdown fails with ENOTSOCK and the parent's sockets keep working", async () => {
      await assertStdioNotSockets(implementation);
    });

    test("close(1) in the program leaves the host's fd 1 open", async () => {
      const r = await runCase(implementation, "close-stdout", { after: "runner after\n" });
      assertPassed(r);
      assert.equal(r.result.after, "written", describeRun(r));
      assert.equal(r.stdout, "before\nrunner after\n");
    });
  });
}

// node:wasi per thread, the runner's fallback (Linux and macOS: Windows has
// the C WASI or no runner WASI test): its stdio is no socket either, and
// uvwasi's sock_shutdown on a host's socket never runs (it crashed the
// process).
describe("the node:wasi fallback", { skip: skip || (process.platform === "win32" && "the fallback is tested on POSIX") }, () => {
  test("stdio is no socket to the program: shutdown fails with ENOTSOCK and the parent's sockets keep working", async () => {
    await assertStdioNotSockets("native", { WASI_THREAD_POOL_NODE_WASI: "1" });
  });
});

describe("the CLI", { skip }, () => {
  test("stdio is no socket to the program under wasi-thread-pool run: shutdown(1) fails with ENOTSOCK, stdout goes on", async () => {
    const { runChild, CLI, programPath } = await import("./support/wasi-programs.js");
    let wrote = false;
    const r = await runChild(process.execPath, [CLI, "run", programPath("fds"), "stdio-not-sockets"], {
      keepOpen: true,
      onStdout: (text, child) => {
        if (!wrote && text.includes("tried\n")) {
          wrote = true;
          child.stdin.end("later\n");
        }
      },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(
      r.stdout,
      "ok stdio-type-not-socket\nok shutdown-enotsock\nok send-enotsock\nok recv-enotsock\ntried\nok stdin-after\nread: later\ndone\n",
    );
  });

  test("a program's fd is one file for every thread (wasi-thread-pool run)", async () => {
    const { runChild, CLI, programPath } = await import("./support/wasi-programs.js");
    const data = tempDir("wtp-wasi-fds-cli-");
    try {
      const r = await runChild(process.execPath, [CLI, "run", "--dir", `${data.dir}::/data`, programPath("fds"), "share"]);
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(readFileSync(join(data.dir, "a.txt"), "utf8"), "written by another thread\n");
      assert.equal(readFileSync(join(data.dir, "decoy.txt"), "utf8"), "");
    } finally {
      data.remove();
    }
  });
});
