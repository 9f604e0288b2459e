// The program's memory is advised to the OS for huge pages (lib/program/memory.js,
// src/os/wtp_memory.h): on Linux, where the kernel has transparent huge pages,
// the mapping behind a program's memory carries the advice ("hg" in its
// /proc/self/smaps flags) as soon as makeProgramMemory made it, reserved or
// not; WASI_THREAD_POOL_HUGE_PAGES=0 leaves it without; a bad value is a
// RangeError naming the variable. Where the kernel hands free huge pages
// back to a hypervisor (free page reporting: a virtio balloon that
// negotiated it, reporting blocks no larger than a huge page) nothing is
// advised unless WASI_THREAD_POOL_HUGE_PAGES=1 asks for it. Elsewhere (and
// without the addon) nothing is advised. A finished program's memory given back (releaseProgramMemory)
// is no longer resident (the Rss of its mapping), reads zero and takes
// writes. The C side: test/c/test_memory.c.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { native } from "../lib/native/binding.js";
import { adviseHugePages, hugePagesWanted, makeProgramMemory, releaseProgramMemory } from "../lib/program/memory.js";

const THP = "/sys/kernel/mm/transparent_hugepage/enabled";
const linuxSkip =
  process.platform !== "linux"
    ? "Linux only (the other OSes take no such advice)"
    : native.binding === null
      ? `the addon did not load: ${native.error}`
      : !existsSync(THP) && `no ${THP}: this kernel has no transparent huge pages`;

// The mappings of this process whose flags hold the huge page advice: their
// address ranges.
function advisedMappings() {
  const ranges = new Set();
  let range = null;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^([0-9a-f]+-[0-9a-f]+) /.exec(line);
    if (head) range = head[1];
    else if (line.startsWith("VmFlags:") && / hg\b/.test(line)) ranges.add(range);
  }
  return ranges;
}

// The resident KiB of the mapping whose address range is `range`.
function residentKiB(range) {
  let inside = false;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^([0-9a-f]+-[0-9a-f]+) /.exec(line);
    if (head) inside = head[1] === range;
    else if (inside && line.startsWith("Rss:")) return Number(/(\d+) kB/.exec(line)[1]);
  }
  return -1;
}

// Whether this machine's kernel reports free huge pages to a hypervisor,
// read here as the C side reads it (src/os/memory_linux.c; test_memory.c
// holds it to made-up trees).
function freeHugePagesReported() {
  const read = (path) => (existsSync(path) ? readFileSync(path, "utf8").trim() : null);
  const hpage = Number(read("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"));
  const balloons = "/sys/bus/virtio/drivers/virtio_balloon";
  const devices = existsSync(balloons) ? readdirSync(balloons).filter((name) => name.startsWith("virtio")) : [];
  const reporting = devices.some((name) => read(`${balloons}/${name}/features`)?.[5] === "1");
  const order = read("/sys/module/page_reporting/parameters/page_reporting_order");
  return hpage >= 4096 && reporting && (order === null || 4096 * 2 ** Number(order) <= hpage);
}
const reported = linuxSkip ? false : freeHugePagesReported();

// Runs fn with WASI_THREAD_POOL_HUGE_PAGES set to value (undefined: unset).
function withHugePagesEnv(value, fn) {
  const saved = process.env.WASI_THREAD_POOL_HUGE_PAGES;
  if (value === undefined) delete process.env.WASI_THREAD_POOL_HUGE_PAGES;
  else process.env.WASI_THREAD_POOL_HUGE_PAGES = value;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.WASI_THREAD_POOL_HUGE_PAGES;
    else process.env.WASI_THREAD_POOL_HUGE_PAGES = saved;
  }
}

const added = (before) => [...advisedMappings()].filter((r) => !before.has(r));
const PAGES = { initial: 16, maximum: 64 }; // 4 MiB at its maximum

describe("the program's memory and huge pages", () => {
  test("WASI_THREAD_POOL_HUGE_PAGES is 0 or 1 (unset: on); anything else is a RangeError naming it", () => {
    assert.equal(hugePagesWanted({}), true);
    assert.equal(hugePagesWanted({ WASI_THREAD_POOL_HUGE_PAGES: "1" }), true);
    assert.equal(hugePagesWanted({ WASI_THREAD_POOL_HUGE_PAGES: "0" }), false);
    assert.throws(() => hugePagesWanted({ WASI_THREAD_POOL_HUGE_PAGES: "yes" }), {
      name: "RangeError",
      message: /WASI_THREAD_POOL_HUGE_PAGES must be 0 or 1/,
    });
  });

  test(
    "a program's memory, reserved or not, is advised where it is made, unless free huge pages go to a hypervisor",
    { skip: linuxSkip },
    () => {
      for (const [value, advised] of [
        [undefined, !reported],
        ["1", true],
      ]) {
        for (const reserved of [true, false]) {
          const before = advisedMappings();
          const { memory } = withHugePagesEnv(value, () => makeProgramMemory(PAGES, reserved));
          const what = `HUGE_PAGES=${value}, reserved: ${reserved}, reported: ${reported}`;
          assert.equal(added(before).length >= 1, advised, `${what}: advised should be ${advised}`);
          new Uint8Array(memory.buffer).fill(7); // still plain memory
          assert.equal(new Uint8Array(memory.buffer)[memory.buffer.byteLength - 1], 7);
        }
      }
    },
  );

  test("the addon sees free page reporting as this machine has it", { skip: linuxSkip }, () => {
    assert.equal(native.binding.freeHugePagesReported(), reported);
  });

  test("WASI_THREAD_POOL_HUGE_PAGES=0: no advice", { skip: linuxSkip }, () => {
    const memory = new WebAssembly.Memory({ ...PAGES, shared: true });
    const before = advisedMappings();
    assert.equal(adviseHugePages(memory, { WASI_THREAD_POOL_HUGE_PAGES: "0" }), false);
    assert.deepEqual(added(before), []);
    assert.equal(adviseHugePages(memory, {}), !reported);
    assert.equal(added(before).length >= 1, !reported);
    assert.equal(adviseHugePages(memory, { WASI_THREAD_POOL_HUGE_PAGES: "1" }), true);
    assert.ok(added(before).length >= 1);
  });

  test("a finished program's memory goes back to the OS: no longer resident, zero, still writable", { skip: linuxSkip }, () => {
    const before = advisedMappings();
    const { memory } = withHugePagesEnv("1", () => makeProgramMemory(PAGES, true)); // its mapping found by the advice
    const [range] = added(before);
    const bytes = new Uint8Array(memory.buffer);
    bytes.fill(9);
    assert.ok(residentKiB(range) >= 4096, `${residentKiB(range)} KiB resident after the fill`);
    assert.equal(releaseProgramMemory(memory), true);
    assert.ok(residentKiB(range) < 1024, `${residentKiB(range)} KiB resident after the release`);
    assert.equal(bytes[0], 0);
    assert.equal(bytes[bytes.length - 1], 0);
    bytes[12345] = 3;
    assert.equal(bytes[12345], 3);
    assert.equal(releaseProgramMemory(null), false);
  });

  test("the binding takes only a Uint8Array", { skip: native.binding === null && "no addon" }, () => {
    for (const call of ["adviseHugePages", "releasePages"]) {
      for (const bad of [undefined, {}, new Int32Array(4), new SharedArrayBuffer(8)]) {
        assert.throws(() => native.binding[call](bad), {
          name: "TypeError",
          message: new RegExp(`${call}: view must be a Uint8Array`),
        });
      }
      assert.equal(native.binding[call](new Uint8Array(0)), false);
    }
  });
});
