// The binding of the program's C WASI (src/node/binding_wasi.c): its
// argument errors, one WASI seen from several workers (an fd opened on one
// is read on another; a stop ends a read blocked on another), the guest
// memory view (a non-shared memory that grows and moves, a shared one that
// grows), hostile pointers (EFAULT, and nothing done), and the references
// (a worker's end drops its own; the last release closes the descriptors).

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

import { native } from "../lib/native/binding.js";

const binding = native.binding;
const HAS_WASI = typeof binding?.wasiCreate === "function";
const BINDING_URL = new URL("../lib/native/binding.js", import.meta.url).href;

const EFAULT = 21;
const RIGHTS_ALL = 0x1fffffffn;
const CLOCK_MONOTONIC = 1;
const PAGE = 65536;

// Runs `body` (the text of an async function of (b, data, post)) in a
// worker that loaded the addon; resolves with the worker's messages when
// it exits.
function inWorker(body, workerData, onMessage = () => {}) {
  const source = `
    const { workerData, parentPort } = require("node:worker_threads");
    (async () => {
      const { native } = await import(workerData.bindingUrl);
      const post = (m) => parentPort.postMessage(m);
      await (async (b, data, post) => { ${body} })(native.binding, workerData, post);
    })().catch((error) => parentPort.postMessage({ error: String(error?.stack ?? error) }));
  `;
  const worker = new Worker(source, { eval: true, workerData: { ...workerData, bindingUrl: BINDING_URL } });
  const messages = [];
  const done = new Promise((resolve, reject) => {
    worker.on("message", (m) => {
      messages.push(m);
      onMessage(m, worker);
    });
    worker.on("error", reject);
    worker.on("exit", () => resolve(messages));
  });
  return { worker, done };
}

// Writes a string into memory at ptr; returns its length.
function put(memory, ptr, text) {
  const bytes = new TextEncoder().encode(text);
  new Uint8Array(memory.buffer).set(bytes, ptr);
  return bytes.length;
}

function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), "wtp-binding-wasi-"));
  return Promise.resolve(fn(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

function parks() {
  throw new Error("onStopped: the test did not expect a stop");
}

describe("the program WASI's binding", { skip: HAS_WASI ? false : "no C WASI in this addon (Windows, or no addon)" }, () => {
  it("refuses bad arguments with TypeError or RangeError naming them", () => {
    assert.throws(() => binding.wasiCreate(), { name: "TypeError", message: /options must be an object/ });
    assert.throws(() => binding.wasiCreate({ args: "x" }), { name: "TypeError", message: /options\.args must be an array/ });
    assert.throws(() => binding.wasiCreate({ args: ["a", 1] }), {
      name: "TypeError",
      message: /options\.args\[1\] must be a string/,
    });
    assert.throws(() => binding.wasiCreate({ args: ["a\0b"] }), {
      name: "TypeError",
      message: /options\.args\[0\] contains a NUL/,
    });
    assert.throws(() => binding.wasiCreate({ env: ["A=1", "B=\0"] }), {
      name: "TypeError",
      message: /options\.env\[1\] contains a NUL/,
    });
    assert.throws(() => binding.wasiCreate({ preopens: [["/a"]] }), { name: "TypeError", message: /options\.preopens/ });
    assert.throws(() => binding.wasiCreate({ preopens: [["/a", 3]] }), {
      name: "TypeError",
      message: /options\.preopens\[0\]\[1\]/,
    });
    assert.throws(() => binding.wasiCreate({ stdio: [0, 1] }), { name: "TypeError", message: /options\.stdio/ });
    assert.throws(() => binding.wasiCreate({ stdio: [0, -2, 2] }), { name: "RangeError", message: /options\.stdio\[1\]/ });
    assert.throws(() => binding.wasiCreate({ stdio: [0, 1.5, 2] }), { name: "RangeError", message: /options\.stdio\[1\]/ });
    assert.throws(() => binding.wasiImports("1", new WebAssembly.Memory({ initial: 1 }), parks), {
      name: "TypeError",
      message: /wasiImports: id/,
    });
    assert.throws(() => binding.wasiImports(0, new WebAssembly.Memory({ initial: 1 }), parks), {
      name: "RangeError",
      message: /wasiImports: id/,
    });
    assert.throws(() => binding.wasiStop(-1), { name: "RangeError", message: /wasiStop: id/ });
    assert.throws(() => binding.wasiRelease(null), { name: "TypeError", message: /wasiRelease: id/ });
    assert.throws(() => binding.wasiDetach({}), { name: "TypeError", message: /wasiDetach/ });

    const id = binding.wasiCreate({ stdio: [-1, -1, -1] });
    try {
      assert.throws(() => binding.wasiImports(id, {}, parks), {
        name: "TypeError",
        message: /memory must be a WebAssembly\.Memory/,
      });
      assert.throws(() => binding.wasiImports(id, { buffer: new SharedArrayBuffer(PAGE) }, parks), {
        name: "TypeError",
        message: /memory must be a WebAssembly\.Memory/,
      });
      assert.throws(() => binding.wasiImports(id, new WebAssembly.Memory({ initial: 1 }), 3), {
        name: "TypeError",
        message: /onStopped must be a function/,
      });
      const wasi = binding.wasiImports(id, new WebAssembly.Memory({ initial: 1 }), parks);
      assert.throws(() => wasi.clock_time_get(CLOCK_MONOTONIC, 1, 0), {
        name: "TypeError",
        message: /clock_time_get: argument 1 must be a BigInt/,
      });
      assert.throws(() => wasi.fd_close("x"), { name: "TypeError", message: /fd_close: argument 0 must be a Number/ });
      binding.wasiDetach(wasi);
      binding.wasiDetach(wasi); // idempotent
      assert.throws(() => wasi.fd_close(0), /after its thread detached/);
    } finally {
      binding.wasiRelease(id);
    }
    binding.wasiRelease(id); // a released id: nothing
    assert.throws(() => binding.wasiImports(id, new WebAssembly.Memory({ initial: 1 }), parks), {
      name: "RangeError",
      message: /names no WASI/,
    });
  });

  it("a preopen that cannot be opened is an Error naming it", () =>
    withTempDir((dir) => {
      const missing = join(dir, "missing");
      assert.throws(
        () => binding.wasiCreate({ preopens: [["/data", missing]] }),
        (error) => {
          assert.equal(error.name, "Error");
          assert.match(error.message, /missing/);
          return true;
        },
      );
      const file = join(dir, "file");
      writeFileSync(file, "x");
      assert.throws(() => binding.wasiCreate({ preopens: [["/data", file]] }), /file/);
    }));

  it("an fd opened by a thread in one worker is read by a thread in another", () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, "shared.txt"), "one table for the program\n");
      const id = binding.wasiCreate({ args: ["t"], preopens: [["/data", dir]], stdio: [-1, -1, -1] });
      try {
        const opener = inWorker(
          `
          const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
          const wasi = b.wasiImports(data.id, memory, () => { throw new Error("stopped"); });
          const path = new TextEncoder().encode("shared.txt");
          new Uint8Array(memory.buffer).set(path, 64);
          const errno = wasi.path_open(3, 0, 64, path.length, 0, ${RIGHTS_ALL}n, ${RIGHTS_ALL}n, 0, 16);
          post({ errno, fd: new DataView(memory.buffer).getUint32(16, true) });
          `,
          { id },
        );
        const [opened] = await opener.done;
        assert.equal(opened.error, undefined, opened.error);
        assert.equal(opened.errno, 0);
        assert.notEqual(opened.fd, 3); // the lowest free number (fds 0-2 are closed here)
        const reader = inWorker(
          `
          const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
          const wasi = b.wasiImports(data.id, memory, () => { throw new Error("stopped"); });
          const view = new DataView(memory.buffer);
          view.setUint32(0, 256, true);
          view.setUint32(4, 100, true);
          const errno = wasi.fd_read(data.fd, 0, 1, 8);
          const n = view.getUint32(8, true);
          post({ errno, text: new TextDecoder().decode(new Uint8Array(memory.buffer, 256, n)) });
          `,
          { id, fd: opened.fd },
        );
        const [read] = await reader.done;
        assert.equal(read.error, undefined, read.error);
        assert.deepEqual(read, { errno: 0, text: "one table for the program\n" });
      } finally {
        binding.wasiRelease(id);
      }
    }));

  it("wasiStop ends a read blocked in another worker, which never returns to the guest", async () => {
    const [readFd, writeFd] = binding.pipe();
    const id = binding.wasiCreate({ stdio: [readFd, -1, -1] });
    closeSync(readFd);
    try {
      let stopAt = 0;
      const blocked = inWorker(
        `
        const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
        const wasi = b.wasiImports(data.id, memory, () => { post({ stopped: true }); throw new Error("parked"); });
        const view = new DataView(memory.buffer);
        view.setUint32(0, 256, true);
        view.setUint32(4, 100, true);
        post({ reading: true });
        try {
          post({ returned: wasi.fd_read(0, 0, 1, 8) });
        } catch (error) {
          post({ threw: error.message });
        }
        `,
        { id },
        (m) => {
          if (m.reading) {
            // Long enough for the read to block; then stop.
            setTimeout(() => {
              stopAt = performance.now();
              binding.wasiStop(id);
            }, 300);
          }
        },
      );
      const messages = await blocked.done;
      const ended = performance.now();
      assert.deepEqual(messages, [{ reading: true }, { stopped: true }, { threw: "parked" }]);
      assert.ok(stopAt > 0 && ended - stopAt < 5000, `ended ${ended - stopAt} ms after the stop`);
    } finally {
      binding.wasiRelease(id);
      closeSync(writeFd);
    }
  });

  it("a non-shared memory that grows (and may move) between calls is seen at its new place", () => {
    const id = binding.wasiCreate({ stdio: [-1, -1, -1] });
    try {
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 64 });
      const wasi = binding.wasiImports(id, memory, parks);
      assert.equal(wasi.clock_time_get(CLOCK_MONOTONIC, 1n, PAGE + 8), EFAULT);
      for (let pages = 1; pages < 40; pages += 13) {
        memory.grow(13); // detaches the old ArrayBuffer; V8 may move the memory
        const at = (pages + 12) * PAGE + 16;
        assert.equal(wasi.clock_time_get(CLOCK_MONOTONIC, 1n, at), 0);
        assert.ok(new DataView(memory.buffer).getBigUint64(at, true) > 0n);
      }
      binding.wasiDetach(wasi);
    } finally {
      binding.wasiRelease(id);
    }
  });

  it("a shared memory grown after the view was taken: EFAULT refreshes it and the call is made again", () => {
    const id = binding.wasiCreate({ stdio: [-1, -1, -1] });
    try {
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 8, shared: true });
      const wasi = binding.wasiImports(id, memory, parks);
      memory.grow(2);
      const at = 2 * PAGE + 40;
      assert.equal(wasi.clock_time_get(CLOCK_MONOTONIC, 1n, at), 0);
      assert.ok(new DataView(memory.buffer).getBigUint64(at, true) > 0n);
      assert.equal(wasi.clock_time_get(CLOCK_MONOTONIC, 1n, 3 * PAGE - 4), EFAULT);
      binding.wasiDetach(wasi);
    } finally {
      binding.wasiRelease(id);
    }
  });

  it("hostile pointers answer EFAULT and do nothing", () =>
    withTempDir((dir) => {
      const out = join(dir, "out");
      const fd = openSync(out, "w");
      const id = binding.wasiCreate({ stdio: [-1, fd, -1] });
      closeSync(fd);
      try {
        const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
        const wasi = binding.wasiImports(id, memory, parks);
        const view = new DataView(memory.buffer);
        const length = put(memory, 1024, "must not appear");
        // iovs: one good buffer, then one past the end of memory.
        view.setUint32(0, 1024, true);
        view.setUint32(4, length, true);
        view.setUint32(8, PAGE - 4, true);
        view.setUint32(12, 8, true);
        assert.equal(wasi.fd_write(1, 0, 2, 64), EFAULT);
        // The iovec array itself out of bounds, as a negative i32 and as a huge count.
        assert.equal(wasi.fd_write(1, -8, 1, 64), EFAULT);
        assert.equal(wasi.fd_write(1, 0, 0x7fffffff, 64), EFAULT);
        // The result word out of bounds (the write would succeed otherwise).
        assert.equal(wasi.fd_write(1, 0, 1, PAGE - 2), EFAULT);
        assert.equal(wasi.clock_time_get(CLOCK_MONOTONIC, 1n, -1), EFAULT);
        assert.equal(wasi.args_sizes_get(PAGE, 0), EFAULT);
        assert.equal(statSync(out).size, 0);
        // And a good call still works.
        assert.equal(wasi.fd_write(1, 0, 1, 64), 0);
        assert.equal(view.getUint32(64, true), length);
        assert.equal(readFileSync(out, "utf8"), "must not appear");
        binding.wasiDetach(wasi);
      } finally {
        binding.wasiRelease(id);
      }
    }));

  it("a worker's end drops its reference; the last release closes the program's descriptors", async () => {
    const [readFd, writeFd] = binding.pipe();
    const id = binding.wasiCreate({ stdio: [-1, writeFd, -1] });
    closeSync(writeFd);
    const source = new Socket({ fd: readFd, readable: true, writable: false });
    let text = "";
    source.setEncoding("utf8");
    source.on("data", (chunk) => (text += chunk));
    const eof = new Promise((resolve) => source.once("end", resolve));
    try {
      const writer = inWorker(
        `
        const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
        const wasi = b.wasiImports(data.id, memory, () => { throw new Error("stopped"); });
        const bytes = new TextEncoder().encode("from a worker\\n");
        new Uint8Array(memory.buffer).set(bytes, 100);
        const view = new DataView(memory.buffer);
        view.setUint32(0, 100, true);
        view.setUint32(4, bytes.length, true);
        post({ errno: wasi.fd_write(1, 0, 1, 8) });
        // exits attached: its env's cleanup releases
        `,
        { id },
      );
      assert.deepEqual(await writer.done, [{ errno: 0 }]);
    } finally {
      binding.wasiRelease(id);
    }
    let timer;
    const result = await Promise.race([
      eof.then(() => "eof"),
      new Promise((resolve) => (timer = setTimeout(() => resolve("no end of file"), 10000))),
    ]);
    clearTimeout(timer);
    source.destroy();
    assert.equal(result, "eof");
    assert.equal(text, "from a worker\n");
  });
});

// The runner's link check (lib/program/link.js) accepts a preview1 import
// exactly when the program's WASI can serve it: the C WASI's import object is
// the check's table less proc_exit (which the runner's JS provides), and each
// import takes the table's parameters (an i64 a BigInt, an i32 a Number; one
// of the other kind, or one fewer, throws). Every call here is on a bad fd or
// out of a one-page memory, so each returns an errno at once.
describe("the link check and the C WASI", { skip: HAS_WASI ? false : "no C WASI in this addon (Windows, or no addon)" }, () => {
  it("provide the same preview1 functions with the same parameter types", async () => {
    const { PREVIEW1_SIGNATURES } = await import("../lib/program/link.js");
    const id = binding.wasiCreate({ stdio: [-1, -1, -1] });
    const wasi = binding.wasiImports(id, new WebAssembly.Memory({ initial: 1 }), () => {
      throw new Error("stopped");
    });
    try {
      const expected = Object.keys(PREVIEW1_SIGNATURES).filter((name) => name !== "proc_exit");
      assert.deepEqual(Object.keys(wasi).sort(), expected.sort());
      const BAD = 0xffff; // no fd, and a range past the page's end
      const argsOf = (params) => params.map((type) => (type === "i64" ? 0n : BAD));
      for (const name of expected) {
        const { params } = PREVIEW1_SIGNATURES[name];
        assert.equal(typeof wasi[name](...argsOf(params)), "number", name);
        params.forEach((type, i) => {
          const wrong = argsOf(params);
          wrong[i] = type === "i64" ? BAD : 0n;
          assert.throws(() => wasi[name](...wrong), { name: "TypeError", message: /must be a/ }, `${name} argument ${i}`);
        });
        if (params.length > 0) {
          assert.throws(() => wasi[name](...argsOf(params).slice(0, -1)), { name: "TypeError" }, `${name} one argument short`);
        }
      }
    } finally {
      binding.wasiDetach(wasi);
      binding.wasiRelease(id);
    }
  });
});
