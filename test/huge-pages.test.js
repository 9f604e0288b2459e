// The program's memory is advised to the OS for huge pages (lib/program/memory.js,
// src/os/wtp_memory.h): on Linux, where the kernel has transparent huge pages,
// the mapping behind a program's memory carries the advice ("hg" in its
// /proc/self/smaps flags) as soon as makeProgramMemory made it, reserved or
// not; WASI_THREAD_POOL_HUGE_PAGES=0 leaves it without; a bad value is a
// RangeError naming the variable. Elsewhere (and without the addon) nothing
// is advised. The C side: test/c/test_memory.c.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { native } from "../lib/native/binding.js";
import { adviseHugePages, hugePagesWanted, makeProgramMemory } from "../lib/program/memory.js";

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

  test("the binding takes only a Uint8Array", { skip: native.binding === null && "no addon" }, () => {
    for (const bad of [undefined, {}, new Int32Array(4), new SharedArrayBuffer(8)]) {
      assert.throws(() => native.binding.adviseHugePages(bad), { name: "TypeError", message: /Uint8Array/ });
    }
    assert.equal(native.binding.adviseHugePages(new Uint8Array(0)), false);
  });
});
