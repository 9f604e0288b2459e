// The program's memory is advised to the OS for huge pages (lib/program/memory.js,
// src/os/wtp_memory.h): on Linux, where the kernel has transparent huge pages,
// the mapping behind a program's memory carries the advice ("hg" in its
// /proc/self/smaps flags) as soon as makeProgramMemory made it, reserved or
// not; WASI_THREAD_POOL_HUGE_PAGES=0 leaves it without; a bad value is a
// RangeError naming the variable. Elsewhere (and without the addon) nothing
// is advised. A finished program's memory given back (releaseProgramMemory)
// is no longer resident (the Rss of its mapping), reads zero and takes
// writes. The C side: test/c/test_memory.c.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
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

  test("a program's memory, reserved or not, is advised where it is made", { skip: linuxSkip }, () => {
    for (const reserved of [true, false]) {
      const before = advisedMappings();
      const { memory } = makeProgramMemory(PAGES, reserved);
      assert.ok(added(before).length >= 1, `reserved: ${reserved}: no mapping took the advice`);
      new Uint8Array(memory.buffer).fill(7); // still plain memory
      assert.equal(new Uint8Array(memory.buffer)[memory.buffer.byteLength - 1], 7);
    }
  });

  test("WASI_THREAD_POOL_HUGE_PAGES=0: no advice", { skip: linuxSkip }, () => {
    const memory = new WebAssembly.Memory({ ...PAGES, shared: true });
    const before = advisedMappings();
    assert.equal(adviseHugePages(memory, { WASI_THREAD_POOL_HUGE_PAGES: "0" }), false);
    assert.deepEqual(added(before), []);
    assert.equal(adviseHugePages(memory, {}), true);
    assert.ok(added(before).length >= 1);
  });

  test("a finished program's memory goes back to the OS: no longer resident, zero, still writable", { skip: linuxSkip }, () => {
    const before = advisedMappings();
    const { memory } = makeProgramMemory(PAGES, true);
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
