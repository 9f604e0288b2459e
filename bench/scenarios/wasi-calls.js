// Scenario 10: the cost of one WASI call through the program's C WASI
// (src/wasi/, the addon's wasiImports) against node:wasi, each called on the
// same thread: bench/guest/wasi-calls.wat loops one call N times and the
// loop is timed here, on the guest's thread (this child's main thread, which
// runs the guest). Calls: fd_write and fd_read of 4 KiB on a file (a seek
// back every 256 calls is counted in), path_open + fd_close of that file,
// clock_time_get(MONOTONIC). Each figure: the median over `rounds` loops,
// after one warm-up loop, in ns per call.
//
// params: {host: "c" | "node", n, rounds}

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emit, hrnow, params } from "../lib/child.js";
import { watToBytes } from "../../test/fixtures/build.js";

const { host, n = 20000, rounds = 5, clockFactor = 10 } = params();

const dir = mkdtempSync(join(tmpdir(), "wtp-bench-wasi-"));
const memory = new WebAssembly.Memory({ initial: 1, maximum: 16, shared: true });
const preopens = { "/data": dir };

async function importsFor(which) {
  if (which === "c") {
    const { native } = await import("../../lib/native/binding.js");
    const binding = native.binding;
    if (typeof binding?.wasiCreate !== "function") return { skip: `no C WASI in the addon (${native.error ?? "not built"})` };
    const id = binding.wasiCreate({ args: ["bench"], env: [], preopens: Object.entries(preopens), stdio: [0, 1, 2] });
    const imports = binding.wasiImports(id, memory, () => {
      throw new Error("the bench's WASI stopped");
    });
    return { imports, close: () => (binding.wasiStop(id), binding.wasiRelease(id)) };
  }
  const { WASI } = await import("node:wasi");
  const wasi = new WASI({ version: "preview1", args: ["bench"], env: {}, preopens, returnOnExit: true });
  wasi.initialize({ exports: { memory } });
  return { imports: wasi.getImportObject().wasi_snapshot_preview1, close: () => {} };
}

const source = readFileSync(new URL("../guest/wasi-calls.wat", import.meta.url), "utf8");
const module = new WebAssembly.Module(await watToBytes(source, "wasi-calls.wat"));
const made = await importsFor(host);
if (made.skip) {
  process.stdout.write(`BENCH_SKIP ${made.skip}\n`);
  process.exit(0);
}
const { exports } = new WebAssembly.Instance(module, { env: { memory }, wasi_snapshot_preview1: made.imports });

function check(what, errno) {
  if (errno !== 0) throw new Error(`${what}: errno ${errno}`);
}

// ns per call of fn(count): the median of `rounds` timed loops after one warm-up.
function perCall(count, fn) {
  fn(Math.max(1, count >> 3));
  const figures = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = hrnow();
    fn(count);
    figures.push(Number(hrnow() - t0) / count);
  }
  figures.sort((a, b) => a - b);
  return figures[figures.length >> 1];
}

check("prepare", exports.prepare());
const writeFd = exports.open_file(9);
if (writeFd < 0) check("open for writing", -writeFd);
const fdWrite = perCall(n, (count) => check("fd_write", exports.write_loop(writeFd, count)));
const readFd = exports.open_file(0);
if (readFd < 0) check("open for reading", -readFd);
const fdRead = perCall(n, (count) => check("fd_read", exports.read_loop(readFd, count)));
const openClose = perCall(n, (count) => check("path_open + fd_close", exports.open_close_loop(count)));
const clock = perCall(n * clockFactor, (count) => check("clock_time_get", exports.clock_loop(count)));
made.close();
rmSync(dir, { recursive: true, force: true });

emit({
  metrics: {
    fdWrite4kNs: { value: fdWrite },
    fdRead4kNs: { value: fdRead },
    openCloseNs: { value: openClose },
    clockNs: { value: clock },
  },
  info: { host, n, rounds },
});
process.exit(0);
