// Real threaded programs on files (issue 18): pigz -p 2 and zstd -T2 (with
// its default asynchronous I/O thread) from ../shared/real-programs, compress
// and decompress, on both pools; every output checked with the system's gzip
// and zstd and compared with the input. Under node:wasi per thread they fail:
// pigz's writer thread writes an fd its main thread opened ("Bad file
// descriptor"), zstd's I/O thread reads one ("Read error").
//
// On Windows (node.exe under Wine here) the system's tools are Linux
// programs that node.exe cannot run: pigz's output is checked with
// node:zlib instead, zstd's by its frame magic and its own round trip
// (Node 20 has no zstd).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { IMPLEMENTATIONS } from "./support/impls.js";
import { SHARED, cWasiSkip, describeRun, runProgram, tempDir } from "./support/wasi-programs.js";

const PROGRAMS = join(SHARED, "real-programs");
const SYSTEM_TOOLS = process.platform !== "win32";

function whyMissing() {
  for (const file of ["pigz.wasm", "zstd.wasm"]) {
    if (!existsSync(join(PROGRAMS, file))) return `no ${file} in ${PROGRAMS} (../shared is absent)`;
  }
  for (const tool of SYSTEM_TOOLS ? ["gzip", "zstd", "cmp"] : []) {
    if (spawnSync(tool, ["--version"]).error) return `the system's ${tool} is missing (scripts/setup-debian.sh)`;
  }
  return false;
}
const skip = cWasiSkip() || whyMissing();

// 3 MiB of text that compresses but not to nothing: many blocks for the
// threads (pigz: 128 KiB; zstd -T2: a job per few MiB at level 3... and its
// I/O thread's buffers). Deterministic.
function input() {
  const words = ["wasi", "thread", "pool", "fd", "table", "sandbox", "pipe", "poll", "exit", "zstd", "pigz", "block"];
  let x = 12345;
  const parts = [];
  let size = 0;
  while (size < 3 << 20) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const word = `${words[x % words.length]}${x % 997} `;
    parts.push(word);
    size += word.length;
  }
  return Buffer.from(parts.join(""));
}
const INPUT = skip ? null : input();

function system(tool, args) {
  const r = spawnSync(tool, args, { maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: String(r.stderr) };
}

async function run(program, implementation, dir, args) {
  const r = await runProgram(join(PROGRAMS, `${program}.wasm`), implementation, {
    args,
    preopens: { "/data": dir },
    boundMs: 120_000,
  });
  assert.equal(r.code, 0, describeRun(r));
  assert.equal(r.result?.exitCode, 0, describeRun(r));
  return r;
}

for (const implementation of IMPLEMENTATIONS) {
  describe(`real programs on files, ${implementation} pool`, { skip }, () => {
    test("pigz -p 2 -k -f compresses a file; gzip checks it; pigz -d gives the input back", async () => {
      const data = tempDir("wtp-wasi-pigz-");
      try {
        writeFileSync(join(data.dir, "in.bin"), INPUT);
        await run("pigz", implementation, data.dir, ["-p", "2", "-k", "-f", "/data/in.bin"]);
        const gz = join(data.dir, "in.bin.gz");
        if (SYSTEM_TOOLS) {
          assert.equal(system("gzip", ["-t", gz]).code, 0, "gzip -t");
          assert.ok(system("gzip", ["-dc", gz]).stdout.equals(INPUT), "gzip -dc gives the input");
        } else {
          assert.ok(gunzipSync(readFileSync(gz)).equals(INPUT), "node:zlib's gunzip gives the input");
        }
        copyFileSync(gz, join(data.dir, "back.bin.gz"));
        await run("pigz", implementation, data.dir, ["-p", "2", "-d", "-k", "-f", "/data/back.bin.gz"]);
        assert.ok(readFileSync(join(data.dir, "back.bin")).equals(INPUT), "pigz -d gives the input");
      } finally {
        data.remove();
      }
    });

    test("zstd -T2 (asynchronous I/O) compresses a file; zstd checks it; zstd -d gives the input back", async () => {
      const data = tempDir("wtp-wasi-zstd-");
      try {
        writeFileSync(join(data.dir, "in.bin"), INPUT);
        await run("zstd", implementation, data.dir, ["-T2", "-q", "-f", "/data/in.bin", "-o", "/data/in.bin.zst"]);
        const zst = join(data.dir, "in.bin.zst");
        if (SYSTEM_TOOLS) {
          assert.equal(system("zstd", ["-q", "-t", zst]).code, 0, "zstd -t");
          assert.ok(system("zstd", ["-q", "-dc", zst]).stdout.equals(INPUT), "zstd -dc gives the input");
        } else {
          const zstd = readFileSync(zst);
          assert.equal(zstd.readUInt32LE(0), 0xfd2fb528, "a zstd frame");
          assert.ok(zstd.length < INPUT.length / 2, `compressed: ${zstd.length} bytes`);
        }
        await run("zstd", implementation, data.dir, ["-T2", "-q", "-d", "-f", "/data/in.bin.zst", "-o", "/data/back.bin"]);
        if (SYSTEM_TOOLS) {
          assert.equal(system("cmp", [join(data.dir, "back.bin"), join(data.dir, "in.bin")]).code, 0, "cmp");
        } else {
          assert.ok(readFileSync(join(data.dir, "back.bin")).equals(INPUT), "zstd -d gives the input");
        }
      } finally {
        data.remove();
      }
    });
  });
}
