// Group 12 of `npm run bench` (bench/lib/memory-growth-plan.js): what the
// memory growth remedy costs (issue 26, docs/runtime.md "Memory growth
// across threads"). params: {variant: "grow" | "reserve", calls, mib}.
//   grow     WASI_THREAD_POOL_RESERVE_MEMORY=0: the module as it is, the
//            memory grown on demand (the hazard);
//   reserve  the default: the memory pass, the memory made at its maximum.
// Metrics: compileWasiThreadGuest's time for pigz, zstd and a generated
// module of several MB (the pass included for "reserve"; each compiled
// once per process, so no cache hides it); ns per memory.size and per
// memory.grow(0) in a wasm loop; and, in a child process running
// `pigz -p 4` on `mib` MiB through runWasiThreadsProgram, its peak RSS and
// its peak virtual size.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emit, params } from "../lib/child.js";

const { variant, calls = 1_000_000, mib = 4 } = params();
process.env.WASI_THREAD_POOL_RESERVE_MEMORY = variant === "reserve" ? "1" : "0";
const { compileWasiThreadGuest } = await import("../../lib/index.js");
const { MEMORY_IMPORT_MODULE, createMemoryCounter, memoryGrowthImports } = await import("../../lib/wasm/memory-counter.js");
const { encodeU, concatBytes } = await import("../../lib/wasm/reader.js");

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROGRAMS = join(ROOT, "..", "shared", "real-programs");

const section = (id, content) => concatBytes([Uint8Array.of(id), encodeU(content.length), content]);
const vector = (items) => concatBytes([encodeU(items.length), ...items]);

// A module of `functions` bodies of loads, adds, stores and calls, with a
// memory.size and a memory.grow in every 16th: about 5 MB for 20,000.
function bigModule(functions = 20000) {
  const type = vector([Uint8Array.of(0x60, 1, 0x7f, 1, 0x7f)]);
  const memoryImport = concatBytes([encodeU(3), new TextEncoder().encode("env"), encodeU(6), new TextEncoder().encode("memory")]);
  const imports = vector([concatBytes([memoryImport, Uint8Array.of(2, 3), encodeU(1), encodeU(16384)])]);
  const funcs = vector(Array.from({ length: functions }, () => Uint8Array.of(0)));
  const bodies = [];
  for (let f = 0; f < functions; f++) {
    const code = [0x00]; // no locals
    for (let i = 0; i < 20; i++) {
      code.push(0x20, 0x00, 0x28, 0x02, ...encodeU((i * 4) % 4096)); // local.get 0, i32.load offset
      code.push(0x41, ...encodeU(i + 1), 0x6a, 0x21, 0x00); // i32.const, i32.add, local.set 0
      code.push(0x20, 0x00, 0x20, 0x00, 0x36, 0x02, 0x00); // i32.store (local 0) (local 0)
    }
    if (f > 0) code.push(0x20, 0x00, 0x10, ...encodeU(f - 1), 0x21, 0x00); // call f-1
    if (f % 16 === 0) code.push(0x3f, 0x00, 0x1a, 0x41, 0x00, 0x40, 0x00, 0x1a); // memory.size, memory.grow 0
    code.push(0x20, 0x00, 0x0b);
    bodies.push(concatBytes([encodeU(code.length), Uint8Array.from(code)]));
  }
  const header = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  return concatBytes([header, section(1, type), section(2, imports), section(3, funcs), section(10, vector(bodies))]);
}

async function compileMs(bytes) {
  const started = performance.now();
  await compileWasiThreadGuest(bytes);
  return performance.now() - started;
}

// (func (export "loop") (param $n i32) (result i32)): $n times memory.size
// (op 0x3f) or memory.grow(0) (0x41 0x00 0x40 0x00), summed.
function loopModule(growOp) {
  const op = growOp ? [0x41, 0x00, 0x40, 0x00] : [0x3f, 0x00];
  const body = [
    0x01,
    0x01,
    0x7f, // one i32 local: the sum
    0x03,
    0x40, // loop
    0x20,
    0x01,
    ...op,
    0x6a,
    0x21,
    0x01, // sum += op
    0x20,
    0x00,
    0x41,
    0x01,
    0x6b,
    0x22,
    0x00,
    0x0d,
    0x00, // br_if (n = n - 1)
    0x0b,
    0x20,
    0x01,
    0x0b,
  ];
  const type = vector([Uint8Array.of(0x60, 1, 0x7f, 1, 0x7f)]);
  const imp = vector([
    concatBytes([
      encodeU(3),
      new TextEncoder().encode("env"),
      encodeU(6),
      new TextEncoder().encode("memory"),
      Uint8Array.of(2, 3, 1, 4),
    ]),
  ]);
  const exp = vector([concatBytes([encodeU(4), new TextEncoder().encode("loop"), Uint8Array.of(0, 0)])]);
  const code = vector([concatBytes([encodeU(body.length), Uint8Array.from(body)])]);
  const header = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
  return concatBytes([
    header,
    section(1, type),
    section(2, imp),
    section(3, vector([Uint8Array.of(0)])),
    section(7, exp),
    section(10, code),
  ]);
}

async function nsPerCall(growOp) {
  const wasmModule = await compileWasiThreadGuest(loopModule(growOp));
  const reserved = WebAssembly.Module.imports(wasmModule).some((e) => e.module === MEMORY_IMPORT_MODULE);
  const memory = new WebAssembly.Memory({ initial: reserved ? 4 : 1, maximum: 4, shared: true });
  const imports = { env: { memory } };
  if (reserved) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(createMemoryCounter(1, 4));
  const run = new WebAssembly.Instance(wasmModule, imports).exports.loop;
  run(10000); // warm-up (tier-up)
  const started = performance.now();
  run(calls);
  return ((performance.now() - started) * 1e6) / calls;
}

// pigz -p 4 on mib MiB in a child process: its VmHWM and VmPeak (MiB).
function runMemory() {
  const dir = mkdtempSync(join(tmpdir(), "wtp-bench-growth-"));
  try {
    const words = [];
    for (let i = 0, x = 7; words.length * 8 < mib << 20; i++) words.push(`w${(x = (x * 48271) % 2147483647) % 4099} `);
    writeFileSync(join(dir, "in.bin"), words.join(""));
    const script = `
      import { readFileSync } from "node:fs";
      const { runWasiThreadsProgram } = await import(${JSON.stringify(join(ROOT, "lib", "index.js"))});
      const r = await runWasiThreadsProgram(readFileSync(${JSON.stringify(join(PROGRAMS, "pigz.wasm"))}),
        { args: ["pigz", "-p", "4", "-k", "-f", "/d/in.bin"], preopens: { "/d": ${JSON.stringify(dir)} } });
      const status = readFileSync("/proc/self/status", "utf8");
      const kib = (name) => Number(status.match(new RegExp(name + ":\\\\s+(\\\\d+)"))[1]);
      console.log(JSON.stringify({ exitCode: r.exitCode, hwm: kib("VmHWM"), peak: kib("VmPeak") }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: process.env });
    const line = child.stdout.trim().split("\n").at(-1);
    const { exitCode, hwm, peak } = JSON.parse(line);
    if (exitCode !== 0) throw new Error(`pigz exited ${exitCode}: ${child.stderr}`);
    return { rssMiB: hwm / 1024, vszMiB: peak / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pigzMs = await compileMs(readFileSync(join(PROGRAMS, "pigz.wasm")));
const zstdMs = await compileMs(readFileSync(join(PROGRAMS, "zstd.wasm")));
const big = bigModule();
const bigMs = await compileMs(big);
const sizeNs = await nsPerCall(false);
const growNs = await nsPerCall(true);
const { rssMiB, vszMiB } = runMemory();

emit({
  metrics: {
    pigzCompileMs: { value: pigzMs },
    zstdCompileMs: { value: zstdMs },
    bigCompileMs: { value: bigMs },
    bigModuleMiB: { value: big.length / (1 << 20) },
    sizeNs: { value: sizeNs },
    growNs: { value: growNs },
    rssMiB: { value: rssMiB },
    vszMiB: { value: vszMiB },
  },
});
