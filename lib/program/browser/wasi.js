// The one WASI preview1 of a browser program, on the page: its fd table, the
// in-memory file system (memfs.js) and stdio, carried out on the guest's
// shared memory for whichever thread asked (run.js takes the calls off the
// channel). Semantics follow the C WASI of the Node runner (src/wasi/):
// positions and O_APPEND are the descriptor's, shared by every thread; paths
// resolve beneath their directory descriptor and never above it (EPERM);
// every pointer and length is checked against the memory (EFAULT). A handler
// returns an errno, or a promise of one when it must wait for the page
// (stdin, a WritableStream, a sleep). Browser-safe.

import { E, MemDir, MemFile, PATH_MAX, nodeAt, nowNs, resolveAt } from "./memfs.js";

const ERRNO = {
  ...E,
  AGAIN: 6,
  MFILE: 33,
  NOSYS: 52,
  NOTSOCK: 57,
  NOTSUP: 58,
  OVERFLOW: 61,
  SPIPE: 70,
  IO: 29,
};

// stdio is never a terminal here: the C WASI's type for a pipe.
const FILETYPE_UNKNOWN = 0;
const FILETYPE_DIRECTORY = 3;
const FILETYPE_REGULAR_FILE = 4;

const OFLAGS_CREAT = 1;
const OFLAGS_DIRECTORY = 2;
const OFLAGS_EXCL = 4;
const OFLAGS_TRUNC = 8;
const FDFLAGS_APPEND = 1;

const R = (bit) => 1n << BigInt(bit);
const RIGHT = {
  FD_DATASYNC: R(0),
  FD_READ: R(1),
  FD_SEEK: R(2),
  FD_FDSTAT_SET_FLAGS: R(3),
  FD_SYNC: R(4),
  FD_TELL: R(5),
  FD_WRITE: R(6),
  FD_ADVISE: R(7),
  FD_ALLOCATE: R(8),
  PATH_CREATE_DIRECTORY: R(9),
  PATH_CREATE_FILE: R(10),
  PATH_LINK_SOURCE: R(11),
  PATH_LINK_TARGET: R(12),
  PATH_OPEN: R(13),
  FD_READDIR: R(14),
  PATH_RENAME_SOURCE: R(16),
  PATH_RENAME_TARGET: R(17),
  PATH_FILESTAT_GET: R(18),
  PATH_FILESTAT_SET_SIZE: R(19),
  PATH_FILESTAT_SET_TIMES: R(20),
  FD_FILESTAT_GET: R(21),
  FD_FILESTAT_SET_SIZE: R(22),
  FD_FILESTAT_SET_TIMES: R(23),
  PATH_REMOVE_DIRECTORY: R(25),
  PATH_UNLINK_FILE: R(26),
  POLL_FD_READWRITE: R(27),
};
const FILE_RIGHTS =
  RIGHT.FD_DATASYNC |
  RIGHT.FD_READ |
  RIGHT.FD_SEEK |
  RIGHT.FD_FDSTAT_SET_FLAGS |
  RIGHT.FD_SYNC |
  RIGHT.FD_TELL |
  RIGHT.FD_WRITE |
  RIGHT.FD_ADVISE |
  RIGHT.FD_ALLOCATE |
  RIGHT.FD_FILESTAT_GET |
  RIGHT.FD_FILESTAT_SET_SIZE |
  R(23) |
  RIGHT.POLL_FD_READWRITE;
const DIR_RIGHTS =
  RIGHT.FD_FDSTAT_SET_FLAGS |
  RIGHT.FD_SYNC |
  RIGHT.FD_ADVISE |
  (R(9) | R(10) | R(11) | R(12) | R(13) | R(14) | R(15) | R(16) | R(17) | R(18) | R(19) | R(20)) |
  RIGHT.FD_FILESTAT_GET |
  R(23) |
  R(24) |
  R(25) |
  R(26);
// What makes an opened file readable or writable (the C WASI's open_flags).
const READ_RIGHTS = RIGHT.FD_READ | RIGHT.FD_READDIR;
const WRITE_RIGHTS = RIGHT.FD_DATASYNC | RIGHT.FD_WRITE | RIGHT.FD_ALLOCATE | RIGHT.FD_FILESTAT_SET_SIZE;
const STDIN_RIGHTS = RIGHT.FD_READ | RIGHT.FD_FDSTAT_SET_FLAGS | RIGHT.FD_FILESTAT_GET | RIGHT.POLL_FD_READWRITE;
const STDOUT_RIGHTS = RIGHT.FD_WRITE | RIGHT.FD_FDSTAT_SET_FLAGS | RIGHT.FD_FILESTAT_GET | RIGHT.POLL_FD_READWRITE;

const u32 = (v) => Number(BigInt.asUintN(32, v));
const u64 = (v) => BigInt.asUintN(64, v);
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const MAX_FDS = 1 << 16;

// One memory access of a call: views over the memory's current buffer.
class Guest {
  constructor(memory) {
    const buffer = memory.buffer;
    this.u8 = new Uint8Array(buffer);
    this.view = new DataView(buffer);
  }

  ok(ptr, length) {
    return ptr + length <= this.u8.length;
  }

  bytes(ptr, length) {
    return this.ok(ptr, length) ? this.u8.subarray(ptr, ptr + length) : null;
  }

  // [{ptr, len}] of an iovec array, or null when any part is out of bounds.
  iovecs(ptr, count) {
    if (!this.ok(ptr, count * 8)) return null;
    const list = [];
    for (let i = 0; i < count; i++) {
      const buf = this.view.getUint32(ptr + 8 * i, true);
      const len = this.view.getUint32(ptr + 8 * i + 4, true);
      if (!this.ok(buf, len)) return null;
      list.push({ buf, len });
    }
    return list;
  }

  // The guest path as a string, or {errno}. Checked on a copy.
  path(ptr, length) {
    if (length > PATH_MAX) return { errno: ERRNO.NAMETOOLONG };
    const bytes = this.bytes(ptr, length);
    if (bytes === null) return { errno: ERRNO.FAULT };
    const copy = bytes.slice();
    if (copy.includes(0)) return { errno: ERRNO.INVAL };
    try {
      return { path: decoder.decode(copy) };
    } catch {
      return { errno: ERRNO.ILSEQ };
    }
  }
}

function filetypeOf(entry) {
  if (entry.kind === "dir") return FILETYPE_DIRECTORY;
  if (entry.kind === "file") return FILETYPE_REGULAR_FILE;
  return FILETYPE_UNKNOWN;
}

const FSTFLAGS_ATIM = 1;
const FSTFLAGS_ATIM_NOW = 2;
const FSTFLAGS_MTIM = 4;
const FSTFLAGS_MTIM_NOW = 8;

// fd_filestat_set_times / path_filestat_set_times on a node (null: stdio,
// which keeps no times): EINVAL for a time both given and "now".
function setTimes(node, atim, mtim, fstflags) {
  const flags = u32(fstflags);
  if ((flags & FSTFLAGS_ATIM && flags & FSTFLAGS_ATIM_NOW) || (flags & FSTFLAGS_MTIM && flags & FSTFLAGS_MTIM_NOW)) {
    return E.INVAL;
  }
  if (node === null) return E.SUCCESS;
  const now = nowNs();
  if (flags & FSTFLAGS_ATIM) node.atime = u64(atim);
  if (flags & FSTFLAGS_ATIM_NOW) node.atime = now;
  if (flags & FSTFLAGS_MTIM) node.mtime = u64(mtim);
  if (flags & FSTFLAGS_MTIM_NOW) node.mtime = now;
  return E.SUCCESS;
}

function nodeFiletype(node) {
  return node instanceof MemDir ? FILETYPE_DIRECTORY : FILETYPE_REGULAR_FILE;
}

function writeFilestat(g, ptr, node, filetype) {
  g.u8.fill(0, ptr, ptr + 64);
  g.view.setBigUint64(ptr + 8, BigInt(node?.ino ?? 0), true);
  g.view.setUint8(ptr + 16, filetype);
  g.view.setBigUint64(ptr + 24, BigInt(node?.nlink ?? 1), true);
  g.view.setBigUint64(ptr + 32, BigInt(node instanceof MemFile ? node.size : 0), true);
  g.view.setBigUint64(ptr + 40, node?.atime ?? 0n, true);
  g.view.setBigUint64(ptr + 48, node?.mtime ?? 0n, true);
  g.view.setBigUint64(ptr + 56, node?.mtime ?? 0n, true);
}

// createProgramWasi({memory, args, env, preopens: [[guestPath, MemDir]],
//   stdin: {read(max) -> Uint8Array | Promise<Uint8Array>}, output(fd, bytes)
//   -> void | Promise}) -> {call(name, args) -> errno | Promise<errno>}
export function createProgramWasi({ memory, args, env, preopens, stdin, output }) {
  const argBytes = args.map((a) => encoder.encode(`${a}\0`));
  const envBytes = env.map((e) => encoder.encode(`${e}\0`));
  const fds = [
    { kind: "stdin", rightsBase: STDIN_RIGHTS, rightsInheriting: 0n, flags: 0 },
    { kind: "stdout", fd: 1, rightsBase: STDOUT_RIGHTS, rightsInheriting: 0n, flags: FDFLAGS_APPEND },
    { kind: "stdout", fd: 2, rightsBase: STDOUT_RIGHTS, rightsInheriting: 0n, flags: FDFLAGS_APPEND },
  ];
  for (const [name, dir] of preopens) {
    fds.push({
      kind: "dir",
      node: dir,
      preopen: encoder.encode(name),
      rightsBase: DIR_RIGHTS,
      rightsInheriting: DIR_RIGHTS | FILE_RIGHTS,
      flags: 0,
    });
  }
  // One stdin read at a time, in the order asked (a blocked reader holds
  // the queue; others wait behind it).
  let stdinQueue = Promise.resolve();

  const entryOf = (fd) => fds[u32(fd)] ?? null;
  // The entry, or an errno: EBADF, or ENOTCAPABLE without `rights`.
  function take(fd, rights) {
    const entry = entryOf(fd);
    if (!entry) return ERRNO.BADF;
    if ((entry.rightsBase & rights) !== rights) return ERRNO.NOTCAPABLE;
    return entry;
  }
  // take() for the data calls: a directory is EISDIR whatever its rights.
  function takeData(fd, rights) {
    const entry = entryOf(fd);
    if (entry?.kind === "dir") return ERRNO.ISDIR;
    return take(fd, rights);
  }
  function freeFd() {
    for (let i = 3; i < MAX_FDS; i++) if (!fds[i]) return i;
    return -1;
  }

  function writeStrings(list, ptrsPtr, bufPtr) {
    const g = new Guest(memory);
    const total = list.reduce((n, b) => n + b.length, 0);
    if (!g.ok(ptrsPtr, list.length * 4) || !g.ok(bufPtr, total)) return ERRNO.FAULT;
    let at = bufPtr;
    list.forEach((bytes, i) => {
      g.view.setUint32(ptrsPtr + 4 * i, at, true);
      g.u8.set(bytes, at);
      at += bytes.length;
    });
    return ERRNO.SUCCESS;
  }
  function writeSizes(list, countPtr, sizePtr) {
    const g = new Guest(memory);
    if (!g.ok(countPtr, 4) || !g.ok(sizePtr, 4)) return ERRNO.FAULT;
    g.view.setUint32(countPtr, list.length, true);
    g.view.setUint32(
      sizePtr,
      list.reduce((n, b) => n + b.length, 0),
      true,
    );
    return ERRNO.SUCCESS;
  }

  // Scatters `data` over the iovecs; returns the bytes placed.
  function scatter(g, iovs, data) {
    let done = 0;
    for (const { buf, len } of iovs) {
      if (done >= data.length) break;
      const n = Math.min(len, data.length - done);
      g.u8.set(data.subarray(done, done + n), buf);
      done += n;
    }
    return done;
  }
  function gather(g, iovs) {
    const total = iovs.reduce((n, v) => n + v.len, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const { buf, len } of iovs) {
      out.set(g.u8.subarray(buf, buf + len), at);
      at += len;
    }
    return out;
  }
  function setU32(ptr, value) {
    const g = new Guest(memory);
    if (!g.ok(ptr, 4)) return ERRNO.FAULT;
    g.view.setUint32(ptr, value, true);
    return ERRNO.SUCCESS;
  }
  function setU64(ptr, value) {
    const g = new Guest(memory);
    if (!g.ok(ptr, 8)) return ERRNO.FAULT;
    g.view.setBigUint64(ptr, value, true);
    return ERRNO.SUCCESS;
  }

  function readStdin(iovsPtr, iovsLen, nreadPtr) {
    const run = async () => {
      const g0 = new Guest(memory);
      const iovs0 = g0.iovecs(iovsPtr, iovsLen);
      if (iovs0 === null) return ERRNO.FAULT;
      const want = iovs0.reduce((n, v) => n + v.len, 0);
      const data = want === 0 ? new Uint8Array(0) : await stdin.read(want);
      // The memory may have grown meanwhile: fresh views.
      const g = new Guest(memory);
      const iovs = g.iovecs(iovsPtr, iovsLen);
      if (iovs === null || !g.ok(nreadPtr, 4)) return ERRNO.FAULT;
      g.view.setUint32(nreadPtr, scatter(g, iovs, data), true);
      return ERRNO.SUCCESS;
    };
    const result = stdinQueue.then(run);
    stdinQueue = result.catch(() => {});
    return result;
  }

  function readFile(entry, iovsPtr, iovsLen, nreadPtr, at) {
    if (!entry.readable) return ERRNO.BADF;
    const g = new Guest(memory);
    const iovs = g.iovecs(iovsPtr, iovsLen);
    if (iovs === null || !g.ok(nreadPtr, 4)) return ERRNO.FAULT;
    const want = iovs.reduce((n, v) => n + v.len, 0);
    const position = at ?? entry.pos;
    const n = scatter(g, iovs, entry.node.read(position, want));
    if (at === undefined) entry.pos += n;
    g.view.setUint32(nreadPtr, n, true);
    return ERRNO.SUCCESS;
  }

  function writeFile(entry, iovsPtr, iovsLen, nwrittenPtr, at) {
    const g = new Guest(memory);
    const iovs = g.iovecs(iovsPtr, iovsLen);
    if (iovs === null || !g.ok(nwrittenPtr, 4)) return ERRNO.FAULT;
    const data = gather(g, iovs);
    if (entry.kind === "stdout") {
      let pending;
      try {
        pending = output(entry.fd, data);
      } catch {
        return ERRNO.IO; // a closed pipe: the program is ending (run.js)
      }
      const done = () => setU32(nwrittenPtr, data.length);
      return pending && typeof pending.then === "function" ? pending.then(done, () => ERRNO.IO) : done();
    }
    if (!entry.writable) return ERRNO.BADF;
    const file = entry.node;
    let position = at;
    if (position === undefined) position = entry.flags & FDFLAGS_APPEND ? file.size : entry.pos;
    if (position + data.length > Number.MAX_SAFE_INTEGER) return ERRNO.OVERFLOW;
    file.write(position, data);
    if (at === undefined) entry.pos = position + data.length;
    g.view.setUint32(nwrittenPtr, data.length, true);
    return ERRNO.SUCCESS;
  }

  // fd_pread / fd_pwrite: `io` (readFile, writeFile) at `offset`, the fd's
  // position untouched; a stream is ESPIPE.
  function positioned(io, fd, right, iovs, iovsLen, offset, resultPtr) {
    const entry = takeData(fd, right | RIGHT.FD_SEEK);
    if (typeof entry === "number") return entry;
    if (entry.kind !== "file") return ERRNO.SPIPE;
    const at = u64(offset);
    if (at > BigInt(Number.MAX_SAFE_INTEGER)) return ERRNO.INVAL;
    return io(entry, u32(iovs), u32(iovsLen), u32(resultPtr), Number(at));
  }

  // fd_seek needs FD_SEEK, except a seek by 0 from the current position,
  // which only tells (FD_TELL); a directory is EBADF, a stream ESPIPE (the
  // C WASI's order).
  function seek(fd, delta, whence, resultPtr) {
    const entry = entryOf(fd);
    if (!entry || entry.kind === "dir") return ERRNO.BADF;
    if (entry.kind !== "file") return ERRNO.SPIPE;
    const needed = whence === 1 && delta === 0n ? RIGHT.FD_TELL : RIGHT.FD_SEEK;
    if ((entry.rightsBase & needed) === 0n) return ERRNO.NOTCAPABLE;
    const base = whence === 0 ? 0n : whence === 1 ? BigInt(entry.pos) : BigInt(entry.node.size);
    const target = base + delta;
    if (target < 0n || target > BigInt(Number.MAX_SAFE_INTEGER)) return ERRNO.INVAL;
    entry.pos = Number(target);
    return setU64(resultPtr, target);
  }

  // The resolution of (fd, path) for a path call, or an errno.
  function resolvePath(fd, pathPtr, pathLen, rights) {
    const entry = take(fd, 0n);
    if (typeof entry === "number") return entry;
    if (entry.kind !== "dir") return ERRNO.NOTDIR;
    if ((entry.rightsBase & rights) !== rights) return ERRNO.NOTCAPABLE;
    const { path, errno } = new Guest(memory).path(pathPtr, pathLen);
    if (errno !== undefined) return errno;
    const at = resolveAt(entry.node, path);
    return at.errno !== undefined ? at.errno : at;
  }

  const calls = {
    args_get: (argv, buf) => writeStrings(argBytes, u32(argv), u32(buf)),
    args_sizes_get: (count, size) => writeSizes(argBytes, u32(count), u32(size)),
    environ_get: (environ, buf) => writeStrings(envBytes, u32(environ), u32(buf)),
    environ_sizes_get: (count, size) => writeSizes(envBytes, u32(count), u32(size)),

    fd_advise: (fd) => (typeof take(fd, 0n) === "number" ? ERRNO.BADF : ERRNO.SUCCESS),
    fd_allocate(fd, offset, len) {
      const entry = take(fd, RIGHT.FD_ALLOCATE);
      if (typeof entry === "number") return entry;
      if (entry.kind !== "file" || !entry.writable) return ERRNO.BADF;
      const end = u64(offset) + u64(len);
      if (end > BigInt(Number.MAX_SAFE_INTEGER)) return ERRNO.INVAL;
      if (Number(end) > entry.node.size) entry.node.truncate(Number(end));
      return ERRNO.SUCCESS;
    },
    fd_close(fd) {
      if (!entryOf(fd)) return ERRNO.BADF;
      delete fds[u32(fd)];
      return ERRNO.SUCCESS;
    },
    fd_datasync: (fd) => (entryOf(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_sync: (fd) => (entryOf(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_fdstat_get(fd, ptr) {
      const entry = entryOf(fd);
      if (!entry) return ERRNO.BADF;
      const g = new Guest(memory);
      const p = u32(ptr);
      if (!g.ok(p, 24)) return ERRNO.FAULT;
      g.u8.fill(0, p, p + 24);
      g.view.setUint8(p, filetypeOf(entry));
      g.view.setUint16(p + 2, entry.flags, true);
      g.view.setBigUint64(p + 8, entry.rightsBase, true);
      g.view.setBigUint64(p + 16, entry.rightsInheriting, true);
      return ERRNO.SUCCESS;
    },
    fd_fdstat_set_flags(fd, flags) {
      const entry = take(fd, RIGHT.FD_FDSTAT_SET_FLAGS);
      if (typeof entry === "number") return entry;
      entry.flags = u32(flags) & 0xffff;
      return ERRNO.SUCCESS;
    },
    fd_fdstat_set_rights(fd, base, inheriting) {
      const entry = entryOf(fd);
      if (!entry) return ERRNO.BADF;
      const b = u64(base);
      const i = u64(inheriting);
      if ((b & ~entry.rightsBase) !== 0n || (i & ~entry.rightsInheriting) !== 0n) return ERRNO.NOTCAPABLE;
      entry.rightsBase = b;
      entry.rightsInheriting = i;
      return ERRNO.SUCCESS;
    },
    fd_filestat_get(fd, ptr) {
      const entry = take(fd, RIGHT.FD_FILESTAT_GET);
      if (typeof entry === "number") return entry;
      const g = new Guest(memory);
      if (!g.ok(u32(ptr), 64)) return ERRNO.FAULT;
      writeFilestat(g, u32(ptr), entry.node ?? null, filetypeOf(entry));
      return ERRNO.SUCCESS;
    },
    // No right asked, as the C WASI's: a directory or a descriptor not open
    // for writing is EBADF.
    fd_filestat_set_size(fd, size) {
      const entry = entryOf(fd);
      if (!entry || entry.kind === "dir") return ERRNO.BADF;
      if (entry.kind !== "file") return ERRNO.INVAL;
      if (!entry.writable) return ERRNO.BADF;
      const n = u64(size);
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) return ERRNO.INVAL;
      entry.node.truncate(Number(n));
      return ERRNO.SUCCESS;
    },
    fd_filestat_set_times(fd, atim, mtim, fstflags) {
      const entry = take(fd, RIGHT.FD_FILESTAT_SET_TIMES);
      if (typeof entry === "number") return entry;
      return setTimes(entry.node ?? null, atim, mtim, fstflags);
    },
    fd_pread: (fd, iovs, iovsLen, offset, nread) => positioned(readFile, fd, RIGHT.FD_READ, iovs, iovsLen, offset, nread),
    fd_pwrite: (fd, iovs, iovsLen, offset, nwritten) =>
      positioned(writeFile, fd, RIGHT.FD_WRITE, iovs, iovsLen, offset, nwritten),
    fd_read(fd, iovs, iovsLen, nread) {
      const entry = takeData(fd, RIGHT.FD_READ);
      if (typeof entry === "number") return entry;
      if (entry.kind === "stdin") return readStdin(u32(iovs), u32(iovsLen), u32(nread));
      return readFile(entry, u32(iovs), u32(iovsLen), u32(nread));
    },
    fd_write(fd, iovs, iovsLen, nwritten) {
      const entry = takeData(fd, RIGHT.FD_WRITE);
      if (typeof entry === "number") return entry;
      return writeFile(entry, u32(iovs), u32(iovsLen), u32(nwritten));
    },
    fd_prestat_get(fd, ptr) {
      const entry = entryOf(fd);
      if (!entry?.preopen) return ERRNO.BADF;
      const g = new Guest(memory);
      if (!g.ok(u32(ptr), 8)) return ERRNO.FAULT;
      g.view.setUint32(u32(ptr), 0, true);
      g.view.setUint32(u32(ptr) + 4, entry.preopen.length, true);
      return ERRNO.SUCCESS;
    },
    fd_prestat_dir_name(fd, ptr, len) {
      const entry = entryOf(fd);
      if (!entry?.preopen) return ERRNO.BADF;
      const g = new Guest(memory);
      const n = Math.min(u32(len), entry.preopen.length);
      if (!g.ok(u32(ptr), n)) return ERRNO.FAULT;
      g.u8.set(entry.preopen.subarray(0, n), u32(ptr));
      return u32(len) < entry.preopen.length ? ERRNO.NAMETOOLONG : ERRNO.SUCCESS;
    },
    fd_readdir(fd, buf, bufLen, cookie, bufused) {
      const entry = take(fd, RIGHT.FD_READDIR);
      if (typeof entry === "number") return entry;
      if (entry.kind !== "dir") return ERRNO.NOTDIR;
      const g = new Guest(memory);
      const start = u32(buf);
      const size = u32(bufLen);
      if (!g.ok(start, size) || !g.ok(u32(bufused), 4)) return ERRNO.FAULT;
      const dir = entry.node;
      const list = [[".", dir], ["..", dir.parent ?? dir], ...dir.entries];
      const first = u64(cookie);
      let at = 0;
      const header = new Uint8Array(24);
      const hv = new DataView(header.buffer);
      for (let i = first > BigInt(list.length) ? list.length : Number(first); i < list.length && at < size; i++) {
        const [name, node] = list[i];
        const nameBytes = encoder.encode(name);
        hv.setBigUint64(0, BigInt(i + 1), true);
        hv.setBigUint64(8, BigInt(node.ino), true);
        hv.setUint32(16, nameBytes.length, true);
        hv.setUint32(20, nodeFiletype(node), true);
        const record = new Uint8Array(24 + nameBytes.length);
        record.set(header);
        record.set(nameBytes, 24);
        const n = Math.min(record.length, size - at);
        g.u8.set(record.subarray(0, n), start + at);
        at += n;
      }
      g.view.setUint32(u32(bufused), at, true);
      return ERRNO.SUCCESS;
    },
    fd_renumber(from, to) {
      const entry = entryOf(from);
      if (!entry || !entryOf(to)) return ERRNO.BADF;
      fds[u32(to)] = entry;
      if (u32(from) !== u32(to)) delete fds[u32(from)];
      return ERRNO.SUCCESS;
    },
    fd_seek(fd, offset, whence, newOffset) {
      if (!new Guest(memory).ok(u32(newOffset), 8)) return ERRNO.FAULT;
      if (u64(whence) > 2n) return ERRNO.INVAL;
      return seek(fd, BigInt.asIntN(64, offset), u32(whence), u32(newOffset));
    },
    fd_tell(fd, ptr) {
      if (!new Guest(memory).ok(u32(ptr), 8)) return ERRNO.FAULT;
      return seek(fd, 0n, 1, u32(ptr));
    },

    path_create_directory(fd, path, len) {
      const at = resolvePath(fd, u32(path), u32(len), RIGHT.PATH_CREATE_DIRECTORY);
      if (typeof at === "number") return at;
      if (at.name === "." || at.dir.entries.has(at.name)) return ERRNO.EXIST;
      at.dir.entries.set(at.name, new MemDir(null, at.dir));
      return ERRNO.SUCCESS;
    },
    path_filestat_get(fd, _flags, path, len, ptr) {
      const at = resolvePath(fd, u32(path), u32(len), RIGHT.PATH_FILESTAT_GET);
      if (typeof at === "number") return at;
      const node = nodeAt(at);
      if (!node) return ERRNO.NOENT;
      if (at.trailingSlash && !(node instanceof MemDir)) return ERRNO.NOTDIR;
      const g = new Guest(memory);
      if (!g.ok(u32(ptr), 64)) return ERRNO.FAULT;
      writeFilestat(g, u32(ptr), node, nodeFiletype(node));
      return ERRNO.SUCCESS;
    },
    path_filestat_set_times(fd, _flags, path, len, atim, mtim, fstflags) {
      const at = resolvePath(fd, u32(path), u32(len), RIGHT.PATH_FILESTAT_SET_TIMES);
      if (typeof at === "number") return at;
      const node = nodeAt(at);
      return node ? setTimes(node, atim, mtim, fstflags) : ERRNO.NOENT;
    },
    // As the C WASI's: the directory holds PATH_OPEN and what the oflags
    // do; the fd gets what it asked within the directory's inheriting
    // rights and its kind; its access mode (readable, writable) comes from
    // the rights asked, and a read or write outside it is EBADF, as the
    // host's would be.
    path_open(fd, _dirflags, path, len, oflags, rightsBase, rightsInheriting, fdflags, fdOut) {
      const g = new Guest(memory);
      if (!g.ok(u32(fdOut), 4)) return ERRNO.FAULT;
      const o = u32(oflags);
      const flags = u32(fdflags);
      if (o & ~0xf || flags & ~0x1f) return ERRNO.INVAL;
      if (o & OFLAGS_DIRECTORY && o & (OFLAGS_CREAT | OFLAGS_EXCL | OFLAGS_TRUNC)) return ERRNO.INVAL;
      const needed =
        RIGHT.PATH_OPEN |
        (o & OFLAGS_CREAT ? RIGHT.PATH_CREATE_FILE : 0n) |
        (o & OFLAGS_TRUNC ? RIGHT.PATH_FILESTAT_SET_SIZE : 0n);
      const at = resolvePath(fd, u32(path), u32(len), needed);
      if (typeof at === "number") return at;
      const granted = entryOf(fd).rightsInheriting;
      const asked = u64(rightsBase) & granted;
      const readable = (asked & READ_RIGHTS) !== 0n;
      const writable = (asked & WRITE_RIGHTS) !== 0n || (flags & FDFLAGS_APPEND) !== 0 || (o & OFLAGS_TRUNC) !== 0;
      let node = nodeAt(at);
      if (node && o & OFLAGS_CREAT && o & OFLAGS_EXCL) return ERRNO.EXIST;
      if (!node) {
        if (!(o & OFLAGS_CREAT)) return ERRNO.NOENT;
        if (at.trailingSlash || at.name === ".") return ERRNO.ISDIR;
        node = new MemFile(new Uint8Array(0));
        node.nlink = 1;
        at.dir.entries.set(at.name, node);
      }
      const isDir = node instanceof MemDir;
      if ((o & OFLAGS_DIRECTORY || at.trailingSlash) && !isDir) return ERRNO.NOTDIR;
      if (isDir && (asked & WRITE_RIGHTS) !== 0n) return ERRNO.ISDIR;
      const slot = freeFd();
      if (slot < 0) return ERRNO.MFILE;
      if (o & OFLAGS_TRUNC) node.truncate(0);
      fds[slot] = {
        kind: isDir ? "dir" : "file",
        node,
        pos: 0,
        flags: flags & 0xffff,
        readable,
        writable,
        rightsBase: asked & (isDir ? DIR_RIGHTS : FILE_RIGHTS),
        rightsInheriting: u64(rightsInheriting) & granted,
      };
      g.view.setUint32(u32(fdOut), slot, true);
      return ERRNO.SUCCESS;
    },
    path_readlink(fd, path, len) {
      const at = resolvePath(fd, u32(path), u32(len), 0n);
      if (typeof at === "number") return at;
      return nodeAt(at) ? ERRNO.INVAL : ERRNO.NOENT; // no symbolic links here
    },
    path_remove_directory(fd, path, len) {
      const at = resolvePath(fd, u32(path), u32(len), RIGHT.PATH_REMOVE_DIRECTORY);
      if (typeof at === "number") return at;
      if (at.name === ".") return ERRNO.INVAL;
      const node = at.dir.entries.get(at.name);
      if (!node) return ERRNO.NOENT;
      if (!(node instanceof MemDir)) return ERRNO.NOTDIR;
      if (node.entries.size > 0) return ERRNO.NOTEMPTY;
      at.dir.entries.delete(at.name);
      node.removed = true;
      return ERRNO.SUCCESS;
    },
    path_unlink_file(fd, path, len) {
      const at = resolvePath(fd, u32(path), u32(len), RIGHT.PATH_UNLINK_FILE);
      if (typeof at === "number") return at;
      const node = nodeAt(at);
      if (!node) return ERRNO.NOENT;
      if (node instanceof MemDir) return ERRNO.ISDIR;
      if (at.trailingSlash) return ERRNO.NOTDIR;
      at.dir.entries.delete(at.name);
      node.nlink--;
      return ERRNO.SUCCESS;
    },
    path_rename(fd, oldPath, oldLen, newFd, newPath, newLen) {
      const from = resolvePath(fd, u32(oldPath), u32(oldLen), RIGHT.PATH_RENAME_SOURCE);
      if (typeof from === "number") return from;
      const to = resolvePath(newFd, u32(newPath), u32(newLen), RIGHT.PATH_RENAME_TARGET);
      if (typeof to === "number") return to;
      if (from.name === "." || to.name === ".") return ERRNO.INVAL;
      const node = from.dir.entries.get(from.name);
      if (!node) return ERRNO.NOENT;
      const target = to.dir.entries.get(to.name);
      if (node === target) return ERRNO.SUCCESS;
      if (node instanceof MemDir) {
        for (let d = to.dir; d; d = d.parent) if (d === node) return ERRNO.INVAL; // into itself
        if (target && !(target instanceof MemDir)) return ERRNO.NOTDIR;
        if (target && target.entries.size > 0) return ERRNO.NOTEMPTY;
        if (target) target.removed = true;
        node.parent = to.dir;
      } else {
        if (target instanceof MemDir) return ERRNO.ISDIR;
        if (from.trailingSlash || to.trailingSlash) return ERRNO.NOTDIR;
        if (target) target.nlink--;
      }
      from.dir.entries.delete(from.name);
      to.dir.entries.set(to.name, node);
      return ERRNO.SUCCESS;
    },
    // A hard link: the same file under a second name (directories cannot be linked).
    path_link(oldFd, _flags, oldPath, oldLen, newFd, newPath, newLen) {
      const from = resolvePath(oldFd, u32(oldPath), u32(oldLen), RIGHT.PATH_LINK_SOURCE);
      if (typeof from === "number") return from;
      const to = resolvePath(newFd, u32(newPath), u32(newLen), RIGHT.PATH_LINK_TARGET);
      if (typeof to === "number") return to;
      const node = nodeAt(from);
      if (!node) return ERRNO.NOENT;
      if (node instanceof MemDir) return ERRNO.PERM;
      if (from.trailingSlash) return ERRNO.NOTDIR;
      if (to.name === "." || to.dir.entries.has(to.name)) return ERRNO.EXIST;
      to.dir.entries.set(to.name, node);
      node.nlink++;
      return ERRNO.SUCCESS;
    },
    path_symlink: () => ERRNO.NOTSUP,

    poll_oneoff: (inPtr, outPtr, count, neventsPtr) =>
      pollOneoff(memory, stdin, entryOf, u32(inPtr), u32(outPtr), u32(count), u32(neventsPtr)),
    proc_raise: () => ERRNO.NOSYS,
    // No descriptor here is a socket.
    sock_accept: (fd) => (entryOf(fd) ? ERRNO.NOTSOCK : ERRNO.BADF),
    sock_recv: (fd) => (entryOf(fd) ? ERRNO.NOTSOCK : ERRNO.BADF),
    sock_send: (fd) => (entryOf(fd) ? ERRNO.NOTSOCK : ERRNO.BADF),
    sock_shutdown: (fd) => (entryOf(fd) ? ERRNO.NOTSOCK : ERRNO.BADF),
  };

  return {
    call(name, values) {
      const handler = calls[name];
      return handler ? handler(...values) : ERRNO.NOSYS;
    },
  };
}

const EVENTTYPE_CLOCK = 0;
const EVENTTYPE_FD_READ = 1;

// A subscription's deadline in performance.now() milliseconds (clocks), its
// fd (fd_read, fd_write), or an error for its event.
function readSubscription(g, p, entryOf) {
  const sub = { userdata: g.view.getBigUint64(p, true), tag: g.view.getUint8(p + 8), error: 0 };
  if (sub.tag === EVENTTYPE_CLOCK) {
    const clock = g.view.getUint32(p + 16, true);
    const timeout = g.view.getBigUint64(p + 24, true);
    const absolute = (g.view.getUint16(p + 40, true) & 1) !== 0;
    if (clock > 3) sub.error = ERRNO.INVAL;
    const nowMs = performance.now();
    const originMs = clock === 0 ? Date.now() : performance.timeOrigin + nowMs;
    const waitMs = Math.max(0, absolute ? Number(timeout) / 1e6 - originMs : Number(timeout) / 1e6);
    sub.deadline = nowMs + waitMs;
  } else if (sub.tag <= 2) {
    sub.fd = g.view.getUint32(p + 16, true);
    if (!entryOf(BigInt(sub.fd))) sub.error = ERRNO.BADF;
  } else {
    sub.error = ERRNO.INVAL;
  }
  return sub;
}

// poll_oneoff: a read of stdin is ready when the page has data for it (or
// its end); every other fd at once (a file, or output the page takes); a
// clock at its deadline, slept on the page's timers. Waits for the first.
function pollOneoff(memory, stdin, entryOf, inPtr, outPtr, count, neventsPtr) {
  const g = new Guest(memory);
  if (count === 0) return ERRNO.INVAL;
  if (!g.ok(inPtr, count * 48) || !g.ok(outPtr, count * 32) || !g.ok(neventsPtr, 4)) return ERRNO.FAULT;
  const subs = [];
  for (let i = 0; i < count; i++) subs.push(readSubscription(g, inPtr + 48 * i, entryOf));
  const isStdinRead = (s) => s.tag === EVENTTYPE_FD_READ && s.fd === 0 && entryOf(0n)?.kind === "stdin";
  const readyNow = () =>
    subs.filter((s) => {
      if (s.error) return true;
      if (s.tag === EVENTTYPE_CLOCK) return performance.now() >= s.deadline;
      return isStdinRead(s) ? stdin.ready() : true;
    });
  const writeEvents = (ready) => {
    const out = new Guest(memory);
    if (!out.ok(outPtr, ready.length * 32) || !out.ok(neventsPtr, 4)) return ERRNO.FAULT;
    ready.forEach((sub, i) => {
      const p = outPtr + 32 * i;
      out.u8.fill(0, p, p + 32);
      out.view.setBigUint64(p, sub.userdata, true);
      out.view.setUint16(p + 8, sub.error, true);
      out.view.setUint8(p + 10, sub.tag);
    });
    out.view.setUint32(neventsPtr, ready.length, true);
    return ERRNO.SUCCESS;
  };
  const now = readyNow();
  if (now.length > 0) return writeEvents(now);
  const clocks = subs.filter((s) => s.tag === EVENTTYPE_CLOCK);
  const waitStdin = subs.some(isStdinRead);
  // Waits for the earliest clock or for stdin, armed afresh each round.
  const wait = () => {
    const waits = waitStdin ? [stdin.whenReady()] : [];
    if (clocks.length > 0) {
      const first = Math.min(...clocks.map((s) => s.deadline));
      waits.push(new Promise((resolve) => setTimeout(resolve, Math.max(0, first - performance.now()) + 1)));
    }
    return Promise.race(waits);
  };
  return (async () => {
    let ready = [];
    while (ready.length === 0) {
      await wait();
      ready = readyNow();
    }
    return writeEvents(ready);
  })();
}
