// OPFS directories as a browser program's preopens (docs/runner.md, "In a
// browser page"). The page's WASI runs on the page's thread, where OPFS is
// asynchronous only (FileSystemSyncAccessHandle exists in dedicated workers
// alone) and every WASI call must be answered from the in-memory file system
// (memfs.js). So a directory handle is read whole into a plain-object tree
// when the program starts (readOpfs), the program runs on that tree as on any
// other, and when it has ended the tree's changes are written back into the
// directory (writeOpfs): new and changed files written whole, removed entries
// removed, renamed ones written under their new name and removed under the
// old. What another tab changes in the directory meanwhile is overwritten
// where the program changed the same name and kept elsewhere.
// Browser-safe, no import.

const isHandle = (value) => typeof FileSystemHandle === "function" && value instanceof FileSystemHandle;

// A file value of a tree (Uint8Array) or a directory (plain object).
const isDirectory = (value) => value !== null && typeof value === "object" && !ArrayBuffer.isView(value);

// True when `value` is a FileSystemDirectoryHandle (to be read with
// readOpfs); false when it is no file-system handle at all (a plain-object
// tree, checked by memfs.js's readTree). Any other handle is a TypeError.
export function isDirectoryHandle(value, where) {
  if (!isHandle(value)) return false;
  if (value.kind === "directory") return true;
  throw new TypeError(
    `${where} is a ${value.constructor?.name ?? "FileSystemHandle"} of kind ${JSON.stringify(value.kind)}: a preopen is a ` +
      "directory, a FileSystemDirectoryHandle (an OPFS directory, navigator.storage.getDirectory()) or a plain object.",
  );
}

async function readDirectory(handle) {
  const tree = {};
  const before = {};
  for await (const [name, child] of handle.entries()) {
    if (child.kind === "directory") ({ tree: tree[name], before: before[name] } = await readDirectory(child));
    else tree[name] = before[name] = new Uint8Array(await (await child.getFile()).arrayBuffer());
  }
  return { tree, before };
}

// {tree, before}: the directory's files as a plain-object tree of
// Uint8Arrays for readTree, and a copy of its shape holding the same arrays,
// which writeOpfs compares the written-back tree with.
export async function readOpfs(handle, where) {
  try {
    return await readDirectory(handle);
  } catch (error) {
    throw new Error(`runWasiThreadsProgram: cannot read the OPFS directory ${where}: ${error?.message ?? error}`, {
      cause: error,
    });
  }
}

async function writeFile(handle, bytes) {
  const writable = await handle.createWritable();
  try {
    await writable.write(bytes);
  } catch (error) {
    await writable.abort().catch(() => {});
    throw error;
  }
  await writable.close();
}

// Writes into `handle` what differs between `tree` (memfs.js's writeBack of
// the program's directory) and `before` (readOpfs's shape of it): a file
// whose array is not the one read at that name is written whole, a name that
// is gone (or changed kind) is removed, and directories are walked alike.
async function writeDirectory(handle, tree, before) {
  for (const [name, was] of Object.entries(before)) {
    if (!Object.hasOwn(tree, name) || isDirectory(tree[name]) !== isDirectory(was)) {
      await handle.removeEntry(name, { recursive: true });
    }
  }
  for (const [name, value] of Object.entries(tree)) {
    const was = Object.hasOwn(before, name) ? before[name] : undefined;
    if (isDirectory(value)) {
      await writeDirectory(await handle.getDirectoryHandle(name, { create: true }), value, isDirectory(was) ? was : {});
    } else if (value !== was) {
      await writeFile(await handle.getFileHandle(name, { create: true }), value);
    }
  }
}

// writeDirectory, its failure an Error that says the program has ended
// (with `exitCode`) and which directory could not be written.
export async function writeOpfs(handle, tree, before, where, exitCode) {
  try {
    await writeDirectory(handle, tree, before);
  } catch (error) {
    throw new Error(
      `runWasiThreadsProgram: the program ended (exit code ${exitCode}) but its files could not all be written into ` +
        `the OPFS directory ${where}: ${error?.message ?? error}`,
      { cause: error },
    );
  }
}
