// The samples of the README and docs/ are the files under docs/examples/,
// and they run:
//
//   - each example runs as a user runs it (its working directory, the
//     package imported by its name: Node resolves a package's own name from
//     inside it) and prints what the docs say it prints;
//   - a fenced block preceded by `<!-- sample: PATH -->` is PATH, or a run of
//     whole lines of it, so that the docs cannot drift from the files;
//   - every js block of the README and docs/*.md, and every shell block that
//     runs the package's CLI, is such a sample, or says why it is not run
//     (`<!-- not run: REASON -->`: a config for a tool the repository does
//     not install);
//   - the committed guests (.wasm) are what their .wat sources build.
//
// The CLI sample calls `npx wasi-thread-pool`: here an `npx` on PATH that
// runs this checkout's bin/wasi-thread-pool.js stands in for the installed
// package (and fails for anything else, so the sample cannot reach the
// registry).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import initWabt from "wabt";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EXAMPLES = join(ROOT, "docs", "examples");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const TIMEOUT_MS = 120_000;

const scratch = mkdtempSync(join(tmpdir(), "wtp-docs-examples-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const shim = join(scratch, "bin");
mkdirSync(shim);
writeFileSync(
  join(shim, "npx"),
  `#!/bin/sh\n[ "$1" = wasi-thread-pool ] || { echo "npx $1: not the package" >&2; exit 127; }\nshift\nexec "${process.execPath}" "${join(ROOT, "bin", "wasi-thread-pool.js")}" "$@"\n`,
);
chmodSync(join(shim, "npx"), 0o755);

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, PATH: `${shim}${delimiter}${process.env.PATH}` };
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: TIMEOUT_MS });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

async function runOk(command, args, cwd) {
  const result = await run(command, args, cwd);
  assert.equal(result.status, 0, `${command} ${args.join(" ")} in ${cwd}: ${result.signal ?? ""}\n${result.stderr}`);
  return result.stdout;
}

describe("the examples run as the docs show them", () => {
  const runProgram = join(EXAMPLES, "run-program");

  test("run-program/run.sh: the CLI", { skip: process.platform === "win32" && "a shell script" }, async () => {
    assert.equal(await runOk("sh", ["run.sh"], runProgram), "/data/input.txt: 5 lines\nexit status 0\n");
  });

  test("run-program/run.js: runWasiThreadsProgram", async () => {
    assert.equal(await runOk(process.execPath, ["run.js"], runProgram), "/data/input.txt: 5 lines\nexit status 0\n");
  });

  test("run-program: a path outside the granted directory is not opened", async () => {
    const result = await run(
      process.execPath,
      [join(ROOT, "bin", "wasi-thread-pool.js"), "run", "lines.wasm", "/data/input.txt"],
      runProgram,
    );
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /cannot open \/data\/input\.txt/);
  });

  test("pool/main.js: the pool API from worker_threads", async () => {
    const lines = (await runOk(process.execPath, ["main.js"], join(EXAMPLES, "pool"))).trim().split("\n");
    assert.deepEqual(
      lines.slice(0, 8),
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `task ${n} is thread ${n}`),
    );
    assert.equal(lines[8], "sum of squares 1..8: 204");
    assert.match(lines[9], /^8 threads on [12] workers$/);
    assert.equal(lines.length, 10);
  });

  test("host/main.js: the host and the runtime on the caller's thread", async () => {
    assert.equal(
      await runOk(process.execPath, ["main.js"], join(EXAMPLES, "host")),
      "run(4) = 15005000\nspawned 4, declined 0\n",
    );
  });

  test("which-pool.js: which implementation serves, and why", async () => {
    const cwd = EXAMPLES;
    assert.match(
      await runOk(process.execPath, ["which-pool.js"], cwd),
      /^(native|js): the native addon (loaded from|did not load)/,
    );
  });

  test("sdk-switch: an SDK-style harness through one alias", async () => {
    // A copy whose node_modules/wasi-thread-pool is this checkout (as the
    // example's file: dependency installs it).
    const copy = join(scratch, "sdk-switch");
    cpSync(join(EXAMPLES, "sdk-switch"), copy, { recursive: true });
    mkdirSync(join(copy, "node_modules"));
    symlinkSync(ROOT, join(copy, "node_modules", "wasi-thread-pool"), "junction");
    const result = JSON.parse(await runOk(process.execPath, ["main.js", "4"], copy));
    assert.equal(result.total, result.expected);
    assert.equal(result.threads, 4);
  });
});

// The fenced blocks of a markdown text: { lang, body, marker, line }.
function fencedBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(indent));
    let previous = start - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous--;
    const marker = previous >= 0 ? /^\s*<!-- (sample|not run): (.+?) -->\s*$/.exec(lines[previous]) : null;
    blocks.push({ lang: open[2], body: body.join("\n"), marker, line: start + 1 });
  }
  return blocks;
}

// A block that is a sample: code, or a shell line that runs the CLI (an
// install or test command is an instruction, not a sample).
const isSample = ({ lang, body }) =>
  /^(js|javascript|mjs)$/.test(lang) || (/^(sh|shell|bash|)$/.test(lang) && /^\s*(npx )?wasi-thread-pool (run|-)/m.test(body));

describe("the docs' samples are the example files", () => {
  for (const doc of DOCS) {
    test(doc, () => {
      for (const block of fencedBlocks(readFileSync(join(ROOT, doc), "utf8"))) {
        const where = `${doc}:${block.line}`;
        if (block.marker?.[1] === "sample") {
          const file = block.marker[2];
          assert.match(file, /^docs\/examples\//, `${where}: a sample is a file under docs/examples/`);
          const source = readFileSync(join(ROOT, file), "utf8").replace(/\n$/, "");
          assert.ok(`\n${source}\n`.includes(`\n${block.body}\n`), `${where}: the block is not ${file} (or whole lines of it)`);
        } else if (block.marker === null && isSample(block)) {
          assert.fail(`${where}: a ${block.lang} block with no <!-- sample: docs/examples/... --> or <!-- not run: why -->`);
        }
      }
    });
  }
});

describe("the committed guests are what their sources build", () => {
  for (const [wat, wasm] of [
    ["run-program/lines.wat", "run-program/lines.wasm"],
    ["sdk-switch/guest.wat", "sdk-switch/guest.wasm"],
  ]) {
    test(wasm, async () => {
      const wabt = await initWabt();
      const module = wabt.parseWat(wat, readFileSync(join(EXAMPLES, wat), "utf8"), { threads: true });
      try {
        const built = Buffer.from(module.toBinary({}).buffer);
        assert.ok(built.equals(readFileSync(join(EXAMPLES, wasm))), `${wasm} is stale: rebuild it from ${wat}`);
      } finally {
        module.destroy();
      }
    });
  }
});
