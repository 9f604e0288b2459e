// Scenario 10: the real programs of ../shared/real-programs on the program's
// C WASI against the runner's fallback (node:wasi per thread, forced with
// WASI_THREAD_POOL_NODE_WASI=1): wall time of runWasiThreadsProgram, pool
// default, on a file of `mib` MiB of text.
//   pigz -p 2 and zstd -T2 from stdin to stdout (stdin a file stream, stdout
//   a file's descriptor): both hosts can run that;
//   pigz -p 2 -k -f FILE and zstd -T2 FILE -o OUT (file to file; zstd's
//   asynchronous I/O thread): the fallback fails these (a thread uses an fd
//   another opened), so only the C WASI has a figure.
// host "page": the file-to-file runs in a page (headless Chromium, the
// browser runner over its in-memory file system, the pool on the bundled
// worker), timed in the page around the call; the stdio rows are not run.
//
// Each run in a child process of its own, timed there around the call.
//
// params: {host: "c" | "node" | "page", mib}

import { createReadStream, existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emit, params } from "../lib/child.js";

const { host, mib = 8, one = null, dir: givenDir = null } = params();
const programs = fileURLToPath(new URL("../../../shared/real-programs/", import.meta.url));
if (!existsSync(join(programs, "pigz.wasm")) || !existsSync(join(programs, "zstd.wasm"))) {
  process.stdout.write(`BENCH_SKIP no ../shared/real-programs (pigz.wasm, zstd.wasm)\n`);
  process.exit(0);
}
if (host === "node") process.env.WASI_THREAD_POOL_NODE_WASI = "1";
const { runWasiThreadsProgram } = host === "page" ? {} : await import("../../lib/index.js");

// The parent makes the input; a child (`one`) runs one program on it.
const dir = givenDir ?? mkdtempSync(join(tmpdir(), "wtp-bench-real-"));
const input = join(dir, "in.bin");
if (!one) {
  const words = ["wasi", "thread", "pool", "fd", "table", "sandbox", "pipe", "poll", "exit", "zstd", "pigz", "block"];
  let x = 12345;
  const parts = [];
  for (let size = 0; size < mib << 20;) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const word = `${words[x % words.length]}${x % 997} `;
    parts.push(word);
    size += word.length;
  }
  writeFileSync(input, parts.join(""));
}
const bytes = { pigz: readFileSync(join(programs, "pigz.wasm")), zstd: readFileSync(join(programs, "zstd.wasm")) };

// Wall ms of one run, or null if the program failed (its exit code in info).
const failures = {};
async function timed(name, program, args, { stdio = false } = {}) {
  const out = stdio ? openSync(join(dir, `${name}.out`), "w") : undefined;
  const t0 = performance.now();
  try {
    const { exitCode } = await runWasiThreadsProgram(bytes[program], {
      args: [program, ...args],
      preopens: { "/data": dir },
      ...(stdio ? { stdin: createReadStream(input), stdout: out } : { stdin: null }),
    });
    if (exitCode !== 0) {
      failures[name] = `exit ${exitCode}`;
      return null;
    }
    return performance.now() - t0;
  } finally {
    if (out !== undefined) closeSync(out);
  }
}

const RUNS = {
  "pigz-stdio": ["pigz", ["-p", "2", "-c"], { stdio: true }],
  "zstd-stdio": ["zstd", ["-T2", "-q", "-c"], { stdio: true }],
  "pigz-file": ["pigz", ["-p", "2", "-k", "-f", "/data/in.bin"], {}],
  "zstd-file": ["zstd", ["-T2", "-q", "-f", "/data/in.bin", "-o", "/data/in.bin.zst"], {}],
};

// One run in a child process of its own (a host may abort: node:wasi closing
// the host's fd 0 when pigz closes its stdin trips a libuv assertion).
function runAlone(name) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify({ host, one: name, dir })], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: process.env,
  });
  const resultFile = join(dir, `${name}.result`);
  if (existsSync(resultFile)) return JSON.parse(readFileSync(resultFile, "utf8"));
  return { ms: null, failure: `exit ${r.status ?? r.signal}: ${r.stderr.trim().split("\n").slice(-1)[0] ?? ""}` };
}

// In the page: {ms, failure} of one file-to-file run over the input.
async function pageRun(config) {
  const { runWasiThreadsProgram: run } = await import("/lib/index.browser.js");
  const bytes = await (await fetch(config.url)).arrayBuffer();
  const data = { "in.bin": Uint8Array.from(atob(config.input), (c) => c.charCodeAt(0)) };
  const t0 = performance.now();
  const { exitCode } = await run(bytes, { args: config.args, preopens: { "/data": data }, workerUrl: config.workerUrl });
  return exitCode === 0 ? { ms: performance.now() - t0, failure: null } : { ms: null, failure: `exit ${exitCode}` };
}

async function pageMetrics() {
  const { openWavePage } = await import("../../test/browser/chromium.js");
  const env = await openWavePage().catch((error) => {
    process.stdout.write(`BENCH_SKIP headless Chromium cannot run here: ${String(error?.message ?? error).split("\n")[0]}\n`);
    process.exit(0);
  });
  const metrics = {};
  try {
    const inputText = readFileSync(input).toString("base64");
    for (const [name, key] of [
      ["pigz-file", "pigzFileMs"],
      ["zstd-file", "zstdFileMs"],
    ]) {
      const [program, args] = RUNS[name];
      const r = await env.page.evaluate(pageRun, {
        url: `/real-programs/${program}.wasm`,
        args: [program, ...args],
        input: inputText,
        workerUrl: `${env.server.origin}/dist/wasiThreadBrowserWorker.mjs`,
      });
      if (r.ms !== null) metrics[key] = { value: r.ms };
      else failures[name] = r.failure;
    }
  } finally {
    await env.browser.close().catch(() => {});
    await env.server.close();
  }
  return metrics;
}

if (host === "page") {
  const metrics = await pageMetrics();
  rmSync(dir, { recursive: true, force: true });
  emit({ metrics, info: { host, mib, failures } });
  process.exit(0);
}

if (one) {
  const [program, args, options] = RUNS[one];
  const ms = await timed(one, program, args, options);
  // Into a file: under node:wasi the program closing its stdout closes ours.
  writeFileSync(join(dir, `${one}.result`), JSON.stringify({ ms, failure: failures[one] ?? null }));
  process.exit(0);
}
const metrics = {};
for (const [name, key] of [
  ["pigz-stdio", "pigzStdioMs"],
  ["zstd-stdio", "zstdStdioMs"],
  ["pigz-file", "pigzFileMs"],
  ["zstd-file", "zstdFileMs"],
]) {
  const r = runAlone(name);
  if (r.ms !== null) metrics[key] = { value: r.ms };
  else failures[name] = r.failure;
}
rmSync(dir, { recursive: true, force: true });
emit({ metrics, info: { host, mib, failures } });
process.exit(0);
