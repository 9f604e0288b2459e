// The browser program runner's one WASI (lib/program/browser/wasi.js over
// memfs.js), called directly under Node: hostile guest paths never leave
// their directory (EPERM, as the C WASI's sandbox), every pointer and length
// is checked against the memory (EFAULT, ENAMETOOLONG, EINVAL, EILSEQ) and
// nothing is changed by a refused call; the page's objects get the files
// back. Whole programs in a page: test/browser-program.test.js.

import assert from "node:assert/strict";
import { test } from "node:test";

import { createProgramWasi } from "../lib/program/browser/wasi.js";
import { readTree, writeBack } from "../lib/program/browser/memfs.js";

const EPERM = 63;
const EFAULT = 21;
const EBADF = 8;
const ENOENT = 44;
const EINVAL = 28;
const EILSEQ = 25;
const ENAMETOOLONG = 37;
const ALL = (1n << 64n) - 1n;
const OFLAGS_CREAT = 1;
const SCRATCH = 4096; // guest bytes the test writes its strings at

function setUp() {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true });
  const other = { "secret.txt": "secret" };
  const data = { "in.txt": "inside", sub: { "deep.txt": "deep" } };
  const preopens = [
    ["/data", readTree(data, "data")],
    ["/other", readTree(other, "other")],
  ];
  const out = [];
  const wasi = createProgramWasi({
    memory,
    args: ["t"],
    env: [],
    preopens,
    stdin: { read: () => new Uint8Array(0) },
    output: (fd, bytes) => out.push([fd, bytes]),
  });
  const u8 = () => new Uint8Array(memory.buffer);
  const put = (bytes, at = SCRATCH) => {
    u8().set(bytes, at);
    return [at, bytes.length];
  };
  const path = (text) => put(new TextEncoder().encode(text));
  const call = (name, ...args) =>
    wasi.call(
      name,
      args.map((a) => BigInt(a)),
    );
  // path_open in the first preopen (fd 3); the new fd at guest address 0.
  const open = (text, oflags = 0, rights = ALL) => {
    const [p, n] = path(text);
    const errno = call("path_open", 3, 0, p, n, oflags, BigInt.asIntN(64, rights), BigInt.asIntN(64, rights), 0, 0);
    return { errno, fd: new DataView(memory.buffer).getUint32(0, true) };
  };
  return { memory, wasi, data, other, preopens, call, open, path, put, u8, out };
}

test("no path leaves its preopen: absolute, .., .. past the top, into the other preopen", () => {
  const { open, call, path, other, preopens } = setUp();
  for (const escape of ["/other/secret.txt", "..", "../other/secret.txt", "sub/../../other/secret.txt", "sub/../..", "./../x"]) {
    assert.equal(open(escape).errno, EPERM, escape);
    assert.equal(open(escape, OFLAGS_CREAT).errno, EPERM, `${escape} (O_CREAT)`);
    const [p, n] = path(escape);
    assert.equal(call("path_create_directory", 3, p, n), EPERM, `mkdir ${escape}`);
    assert.equal(call("path_unlink_file", 3, p, n), EPERM, `unlink ${escape}`);
    assert.equal(call("path_filestat_get", 3, 0, p, n, 0), EPERM, `stat ${escape}`);
  }
  // What stays inside works.
  assert.equal(open("sub/../in.txt").errno, 0);
  assert.equal(open("sub/./deep.txt").errno, 0);
  writeBack(preopens[1][1]);
  assert.deepEqual(Object.keys(other), ["secret.txt"]);
});

test("pointers, lengths and bytes of a path are checked: EFAULT, ENAMETOOLONG, EINVAL, EILSEQ, EBADF", () => {
  const { call, put, memory } = setUp();
  const size = memory.buffer.byteLength;
  assert.equal(call("path_open", 3, 0, size - 2, 8, 0, 0, 0, 0, 0), EFAULT);
  assert.equal(call("path_open", 3, 0, 0xffffffff, 0xffffffff, 0, 0, 0, 0, 0), ENAMETOOLONG);
  assert.equal(call("path_open", 3, 0, SCRATCH, 4, 0, 0, 0, 0, size), EFAULT);
  const [p1, n1] = put(new Uint8Array([0x61, 0, 0x62]));
  assert.equal(call("path_open", 3, 0, p1, n1, 0, 0, 0, 0, 0), EINVAL);
  const [p2, n2] = put(new Uint8Array([0x61, 0xff, 0x62]));
  assert.equal(call("path_open", 3, 0, p2, n2, 0, 0, 0, 0, 0), EILSEQ);
  // An iovec list or an iovec past the end of memory.
  assert.equal(call("fd_write", 1, size - 4, 1, 0), EFAULT);
  new DataView(memory.buffer).setUint32(SCRATCH, size - 2, true);
  new DataView(memory.buffer).setUint32(SCRATCH + 4, 8, true);
  assert.equal(call("fd_write", 1, SCRATCH, 1, 0), EFAULT);
  assert.equal(call("fd_read", 0xffffffff, SCRATCH, 1, 0), EBADF);
  assert.equal(call("fd_close", -1), EBADF);
  assert.equal(call("fd_prestat_dir_name", 3, size - 1, 5), EFAULT);
  assert.equal(call("poll_oneoff", SCRATCH, 0, 0, 0), EINVAL);
  assert.equal(call("poll_oneoff", size - 8, 0, 1, 0), EFAULT);
  assert.equal(call("args_get", size - 2, 0), EFAULT);
  assert.equal(call("no_such_call"), 52);
});

test("a refused call changes nothing; what the program wrote goes back into the page's objects", () => {
  const { open, call, put, data, preopens } = setUp();
  assert.equal(open("missing.txt").errno, ENOENT);
  const made = open("new.txt", OFLAGS_CREAT);
  assert.equal(made.errno, 0);
  const [p, n] = put(new TextEncoder().encode("written"), SCRATCH + 64);
  const iov = new DataView(new ArrayBuffer(8));
  iov.setUint32(0, p, true);
  iov.setUint32(4, n, true);
  put(new Uint8Array(iov.buffer), SCRATCH);
  assert.equal(call("fd_write", made.fd, SCRATCH, 1, 16), 0);
  assert.equal(call("fd_close", made.fd), 0);
  const [q, m] = put(new TextEncoder().encode("sub/deep.txt"));
  assert.equal(call("path_unlink_file", 3, q, m), 0);
  writeBack(preopens[0][1]);
  assert.deepEqual(Object.keys(data).sort(), ["in.txt", "new.txt", "sub"]);
  assert.equal(new TextDecoder().decode(data["new.txt"]), "written");
  assert.equal(data["in.txt"], "inside"); // unchanged: the page's own value
  assert.deepEqual(data.sub, {});
});

test("preopens are checked at the boundary: a TypeError naming the entry", () => {
  assert.throws(() => readTree({ a: 5 }, 'preopens["/d"]'), { name: "TypeError", message: /preopens\["\/d"\]\/a/ });
  assert.throws(() => readTree([], "p"), { name: "TypeError" });
  assert.throws(() => readTree({ "a/b": "x" }, "p"), { name: "TypeError", message: /"a\/b"/ });
  const loop = {};
  loop.self = loop;
  assert.throws(() => readTree(loop, "p"), { name: "TypeError", message: /its own ancestor/ });
});
