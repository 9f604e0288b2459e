// Answers as wasmtime gives them (issue 27), seen by a program through
// wasi-libc: test/wasi-programs/rights.c, run in child processes on both
// pools and over both path resolvers (openat2, and the component walk that
// WTP_WASI_PATH_WALK=1 forces). Rights (narrowing, refusing, a directory's
// missing seek rights, O_DIRECTORY with write access, truncation rights),
// ftruncate on a read-only fd, symlink() to an absolute target, pwrite() on
// an O_APPEND fd, isatty() on /dev/null, and a program's fcntl(1, F_SETFL, 0)
// that must leave the host's description of stdout as it was.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, closeSync, lstatSync, openSync, readFileSync, readlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { CHILD, buildWasiPrograms, cWasiSkip, describeRun, programPath, runProgram, tempDir } from "./support/wasi-programs.js";

const skip = cWasiSkip() || buildWasiPrograms();

// Windows has one resolver (its own walk): the case runs once there.
const RESOLVERS = process.platform === "win32" ? { walk: {} } : { openat2: {}, walk: { WTP_WASI_PATH_WALK: "1" } };

// Wine 8 makes no symbolic link (the WASI's path_symlink answers ENOTSUP
// there; scripts/wine-win64.sh sets WTP_UNDER_WINE=1): that check's FAIL
// line is allowed under Wine, and nowhere else.
const UNDER_WINE = process.env.WTP_UNDER_WINE === "1";
const WINE_CANNOT = UNDER_WINE ? ["symlink-relative-made"] : [];

// No FAIL line but those; the program exits 1 if it printed any.
function assertPassed(r) {
  assert.equal(r.code, 0, describeRun(r));
  const fails = (r.stdout + r.stderr).split("\n").filter((l) => l.startsWith("FAIL "));
  assert.deepEqual(
    fails.filter((l) => !WINE_CANNOT.some((name) => l.startsWith(`FAIL ${name}:`))),
    [],
    describeRun(r),
  );
  assert.equal(r.result?.exitCode, fails.length ? 1 : 0, describeRun(r));
}

// Runs rights.c's case with the given stdio for the child (spawn's stdio:
// "ignore" is /dev/null, a number a descriptor of ours); stderr is piped.
function runWithStdio(implementation, name, stdio, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: {
        ...process.env,
        ...env,
        WTP_WASM: programPath("rights"),
        WTP_IMPL: implementation,
        WTP_ARGS: JSON.stringify(["rights", name]),
      },
      stdio: [stdio[0], stdio[1], "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`rights ${name} did not end\n${stderr}`));
    }, 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stderr.split("\n").find((l) => l.startsWith("RESULT "));
      resolve({ code, signal, stdout, stderr, result: line ? JSON.parse(line.slice(7)) : null });
    });
  });
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`wasmtime's answers, ${implementation} pool`, { skip }, () => {
    for (const [resolver, env] of Object.entries(RESOLVERS)) {
      test(`rights, ftruncate, O_DIRECTORY and symlinks (${resolver})`, async () => {
        const data = tempDir("wtp-wasi-rights-");
        try {
          const r = await runProgram("rights", implementation, { args: ["rights"], preopens: { "/data": data.dir }, env });
          assertPassed(r);
          assert.match(r.stdout, /^ok truncate-open-without-right$/m, describeRun(r));
          assert.throws(() => lstatSync(join(data.dir, "abs-link")), { code: "ENOENT" });
          if (!UNDER_WINE) assert.equal(readlinkSync(join(data.dir, "rel-link")), "sub/in.txt");
        } finally {
          data.remove();
        }
      });
    }

    test("pwrite on an O_APPEND fd writes at its offset", async () => {
      const data = tempDir("wtp-wasi-rights-");
      try {
        const r = await runProgram("rights", implementation, { args: ["append"], preopens: { "/data": data.dir } });
        assertPassed(r);
        assert.equal(readFileSync(join(data.dir, "append.txt"), "utf8"), "XYc!");
      } finally {
        data.remove();
      }
    });

    test("stdin from /dev/null is no terminal", async () => {
      const r = await runWithStdio(implementation, "isatty", ["ignore", "pipe"]);
      assertPassed(r);
      assert.match(r.stdout, /^isatty 0 0 0$/m, describeRun(r));
    });

    test("fcntl(1, F_SETFL, 0) leaves the host's O_APPEND on a shared stdout", async () => {
      const data = tempDir("wtp-wasi-rights-");
      const log = join(data.dir, "log");
      const fd = openSync(log, "a");
      try {
        const r = await runWithStdio(implementation, "stdout-flags", ["ignore", fd]);
        assertPassed(r);
        // Another writer appends, then the shell appends through the
        // description it shares with the program: nothing is overwritten.
        appendFileSync(log, "other\n");
        writeSync(fd, "shell\n");
        assert.equal(readFileSync(log, "utf8"), "prog\nother\nshell\n");
      } finally {
        closeSync(fd);
        data.remove();
      }
    });
  });
}
