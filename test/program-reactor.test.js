// Reactors (docs/api.md, "Reactors"): a module with _initialize and exported
// functions, instantiated on the caller's thread with its thread pool, its
// exports called from the main thread. The recipe of the docs, as a test:
// the memory from describeWasiThreadsMemory, the host from
// createWasiThreadSpawn, the main instance from createWasiThreadWorkerRuntime.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compileWasiThreadGuest,
  createWasiThreadSpawn,
  createWasiThreadWorkerRuntime,
  describeWasiThreadsMemory,
} from "../lib/index.js";
import { watToBytes } from "./fixtures/build.js";
import { IMPLEMENTATIONS } from "./support/impls.js";

// Memory imported as "a" "b". _initialize stores 1000 at BASE (8);
// sum(n) spawns n threads, thread i adds BASE + i to SUM (0), and joins them
// on PENDING (4); it returns SUM.
const REACTOR = `(module
  (import "a" "b" (memory 1 2 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (func (export "_initialize") (i32.store (i32.const 8) (i32.const 1000)))
  (func (export "wasi_thread_start") (param $tid i32) (param $i i32)
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.add (i32.atomic.load (i32.const 8)) (local.get $i))))
    (drop (i32.atomic.rmw.sub (i32.const 4) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 4) (i32.const -1))))
  (func (export "sum") (param $n i32) (result i32)
    (local $i i32) (local $v i32)
    (i32.atomic.store (i32.const 0) (i32.const 0))
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
        (drop (i32.atomic.rmw.add (i32.const 4) (i32.const 1)))
        (if (i32.lt_s (call $spawn (local.get $i)) (i32.const 1)) (then (unreachable)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (block $done
      (loop $again
        (local.set $v (i32.atomic.load (i32.const 4)))
        (br_if $done (i32.eqz (local.get $v)))
        (drop (memory.atomic.wait32 (i32.const 4) (local.get $v) (i64.const -1)))
        (br $again)))
    (i32.atomic.load (i32.const 0))))`;

for (const implementation of IMPLEMENTATIONS) {
  test(`a reactor's exports run threads from the main thread (${implementation})`, async () => {
    const bytes = await watToBytes(REACTOR, "reactor.wat");
    const { initial, maximum } = describeWasiThreadsMemory(bytes);
    const memory = new WebAssembly.Memory({ initial, maximum, shared: true });
    const wasmModule = await compileWasiThreadGuest(bytes);
    const processState = { args: ["reactor"], env: {} };
    const host = await createWasiThreadSpawn({ wasmModule, memory, processState, poolSize: 4, implementation });
    try {
      const main = createWasiThreadWorkerRuntime({ wasmModule, memory, processState, threadSpawn: host.threadSpawn });
      const { exports } = main.instantiate();
      exports._initialize();
      assert.equal(exports.sum(4), 4 * 1000 + (0 + 1 + 2 + 3));
      assert.equal(exports.sum(3), 3 * 1000 + (0 + 1 + 2));
      assert.equal(host.spawnReport().spawned, 7);
    } finally {
      await host.terminateAll();
    }
  });
}
