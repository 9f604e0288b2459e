// The command line of bin/wasi-thread-pool.js in wasmtime's forms
// (lib/program/cli.js): the parser on its own, then the CLI end to end on
// both pool implementations with a program that prints its arguments, its
// environment and a file of a preopened directory (test/support/wasi-programs.js).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { HELP, UsageError, parseCommandLine } from "../lib/program/cli.js";
import { runWasiThreadsProgram } from "../lib/index.js";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { watToBytes } from "./fixtures/build.js";
import { showProgram } from "./support/wasi-programs.js";
import { runCli } from "./support/cli-child.js";

const BOUND_MS = 60_000;

function cli(args, { env = {}, cwd } = {}) {
  return runCli(args, { env, cwd, input: "", timeoutMs: BOUND_MS });
}

// show's output -> {args, env, file}
function parseShow(stdout) {
  const [argText, rest = ""] = stdout.split("#env\n");
  const [envText, file = null] = rest.split("#file\n");
  const lines = (text) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  return { args: lines(argText), env: lines(envText), file };
}

const usage = (argv, pattern) =>
  assert.throws(
    () => parseCommandLine(argv, {}),
    (error) => error instanceof UsageError && pattern.test(error.message),
    argv.join(" "),
  );

describe("parseCommandLine: wasmtime's forms", () => {
  test("run is optional; the module is the first argument that is not an option", () => {
    for (const argv of [["run", "app.wasm"], ["app.wasm"]]) {
      const opts = parseCommandLine(argv);
      assert.equal(opts.action, "run");
      assert.equal(opts.file, "app.wasm");
      assert.deepEqual(opts.args, []);
    }
  });

  test("every argument after the module is the program's, runner options and -- included", () => {
    const opts = parseCommandLine(["run", "--pool", "3", "app.wasm", "--help", "--pool", "4", "--", "-x", "--dir=."]);
    assert.equal(opts.poolSize, 3);
    assert.deepEqual(opts.args, ["--help", "--pool", "4", "--", "-x", "--dir=."]);
    assert.deepEqual(opts.preopens, {});
  });

  test("--max-threads N is maxThreads (0 allowed: no thread besides the main one)", () => {
    assert.equal(parseCommandLine(["run", "--max-threads", "3", "app.wasm"]).maxThreads, 3);
    assert.equal(parseCommandLine(["run", "--max-threads=0", "app.wasm"]).maxThreads, 0);
    assert.equal(parseCommandLine(["run", "app.wasm"]).maxThreads, undefined);
    assert.deepEqual(parseCommandLine(["run", "app.wasm", "--max-threads", "3"]).args, ["--max-threads", "3"]);
    assert.match(HELP, /--max-threads <N>/);
  });

  test("-- before the module ends the options", () => {
    const opts = parseCommandLine(["run", "--env", "A=1", "--", "--looks-like-an-option.wasm", "x"]);
    assert.equal(opts.file, "--looks-like-an-option.wasm");
    assert.deepEqual(opts.args, ["x"]);
    assert.deepEqual(opts.env, { A: "1" });
  });

  test("--dir HOST[::GUEST]: GUEST defaults to HOST as written; both spellings", () => {
    const opts = parseCommandLine(["--dir", "./data::/data", "--dir=.", "--dir", "/tmp/x", "app.wasm"]);
    assert.deepEqual(opts.preopens, { "/data": "./data", ".": ".", "/tmp/x": "/tmp/x" });
  });

  test("--dir refuses an empty side and a second ::", () => {
    usage(["--dir", "::/data", "app.wasm"], /--dir needs HOST_DIR\[::GUEST_DIR\]/);
    usage(["--dir", "./data::", "app.wasm"], /--dir needs HOST_DIR/);
    usage(["--dir", "a::b::c", "app.wasm"], /one "::"/);
  });

  test("--env NAME=VALUE sets; --env NAME inherits the host's value, or sets nothing when the host has none", () => {
    const host = { HOME: "/home/me", EMPTY: "" };
    const opts = parseCommandLine(
      ["--env", "A=1=2", "--env=B=", "--env", "HOME", "--env", "EMPTY", "--env", "ABSENT", "x.wasm"],
      host,
    );
    assert.deepEqual(opts.env, { A: "1=2", B: "", HOME: "/home/me", EMPTY: "" });
    assert.ok(!Object.hasOwn(opts.env, "ABSENT"));
    usage(["--env", "=x", "app.wasm"], /--env needs NAME\[=VAL\]/);
  });

  test("-S/-W/--wasi/--wasm threads in every spelling are accepted", () => {
    const forms = [
      ["-S", "threads"],
      ["-Sthreads"],
      ["-S=threads"],
      ["-S", "threads=y"],
      ["-Sthreads=yes"],
      ["-W", "threads"],
      ["-Wthreads=true"],
      ["--wasi", "threads"],
      ["--wasi=threads=y"],
      ["--wasm", "threads"],
      ["-S", "threads,threads=y"],
    ];
    for (const form of forms) assert.equal(parseCommandLine([...form, "app.wasm"]).file, "app.wasm", form.join(" "));
  });

  test("unknown -S/-W keys, bad booleans and threads=n are usage errors naming them", () => {
    usage(["-S", "http", "app.wasm"], /-S\/--wasi key "http" is not supported/);
    usage(["-S", "threads,inherit-env", "app.wasm"], /key "inherit-env"/);
    usage(["-W", "max-wasm-stack=1000", "app.wasm"], /-W\/--wasm key "max-wasm-stack"/);
    usage(["-Sthreads=maybe", "app.wasm"], /unknown boolean "maybe"/);
    usage(["-W", "threads=n", "app.wasm"], /threads are always on/);
  });

  test("-C cache turns the module cache on and off, in wasmtime's forms; other -C keys are usage errors", () => {
    assert.equal(parseCommandLine(["app.wasm"]).cache, true);
    assert.equal(parseCommandLine(["-C", "cache=n", "app.wasm"]).cache, false);
    assert.equal(parseCommandLine(["-Ccache=no", "app.wasm"]).cache, false);
    assert.equal(parseCommandLine(["--codegen=cache=false", "app.wasm"]).cache, false);
    assert.equal(parseCommandLine(["-C", "cache=n", "-C", "cache", "app.wasm"]).cache, true);
    assert.equal(parseCommandLine(["run", "-C", "cache=y", "app.wasm"]).cache, true);
    usage(["-C", "cache=sometimes", "app.wasm"], /-C\/--codegen cache: unknown boolean "sometimes"/);
    usage(["-C", "cache-config=/etc/c.toml", "app.wasm"], /-C\/--codegen key "cache-config" is not supported/);
    usage(["-C", "cranelift-debug-verifier", "app.wasm"], /key "cranelift-debug-verifier"/);
  });

  test("unknown and unsupported options are usage errors naming them", () => {
    usage(["--colour", "app.wasm"], /unknown option --colour/);
    usage(["-O", "opt-level=2", "app.wasm"], /unknown option -O/);
    usage(["--invoke", "f", "app.wasm"], /--invoke is not supported/);
    usage(["--mapdir", "/a::b", "app.wasm"], /--mapdir is not supported.*--dir HOST::GUEST/);
    usage(["--implementation", "fast", "app.wasm"], /--implementation is "native" or "js"/);
    usage(["--env"], /--env needs a value/);
    usage(["run", "--dir", "."], /no module given/);
    usage([], /no module given/);
  });

  test("--pool and --max-threads are integers in the pool's range, and the message names the flag and the range", () => {
    const pool = /^--pool must be an integer from 1 to 268435454 \(got "[^"]*"\)\.$/;
    const maxThreads = /^--max-threads must be an integer from 0 to 268435454 \(got "[^"]*"\)\.$/;
    for (const value of ["0", "2x", "-1", "1.5", "", "268435455", "99999999999", "1e3"])
      usage(["--pool", value, "app.wasm"], pool);
    for (const value of ["-1", "1.5", "x", "268435455", "99999999999"]) usage(["--max-threads", value, "app.wasm"], maxThreads);
    assert.equal(parseCommandLine(["--pool", "268435454", "app.wasm"]).poolSize, 268435454);
    assert.equal(parseCommandLine(["--max-threads=268435454", "app.wasm"]).maxThreads, 268435454);
    assert.match(HELP, /--pool <N> +at most N pool workers alive at once \(1 to\s+268435454;/);
    assert.match(HELP, /EAGAIN\) only beyond \(0 to 268435454;/);
  });

  test("a NUL inside an argument or an inherited value is refused, not cut", () => {
    usage(["app.wasm", "a\0b"], /NUL/);
    usage(["--env", "A=x\0y", "app.wasm"], /NUL/);
    assert.throws(() => parseCommandLine(["--env", "A", "app.wasm"], { A: "x\0y" }), /--env A's value contains a NUL/);
  });

  test("--help's exit status says what 141 is: a write into a pipe whose reader has gone", () => {
    const status = HELP.slice(HELP.indexOf("Exit status:"), HELP.indexOf("\n\n", HELP.indexOf("Exit status:")));
    assert.match(
      status.replace(/\n/g, " "),
      /A write into a pipe whose reader has gone \(wasi-thread-pool app\.wasm \| head -1\): 141/,
    );
  });

  test("--argv0, --help, -h, help, --version", () => {
    assert.equal(parseCommandLine(["--argv0", "tool", "app.wasm"]).argv0, "tool");
    for (const argv of [["--help"], ["-h"], ["run", "--help"], ["help"]]) {
      assert.equal(parseCommandLine(argv).action, "help");
    }
    assert.equal(parseCommandLine(["-V"]).action, "version");
  });
});

describe("runWasiThreadsProgram's options.poolSize and options.maxThreads", () => {
  test("out of range: a RangeError that states the range", async () => {
    const bytes = await showProgram();
    for (const poolSize of [0, 268435455, 1.5]) {
      await assert.rejects(runWasiThreadsProgram(bytes, { poolSize }), {
        name: "RangeError",
        message: /^runWasiThreadsProgram: options\.poolSize must be an integer from 1 to 268435454 /,
      });
    }
    for (const maxThreads of [-1, 99999999999]) {
      await assert.rejects(runWasiThreadsProgram(bytes, { maxThreads }), {
        name: "RangeError",
        message: /^runWasiThreadsProgram: options\.maxThreads must be an integer from 0 to 268435454 /,
      });
    }
  });
});

describe("WASI_THREAD_POOL_SPARE under runWasiThreadsProgram", () => {
  test("a bad value is a RangeError naming the variable and its range, before anything runs", async () => {
    const bytes = await showProgram();
    const before = process.env.WASI_THREAD_POOL_SPARE;
    let run;
    process.env.WASI_THREAD_POOL_SPARE = "abc";
    try {
      run = runWasiThreadsProgram(bytes, { stdin: null }); // reads the variable before its first await
    } finally {
      if (before === undefined) delete process.env.WASI_THREAD_POOL_SPARE;
      else process.env.WASI_THREAD_POOL_SPARE = before;
    }
    await assert.rejects(run, {
      name: "RangeError",
      message: 'WASI_THREAD_POOL_SPARE must be an integer from 0 to 8, not "abc".',
    });
  });
});

describe("runWasiThreadsProgram refuses a NUL in args and env", () => {
  test("options.args and options.env", async () => {
    const bytes = await showProgram();
    await assert.rejects(runWasiThreadsProgram(bytes, { args: ["p", "a\0b"] }), { name: "TypeError", message: /args\[1\].*NUL/ });
    await assert.rejects(runWasiThreadsProgram(bytes, { env: { A: "a\0b" } }), { name: "TypeError", message: /env\.A.*NUL/ });
    await assert.rejects(runWasiThreadsProgram(bytes, { env: { "A\0B": "x" } }), { name: "TypeError", message: /NUL/ });
  });
});

describe("the CLI end to end", () => {
  const dir = mkdtempSync(join(tmpdir(), "wtp-cli-"));
  const files = join(dir, "files");
  after(() => rmSync(dir, { recursive: true, force: true }));
  let show = null;
  async function showFile() {
    if (show === null) {
      show = join(dir, "show.wasm");
      writeFileSync(show, await showProgram({ exitCode: 7 }));
      const { mkdirSync } = await import("node:fs");
      mkdirSync(files);
      writeFileSync(join(files, "hello.txt"), "hello from the host\n");
    }
    return show;
  }

  for (const implementation of IMPLEMENTATIONS) {
    test(`args after the module, --env both forms, --dir HOST::GUEST, the exit code (${implementation})`, async () => {
      const wasm = await showFile();
      const r = await cli(
        ["run", "--implementation", implementation, "--env", "A=1", "--env", "FROM_HOST", "--env", "NOT_ON_HOST"].concat([
          "--dir",
          `${files}::/files`,
          "-S",
          "threads",
          wasm,
          "--help",
          "--pool",
          "2",
          "--",
          "x y",
        ]),
        { env: { FROM_HOST: "inherited", NOT_ON_HOST: undefined } },
      );
      assert.equal(r.code, 7, r.stderr);
      assert.deepEqual(parseShow(r.stdout), {
        args: ["show.wasm", "--help", "--pool", "2", "--", "x y"],
        env: ["A=1", "FROM_HOST=inherited"],
        file: "hello from the host\n",
      });
    });
  }

  test("the module as the first argument, no run; --dir DIR names it as written; --argv0", async () => {
    const wasm = await showFile();
    const r = await cli(["--dir", "files", "--argv0", "tool", wasm, "a"], { cwd: dir });
    assert.equal(r.code, 7, r.stderr);
    assert.deepEqual(parseShow(r.stdout), { args: ["tool", "a"], env: [], file: "hello from the host\n" });
  });

  test("the old GUEST::HOST order does not map the host directory", async () => {
    const wasm = await showFile();
    const r = await cli(["run", "--dir", `/files::${files}`, wasm]);
    // "/files" is not a host directory: refused before the program runs, as wasmtime does.
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot open directory "\/files"/);
    assert.equal(r.stdout, "");
  });

  test("--help lists exactly the supported options, in wasmtime's forms, on stdout with 0", async () => {
    const r = await cli(["--help"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, HELP);
    const options = [...HELP.matchAll(/^ {2}(-[-\w]+(?:, --[\w-]+)?)/gm)].map((m) => m[1]);
    assert.deepEqual(options, [
      "--dir",
      "--env",
      "--argv0",
      "-S, --wasi",
      "-W, --wasm",
      "-C, --codegen",
      "--max-threads",
      "--pool",
      "--implementation",
      "-h, --help",
      "-V, --version",
    ]);
  });

  test("usage errors exit 2 and name the problem; no arguments prints the help to stderr with 2", async () => {
    const bad = await cli(["run", "-S", "http", "app.wasm"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /wasi-thread-pool: -S\/--wasi key "http" is not supported/);
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.equal(none.stderr, HELP);
  });

  test("--pool and --max-threads out of range: exit 2, naming the flag and the range, not the API's option", async () => {
    for (const [flag, value, range] of [
      ["--pool", "268435455", "1 to 268435454"],
      ["--max-threads", "99999999999", "0 to 268435454"],
    ]) {
      const r = await cli(["run", flag, value, "app.wasm"]);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`wasi-thread-pool: ${flag} must be an integer from ${range} (got "${value}").\n`), r.stderr);
      assert.doesNotMatch(r.stderr, /runWasiThreadsProgram|options\./);
    }
  });

  test("WASI_THREAD_POOL_SPARE: a bad value exits 1 naming the variable and its range; empty is the default", async () => {
    const wasm = await showFile();
    for (const value of ["abc", "9", "-1", "1.5"]) {
      const r = await cli(["run", wasm], { env: { WASI_THREAD_POOL_SPARE: value } });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(
        r.stderr,
        `wasi-thread-pool: WASI_THREAD_POOL_SPARE must be an integer from 0 to 8, not ${JSON.stringify(value)}.\n`,
      );
      assert.equal(r.stdout, "");
    }
    for (const value of ["", "0", "2"]) {
      const r = await cli(["run", wasm], { env: { WASI_THREAD_POOL_SPARE: value } });
      assert.equal(r.code, 7, r.stderr);
    }
  });

  test("a module that is not wasm, is cut short, cannot be linked or is not a command: exit 1, naming the file", async () => {
    const cases = [
      ["magic.wasm", Uint8Array.of(0, 0x61, 0x73, 0x6e, 1, 0, 0, 0), "not a wasm binary (bad magic)."],
      ["short.wasm", Uint8Array.of(0, 0x61, 0x73), "not a wasm binary (too short)."],
      ["truncated.wasm", Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1), "wasm binary is truncated."],
      [
        "link.wasm",
        await watToBytes('(module (import "env" "nope" (func)) (func (export "_start")))'),
        "cannot link the module: ",
      ],
      ["reactor.wasm", await watToBytes('(module (func (export "_initialize")))'), "this module exports no _start function"],
    ];
    for (const [name, bytes, message] of cases) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      for (const env of [{}, { WASI_THREAD_POOL_NODE_WASI: "1" }]) {
        const r = await cli(["run", file], { env });
        assert.equal(r.code, 1, r.stderr);
        assert.ok(r.stderr.startsWith(`wasi-thread-pool: ${file}: ${message}`), `${JSON.stringify(env)}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /runWasiThreadsProgram/);
      }
    }
  });

  test("a module that cannot be read exits 1 and says so", async () => {
    const r = await cli(["run", join(dir, "missing.wasm")]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot read the module .*missing\.wasm/);
  });
});
