// The in-memory file system of a browser program: the page's plain objects
// (a directory is an object whose values are Uint8Arrays, ArrayBuffers or
// strings for files and plain objects for directories), read into nodes when
// the program starts and written back into the same objects when it ends
// (writeBack), so the files the program wrote are there afterwards. Only
// the page's WASI (wasi.js) touches it, on the page's one thread.
// Browser-safe, no import.

// WASI errnos the file system gives.
export const E = {
  SUCCESS: 0,
  BADF: 8,
  EXIST: 20,
  FAULT: 21,
  ILSEQ: 25,
  INVAL: 28,
  ISDIR: 31,
  NAMETOOLONG: 37,
  NOENT: 44,
  NOTDIR: 54,
  NOTEMPTY: 55,
  PERM: 63,
  NOTCAPABLE: 76,
};

// The longest guest path accepted (bytes), as the C WASI's WTP__WASI_PATH_MAX.
export const PATH_MAX = 4096;

let nextIno = 1;
export const nowNs = () => BigInt(Date.now()) * 1000000n;

export class MemFile {
  // original: the page's value for this file (a string, an ArrayBuffer or a
  // view), given back as it was while the file is unchanged.
  constructor(data, original = null) {
    this.ino = nextIno++;
    this.original = original;
    this.data = data;
    this.size = data.length;
    // The page's own array until the first change: copied then, so that the
    // page's bytes change only by writeBack.
    this.owned = false;
    this.nlink = 0; // directory entries naming it (path_link adds one)
    this.atime = this.mtime = nowNs();
  }

  bytes() {
    return this.owned && this.data.length !== this.size ? this.data.slice(0, this.size) : this.data.subarray(0, this.size);
  }

  // Room for `size` bytes, owned; new bytes read as zero.
  reserve(size) {
    if (this.owned && size <= this.data.length) return;
    const capacity =
      size <= this.data.length ? this.data.length : Math.max(size, Math.min(this.data.length * 2, size + (64 << 20)));
    const data = new Uint8Array(Math.max(capacity, 64));
    data.set(this.data.subarray(0, this.size));
    this.data = data;
    this.owned = true;
  }

  write(position, bytes) {
    const end = position + bytes.length;
    this.reserve(Math.max(end, this.size));
    this.data.set(bytes, position);
    if (end > this.size) this.size = end;
    this.mtime = nowNs();
  }

  // A copy of up to `length` bytes at `position` (empty past the end).
  read(position, length) {
    if (position >= this.size) return new Uint8Array(0);
    return this.data.subarray(position, Math.min(this.size, position + length));
  }

  truncate(size) {
    if (size > this.size) this.reserve(size);
    else if (!this.owned) this.reserve(this.size);
    if (size < this.size) this.data.fill(0, size, this.size);
    this.size = size;
    this.mtime = nowNs();
  }
}

export class MemDir {
  constructor(source, parent) {
    this.ino = nextIno++;
    this.entries = new Map();
    this.source = source; // the page's object, or null for a new directory
    this.parent = parent;
    this.removed = false; // path_remove_directory took it out of its parent
    this.nlink = 1;
    this.atime = this.mtime = nowNs();
  }
}

const encoder = new TextEncoder();

function fileBytes(value, where) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === "string") return encoder.encode(value);
  throw new TypeError(`preopens: ${where} is neither a file (Uint8Array, ArrayBuffer, string) nor a directory (plain object).`);
}

function isDirectoryObject(value) {
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A directory node over the page's object (checked all the way down).
export function readTree(source, where, parent = null, seen = new Set()) {
  if (!isDirectoryObject(source)) throw new TypeError(`preopens: ${where} must be a plain object (a directory).`);
  if (seen.has(source)) throw new TypeError(`preopens: ${where} is its own ancestor.`);
  seen.add(source);
  const dir = new MemDir(source, parent);
  for (const [name, value] of Object.entries(source)) {
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
      throw new TypeError(`preopens: ${where} has an entry named ${JSON.stringify(name)}, which no file can be named.`);
    }
    const path = `${where}/${name}`;
    const node = isDirectoryObject(value) ? readTree(value, path, dir, seen) : new MemFile(fileBytes(value, path), value);
    if (node instanceof MemFile) node.nlink = 1;
    dir.entries.set(name, node);
  }
  seen.delete(source);
  return dir;
}

// Writes the tree back into the page's objects: every directory's object
// gets exactly its entries (a file the program changed or made as a
// Uint8Array of its size, one it left alone as the page gave it, a new
// directory as a new plain object).
export function writeBack(dir) {
  dir.source ??= {};
  const source = dir.source;
  for (const name of Object.keys(source)) if (!dir.entries.has(name)) delete source[name];
  for (const [name, node] of dir.entries) {
    if (node instanceof MemDir) source[name] = writeBack(node);
    else if (node.owned || node.original === null) source[name] = node.bytes();
    else if (source[name] !== node.original) source[name] = node.original;
  }
  return source;
}

// Resolves a guest path beneath `root` (a preopen's directory, or one opened
// from it): {dir, name, trailingSlash} for the last component's directory
// and name ("." for the directory itself), or {errno}. An absolute path or a
// ".." above `root` is an escape: EPERM, as the C WASI's sandbox says.
export function resolveAt(root, path) {
  if (path.length === 0 || root.removed) return { errno: E.NOENT };
  if (path.startsWith("/")) return { errno: E.PERM };
  const parts = path.split("/");
  const trailingSlash = parts.length > 1 && parts[parts.length - 1] === "";
  // Empty components (repeated slashes) are nothing; "." is kept, so that
  // "file/." is ENOTDIR as on POSIX.
  const names = parts.filter((p) => p !== "");
  let dir = root;
  let depth = 0; // how far below root
  for (let i = 0; i < names.length - 1; i++) {
    const name = names[i];
    if (name === ".") continue;
    if (name === "..") {
      if (depth === 0) return { errno: E.PERM };
      dir = dir.parent;
      depth--;
      continue;
    }
    const next = dir.entries.get(name);
    if (!next) return { errno: E.NOENT };
    if (!(next instanceof MemDir)) return { errno: E.NOTDIR };
    dir = next;
    depth++;
  }
  const name = names.length ? names[names.length - 1] : ".";
  if (name !== "..") return { dir, name, trailingSlash };
  // A final "..": the directory above, named as itself.
  if (depth === 0) return { errno: E.PERM };
  return { dir: dir.parent, name: ".", trailingSlash };
}

// The node a resolution names, or null.
export function nodeAt(at) {
  return at.name === "." ? at.dir : (at.dir.entries.get(at.name) ?? null);
}
