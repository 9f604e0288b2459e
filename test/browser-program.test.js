// runWasiThreadsProgram in a page (lib/program/browser/): whole wasi-threads
// programs in headless Chromium, on a cross-origin isolated page served from
// 127.0.0.1 (test/browser/server.js), with an in-memory file system: the C
// programs of test/wasi-programs (one fd table for every thread, how a
// program ends while its threads are busy, lots of stdout) and pigz and zstd
// from ../shared/real-programs, whose outputs must be the bytes the Node
// runner writes for the same input.
//
// Needs Debian's chromium (CHROMIUM_PATH overrides) and npm playwright-core;
// the C programs need scripts/build-wasi-programs.sh's tools. With CI=true a
// browser that cannot run fails the suite; otherwise it is skipped with the
// reason.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { openWavePage } from "./browser/chromium.js";
import { BUNDLED_WORKER_PATH } from "./browser/server.js";
import { watToBytes } from "./fixtures/build.js";
import { SHARED, buildWasiPrograms, cWasiSkip, exitProgram, tempDir } from "./support/wasi-programs.js";

const CI = process.env.CI === "true";
const REAL = join(SHARED, "real-programs");

let env = null;
let unavailable = buildWasiPrograms() || null;
if (!unavailable) {
  try {
    env = await openWavePage();
  } catch (error) {
    unavailable = `headless Chromium cannot run here: ${String(error?.message ?? error).split("\n")[0]}`;
  }
}
const skip = unavailable && !CI ? unavailable : false;
const realSkip = ["pigz.wasm", "zstd.wasm"].some((f) => !existsSync(join(REAL, f)))
  ? `no pigz.wasm and zstd.wasm in ${REAL} (../shared is absent)`
  : cWasiSkip();

const workerUrl = () => (existsSync(BUNDLED_WORKER_PATH) ? `${env.server.origin}/dist/wasiThreadBrowserWorker.mjs` : undefined);

// Runs in the page before pageRun and pageOpfs: the page's base64 of bytes
// (files cross page.evaluate as base64 text), as globalThis.wtpBase64.
function installPageBase64() {
  const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const toBase64 = (bytes) => {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  };
  globalThis.wtpBase64 = { fromBase64, toBase64 };
}

// Runs in the page: one program, its files given and returned as base64.
// config: {url, args, files: {name: base64}, stdin: undefined | string |
// "never-ending stream", stdoutStream: {highWaterMark, delayMs} | undefined,
// poolSize, workerUrl}
async function pageRun(config) {
  const { fromBase64, toBase64 } = globalThis.wtpBase64;
  const { runWasiThreadsProgram } = await import("/lib/index.browser.js");
  const bytes = config.wasm ? fromBase64(config.wasm) : await (await fetch(config.url)).arrayBuffer();
  const data = {};
  for (const [name, text] of Object.entries(config.files ?? {})) data[name] = fromBase64(text);
  const chunks = { 1: [], 2: [] };
  const collect = (fd) => (b) => {
    chunks[fd].push(b.slice());
    if (fd === 1) onStdout(b);
  };
  let stdout = collect(1);
  if (config.stdoutFails) {
    // A callback that throws, or a stream whose write rejects, from the Nth write on.
    const { after, how } = config.stdoutFails;
    let writes = 0;
    const fail = (b) => {
      if (++writes < after) return chunks[1].push(b.slice());
      throw new Error("the page's stdout is closed");
    };
    stdout = how === "throw" ? fail : new WritableStream({ write: async (b) => fail(b) });
  }
  if (config.stdoutStream) {
    const { highWaterMark, delayMs } = config.stdoutStream;
    stdout = new WritableStream(
      { write: (b) => new Promise((resolve) => setTimeout(() => resolve(chunks[1].push(b.slice())), delayMs)) },
      new CountQueuingStrategy({ highWaterMark }),
    );
  }
  let stdin = config.stdin;
  if (stdin === "never-ending stream") stdin = new ReadableStream({ pull: () => new Promise(() => {}) });
  // lateStdin: text given only once stdout has shown `after` (the program
  // waits for the state, not for a time).
  let onStdout = () => {};
  if (config.lateStdin) {
    const { text, after } = config.lateStdin;
    let seen = "";
    stdin = new ReadableStream({
      start(controller) {
        onStdout = (bytes) => {
          seen += new TextDecoder().decode(bytes);
          if (!seen.includes(after)) return;
          onStdout = () => {};
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        };
      },
    });
  }
  const started = performance.now();
  let exitCode;
  try {
    ({ exitCode } = await runWasiThreadsProgram(bytes, {
      args: config.args,
      preopens: { "/data": data },
      stdin,
      stdout,
      stderr: collect(2),
      poolSize: config.poolSize,
      workerUrl: config.workerUrl,
    }));
  } catch (error) {
    return { error: `${error?.name}: ${error?.message ?? error}` };
  }
  const ms = performance.now() - started;
  const text = (list) => new TextDecoder().decode(new Uint8Array(list.flatMap((b) => Array.from(b))));
  const files = {};
  for (const [name, value] of Object.entries(data)) files[name] = value instanceof Uint8Array ? toBase64(value) : "(directory)";
  return { exitCode, ms, stdout: text(chunks[1]), stderr: text(chunks[2]), files };
}

async function run(url, args, options = {}) {
  const files = Object.fromEntries(Object.entries(options.files ?? {}).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
  await env.page.evaluate(installPageBase64);
  const r = await env.page.evaluate(pageRun, { url, args, workerUrl: workerUrl(), poolSize: 8, ...options, files });
  if (r.files) for (const name of Object.keys(r.files)) r.files[name] = Buffer.from(r.files[name], "base64");
  return r;
}

const describeRun = (r) =>
  `exit ${r.exitCode} in ${Math.round(r.ms)} ms\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}${r.error ? `\nerror: ${r.error}` : ""}`;

function assertPassed(r) {
  assert.equal(r.exitCode, 0, describeRun(r));
  assert.doesNotMatch(r.stdout, /FAIL/, describeRun(r));
}

describe("whole programs in a page (runWasiThreadsProgram, browser)", { skip, timeout: 600000 }, () => {
  before(() => {
    if (unavailable) throw new Error(`CI=true and ${unavailable}`);
  });
  after(async () => {
    await env?.browser.close().catch(() => {});
    await env?.server.close();
  });

  test("a file opened on one thread is read on another and on the main thread, at one position", async () => {
    const r = await run("/wasi-programs/process.wasm", ["process", "read-across"], { files: { "in.txt": "hello world" } });
    assertPassed(r);
    assert.match(r.stdout, /ok read-on-other-thread\nok read-rest-on-main\n/, describeRun(r));
  });

  for (const which of ["share", "offsets", "renumber"]) {
    test(`one fd table for every thread: fds ${which}`, async () => {
      const r = await run("/wasi-programs/fds.wasm", ["fds", which]);
      assertPassed(r);
      if (which === "share") assert.equal(String(r.files["a.txt"]), "written by another thread\n");
      if (which === "offsets") assert.equal(String(r.files["o.txt"]), "AAAABBBBZ");
    });
  }

  // This WASI has no symbolic links (path_symlink is ENOTSUP): the checks
  // that make or read one are the only FAIL lines allowed.
  const NO_SYMLINKS = [
    "readdir",
    "symlink",
    "readlink",
    "readlink-short-buffer",
    "creat-excl-through-dangling-symlink",
    "unlink-symlink",
    "symlink-absolute-eperm",
    "symlink-relative-made",
  ];
  function assertOnlySymlinkFailures(r) {
    const failed = [...r.stdout.matchAll(/^FAIL ([^:]+):/gm)].map((m) => m[1]);
    assert.deepEqual(
      failed.filter((name) => !NO_SYMLINKS.includes(name)),
      [],
      describeRun(r),
    );
    assert.match(r.stdout, /^done/m, describeRun(r));
  }

  test("the C WASI's own checks (basics.wasm, every case): the same answers but for symbolic links", async () => {
    const cases = ["env", "clocks", "file", "readdir", "seek", "filestat", "errors", "fdstat", "dirfd", "links"];
    const more = ["renames", "times", "stdio", "dangling", "allocate", "more", "preopen"];
    const r = await run("/wasi-programs/basics.wasm", ["basics", ...cases, ...more]);
    assertOnlySymlinkFailures(r);
    assert.match(r.stdout, /^ok read-unlinked$/m, describeRun(r));
    assert.match(r.stdout, /^ok create-in-removed-dir$/m, describeRun(r));
  });

  test("rights as the C WASI gives them (rights.wasm rights, append)", async () => {
    assertOnlySymlinkFailures(await run("/wasi-programs/rights.wasm", ["rights", "rights"]));
    assertPassed(await run("/wasi-programs/rights.wasm", ["rights", "append"]));
    const tty = await run("/wasi-programs/rights.wasm", ["rights", "isatty"]);
    assert.match(tty.stdout, /^isatty 0 0 0$/m, describeRun(tty));
  });

  test("proc_exit on a thread while the main thread blocks reading stdin ends the run with that code", async () => {
    const r = await run("/wasi-programs/process.wasm", ["process", "exit-from-thread", "7"], { stdin: "never-ending stream" });
    assert.equal(r.exitCode, 7, describeRun(r));
    assert.equal(r.stdout, "exiting from a thread\n", describeRun(r));
  });

  test("poll_oneoff on stdin and a 1 s clock: the clock when no input comes, stdin when it is there", async () => {
    const late = await run("/wasi-programs/blocking.wasm", ["blocking", "poll-stdin"], {
      lateStdin: { text: "hello\n", after: "reading\n" },
    });
    assert.equal(late.exitCode, 0, describeRun(late));
    assert.match(late.stdout, /^event clock errno 0 after \d+ ms\nreading\nread 6: hello\n$/, describeRun(late));
    const waited = Number(/after (\d+) ms/.exec(late.stdout)[1]);
    assert.ok(waited >= 990, `the clock came after ${waited} ms`);
    const ready = await run("/wasi-programs/blocking.wasm", ["blocking", "poll-stdin"], { stdin: "ready\n" });
    assert.equal(ready.exitCode, 0, describeRun(ready));
    assert.match(ready.stdout, /^event stdin errno 0 after \d+ ms\nreading\nread 6: ready\n$/, describeRun(ready));
  });

  test("a trap on a thread gives 134 and says which thread and what trap on stderr", async () => {
    const r = await run("/wasi-programs/process.wasm", ["process", "trap-on-thread"]);
    assert.equal(r.exitCode, 134, describeRun(r));
    assert.match(r.stderr, /^wasi-thread-pool: thread \d+ trapped: RuntimeError: unreachable/, describeRun(r));
  });

  test("20000 lines on stdout arrive whole and in order, through a callback and a slow WritableStream", async () => {
    const expected = Array.from({ length: 20000 }, (_, i) => `line ${String(i).padStart(6, "0")} ${"0".repeat(87)}\n`).join("");
    const fast = await run("/wasi-programs/blocking.wasm", ["blocking", "lines", "20000"]);
    assert.equal(fast.exitCode, 0, describeRun({ ...fast, stdout: fast.stdout.slice(-200) }));
    assert.ok(fast.stdout === expected, `callback: ${fast.stdout.length} of ${expected.length} bytes`);
    const slow = await run("/wasi-programs/blocking.wasm", ["blocking", "lines", "2000"], {
      stdoutStream: { highWaterMark: 1, delayMs: 0 },
    });
    assert.equal(slow.exitCode, 0, describeRun({ ...slow, stdout: slow.stdout.slice(-200) }));
    assert.ok(slow.stdout === expected.slice(0, 2000 * 100), `stream: ${slow.stdout.length} of ${2000 * 100} bytes`);
  });

  const withBytes = async (bytes, args, options) => run(null, args, { ...options, wasm: Buffer.from(bytes).toString("base64") });

  test("stdout whose callback throws or whose stream fails is a closed pipe: the program ends with 141", async () => {
    for (const how of ["throw", "reject"]) {
      const r = await run("/wasi-programs/blocking.wasm", ["blocking", "lines", "100000"], { stdoutFails: { after: 50, how } });
      assert.equal(r.exitCode, 141, `${how}: ${describeRun({ ...r, stdout: r.stdout.slice(-200) })}`);
      assert.equal(r.stdout.length, 49 * 100, how);
    }
  });

  test("exit codes as on Node: proc_exit(0..125) on the main thread or a thread, 1 and the reason outside [0, 126)", async () => {
    for (const [code, onThread, expected] of [
      [0, false, 0],
      [125, false, 125],
      [3, true, 3],
      [126, false, 1],
      [255, true, 1],
    ]) {
      const r = await withBytes(await exitProgram(code, { onThread }), ["exit"]);
      assert.equal(r.exitCode, expected, `proc_exit(${code})${onThread ? " on a thread" : ""}: ${describeRun(r)}`);
      if (expected === 1) {
        assert.equal(r.stderr, `wasi-thread-pool: proc_exit(${code}): exit with invalid exit status outside of [0..126)\n`);
      } else {
        assert.equal(r.stderr, "", describeRun(r));
      }
    }
  });

  test("a module it cannot link, one without _start, and bad options are refused (the promise rejects)", async () => {
    const memory = '(import "env" "memory" (memory 1 1 shared))';
    const unlinkable = await watToBytes(`(module ${memory} (import "env" "nope" (func)) (func (export "_start")))`);
    const r1 = await withBytes(unlinkable, ["x"]);
    assert.match(r1.error ?? "", /^LinkError: runWasiThreadsProgram: the program could not start: .*nope/, JSON.stringify(r1));
    const reactor = await watToBytes(`(module ${memory} (func (export "_initialize")))`);
    const r2 = await withBytes(reactor, ["x"]);
    assert.match(r2.error ?? "", /^TypeError: runWasiThreadsProgram: this module exports no _start function/, JSON.stringify(r2));
    const r3 = await withBytes(await exitProgram(0), ["x"], { poolSize: -1 });
    assert.match(r3.error ?? "", /^RangeError: options\.poolSize/, JSON.stringify(r3));
  });

  test("a page that is not cross-origin isolated gets a clear error", async () => {
    const page = await env.browser.newPage();
    try {
      await page.goto(`${env.server.origin}/not-isolated`);
      const message = await page.evaluate(async () => {
        const { runWasiThreadsProgram } = await import("/lib/index.browser.js");
        return runWasiThreadsProgram(new Uint8Array(8)).then(
          () => "resolved",
          (error) => error.message,
        );
      });
      assert.match(
        message,
        /cross-origin isolated.*Cross-Origin-Opener-Policy: same-origin.*Cross-Origin-Embedder-Policy: require-corp/,
      );
    } finally {
      await page.close();
    }
  });

  // Runs in the page: each step's program on a fresh OPFS directory seeded
  // with `seed` ({name: base64 | {...}}) and, beside it, on a plain-object
  // tree of the same files; returns every step's outcome and both file
  // systems afterwards, read back from OPFS itself.
  async function pageOpfs({ steps, seed, name, workerUrl }) {
    const { fromBase64, toBase64 } = globalThis.wtpBase64;
    const { runWasiThreadsProgram } = await import("/lib/index.browser.js");
    const root = await navigator.storage.getDirectory();
    await root.removeEntry(name, { recursive: true }).catch(() => {});
    const opfs = await root.getDirectoryHandle(name, { create: true });
    const fill = async (handle, spec) => {
      for (const [entry, value] of Object.entries(spec)) {
        if (typeof value !== "string") await fill(await handle.getDirectoryHandle(entry, { create: true }), value);
        else {
          const writable = await (await handle.getFileHandle(entry, { create: true })).createWritable();
          await writable.write(fromBase64(value));
          await writable.close();
        }
      }
    };
    await fill(opfs, seed);
    const plain = (spec) =>
      Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, typeof v === "string" ? fromBase64(v) : plain(v)]));
    const memory = plain(seed);
    const dumpOpfs = async (handle) => {
      const out = {};
      for await (const [entry, child] of handle.entries()) {
        out[entry] =
          child.kind === "directory"
            ? await dumpOpfs(child)
            : toBase64(new Uint8Array(await (await child.getFile()).arrayBuffer()));
      }
      return out;
    };
    const dumpPlain = (tree) =>
      Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, v instanceof Uint8Array ? toBase64(v) : dumpPlain(v)]));
    const runs = [];
    for (const { url, args } of steps) {
      const bytes = await (await fetch(url)).arrayBuffer();
      for (const [where, dir] of [
        ["opfs", opfs],
        ["memory", memory],
      ]) {
        let out = "";
        const text = (b) => (out += new TextDecoder().decode(b));
        try {
          const { exitCode } = await runWasiThreadsProgram(bytes, {
            args,
            preopens: { "/data": dir },
            stdout: text,
            stderr: text,
            workerUrl,
          });
          runs.push({ where, args, exitCode, out });
        } catch (error) {
          runs.push({ where, args, error: `${error?.name}: ${error?.message}` });
        }
      }
    }
    const opfsFiles = await dumpOpfs(opfs);
    await root.removeEntry(name, { recursive: true });
    return { runs, opfs: opfsFiles, memory: dumpPlain(memory) };
  }

  const sortTree = (tree) =>
    Object.fromEntries(
      Object.keys(tree)
        .sort()
        .map((k) => [k, typeof tree[k] === "string" ? tree[k] : sortTree(tree[k])]),
    );
  const b64 = (text) => Buffer.from(text).toString("base64");

  async function runOnOpfs(steps, seed) {
    const name = `wtp-opfs-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await env.page.evaluate(installPageBase64);
    const r = await env.page.evaluate(pageOpfs, { steps, seed, name, workerUrl: workerUrl() });
    // Each step gives on OPFS what it gives on the in-memory tree.
    for (let i = 0; i < r.runs.length; i += 2) {
      const [onOpfs, inMemory] = r.runs.slice(i, i + 2);
      assert.equal(onOpfs.error, undefined, onOpfs.error);
      assert.deepEqual({ ...onOpfs, where: "" }, { ...inMemory, where: "" }, onOpfs.args.join(" "));
    }
    assert.deepEqual(sortTree(r.opfs), sortTree(r.memory), "OPFS afterwards holds what the in-memory tree holds");
    return r;
  }

  test("an OPFS directory as a preopen: created, truncated, renamed, removed and listed files are there afterwards", async () => {
    const cases = ["file", "readdir", "seek", "filestat", "renames", "more"];
    const r = await runOnOpfs([{ url: "/wasi-programs/basics.wasm", args: ["basics", ...cases] }], {
      "old.txt": b64("left alone\n"),
      rd: { "kept.txt": b64("renamed with its directory\n") },
      sub: { "deep.txt": b64("deep\n") },
    });
    // readdir's only FAIL is its symbolic link, which this WASI does not make.
    assert.match(r.runs[0].out, /^done with 1 failures$/m, r.runs[0].out);
    assert.match(r.runs[0].out, /^FAIL readdir: 4 entries: a\(file\) b\(file\) c\(file\) sub\(dir\)$/m);
    assert.equal(r.opfs["old.txt"], b64("left alone\n"));
    assert.equal(r.opfs.rd, undefined, "the renamed directory is gone under its old name");
    assert.equal(r.opfs.rd3?.["kept.txt"], b64("renamed with its directory\n"));
    assert.equal(r.opfs.r2, b64("one"), "r1 renamed over r2");
  });

  test(
    "an OPFS directory as a preopen: zstd -T2 reads a file the page wrote there and writes another",
    { skip: realSkip },
    async () => {
      const input = Buffer.from(Array.from({ length: 20000 }, (_, i) => `line ${i % 977} of the page's file\n`).join(""));
      const r = await runOnOpfs(
        [
          { url: "/real-programs/zstd.wasm", args: ["zstd", "-T2", "-q", "--rm", "/data/in.txt", "-o", "/data/in.txt.zst"] },
          { url: "/real-programs/zstd.wasm", args: ["zstd", "-T2", "-q", "-d", "/data/in.txt.zst", "-o", "/data/out/back.txt"] },
        ],
        { "in.txt": input.toString("base64"), out: {} },
      );
      assert.equal(r.opfs["in.txt"], undefined, "--rm removed the input");
      assert.ok(r.opfs["in.txt.zst"]?.length > 0);
      assert.ok(Buffer.from(r.opfs.out["back.txt"], "base64").equals(input), "out/back.txt is the page's file");
    },
  );

  test("an OPFS file another worker holds locked: the promise says the program ended and what could not be written", async () => {
    const name = `wtp-opfs-${process.pid}-locked`;
    const message = await env.page.evaluate(
      async ({ name, workerUrl }) => {
        const { runWasiThreadsProgram } = await import("/lib/index.browser.js");
        const root = await navigator.storage.getDirectory();
        const dir = await root.getDirectoryHandle(name, { create: true });
        await dir.getFileHandle("a.txt", { create: true });
        // A dedicated worker holds a.txt's synchronous access handle: OPFS refuses every other writer.
        const code = `onmessage = async ({ data }) => {
          const root = await navigator.storage.getDirectory();
          const file = await (await root.getDirectoryHandle(data)).getFileHandle("a.txt");
          self.held = await file.createSyncAccessHandle();
          postMessage("locked");
        };`;
        const locker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
        await new Promise((resolve, reject) => {
          locker.onmessage = resolve;
          locker.onerror = (event) => reject(new Error(event.message));
          locker.postMessage(name);
        });
        const bytes = await (await fetch("/wasi-programs/fds.wasm")).arrayBuffer();
        try {
          return await runWasiThreadsProgram(bytes, { args: ["fds", "share"], preopens: { "/data": dir }, workerUrl }).then(
            () => "resolved",
            (error) => `${error.name}: ${error.message}`,
          );
        } finally {
          locker.terminate();
          await root.removeEntry(name, { recursive: true }).catch(() => {});
        }
      },
      { name, workerUrl: workerUrl() },
    );
    assert.match(
      message,
      /^Error: runWasiThreadsProgram: the program ended \(exit code 0\) but its files could not all be written into the OPFS directory preopens\["\/data"\]: .*modif/,
    );
  });

  test("a preopen that is a file handle, not a FileSystemDirectoryHandle, is refused with a TypeError", async () => {
    const name = `wtp-opfs-${process.pid}-file`;
    const message = await env.page.evaluate(async (name) => {
      const { runWasiThreadsProgram } = await import("/lib/index.browser.js");
      const root = await navigator.storage.getDirectory();
      const file = await root.getFileHandle(name, { create: true });
      const bytes = await (await fetch("/wasi-programs/basics.wasm")).arrayBuffer();
      try {
        return await runWasiThreadsProgram(bytes, { args: ["x"], preopens: { "/data": file } }).then(
          () => "resolved",
          (error) => `${error.name}: ${error.message}`,
        );
      } finally {
        await root.removeEntry(name);
      }
    }, name);
    assert.match(
      message,
      /^TypeError: preopens\["\/data"\] is a FileSystemFileHandle of kind "file": .*FileSystemDirectoryHandle/,
    );
  });

  describe("pigz and zstd, outputs as the Node runner's", { skip: realSkip }, () => {
    // 2 MiB of words that compress but not to nothing; deterministic.
    const input = (() => {
      const words = ["wasi", "thread", "pool", "page", "memory", "file", "system", "zstd", "pigz", "block"];
      let x = 4242;
      const parts = [];
      for (let size = 0; size < 2 << 20;) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        const word = `${words[x % words.length]}${x % 991} `;
        parts.push(word);
        size += word.length;
      }
      return Buffer.from(parts.join(""));
    })();
    const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

    // The Node runner's output file for the same program, arguments and input.
    async function nodeOutput(program, args, inputName, outputName) {
      const { runWasiThreadsProgram } = await import("../lib/index.js");
      const data = tempDir("wtp-browser-program-");
      try {
        writeFileSync(join(data.dir, inputName), input);
        const { exitCode } = await runWasiThreadsProgram(readFileSync(join(REAL, `${program}.wasm`)), {
          args: [program, ...args],
          preopens: { "/data": data.dir },
        });
        assert.equal(exitCode, 0);
        return readFileSync(join(data.dir, outputName));
      } finally {
        data.remove();
      }
    }

    for (const [program, compress, decompress, packed] of [
      ["pigz", ["-p", "2", "-n", "-k", "-f", "/data/in.bin"], ["-p", "2", "-d", "-k", "-f", "/data/back.bin.gz"], "in.bin.gz"],
      [
        "zstd",
        ["-T2", "-q", "-f", "/data/in.bin", "-o", "/data/in.bin.zst"],
        ["-T2", "-q", "-d", "-f", "/data/back.bin.zst", "-o", "/data/back.bin"],
        "in.bin.zst",
      ],
    ]) {
      test(`${program} ${compress.slice(0, 2).join(" ")} compresses in the page as on Node; it decompresses back`, async (t) => {
        const packedRun = await run(`/real-programs/${program}.wasm`, [program, ...compress], { files: { "in.bin": input } });
        assert.equal(packedRun.exitCode, 0, describeRun(packedRun));
        const expected = await nodeOutput(program, compress, "in.bin", packed);
        assert.equal(
          sha(packedRun.files[packed]),
          sha(expected),
          `${packed}: ${packedRun.files[packed]?.length} bytes against Node's ${expected.length}`,
        );
        const backName = packed.replace("in.bin", "back.bin");
        const back = await run(`/real-programs/${program}.wasm`, [program, ...decompress], { files: { [backName]: expected } });
        assert.equal(back.exitCode, 0, describeRun(back));
        assert.ok(back.files["back.bin"]?.equals(input), `back.bin is the input (${back.files["back.bin"]?.length} bytes)`);
        t.diagnostic(`${program}: compress ${Math.round(packedRun.ms)} ms, decompress ${Math.round(back.ms)} ms in the page`);
      });
    }
  });
});
