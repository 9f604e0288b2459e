// The exact bytes of the CLI's own arguments and environment, where the
// platform lets a process read them (Linux: /proc/self/cmdline and
// /proc/self/environ), for the entries that are not UTF-8: Node hands them
// to JS with U+FFFD in place of the bytes it could not decode, and a WASI
// program must get what a native one gets (docs/runner.md, "Arguments and
// environment that are not UTF-8"). Read once, when the CLI starts; nothing
// runs at import.

import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";

// The entries of a file of NUL-terminated strings, or null when it cannot be
// read (not Linux, no /proc).
function readNulList(file) {
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  const entries = [];
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0, start);
    if (end < 0) end = bytes.length;
    entries.push(new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start));
    start = end + 1;
  }
  return entries;
}

// The bytes of each of `argv` (process.argv.slice(2)), in order: the last
// argv.length entries of the process's command line (Node's own options come
// before the script). null when the command line cannot be read or does not
// end with them.
export function hostArgvBytes(argv) {
  const line = readNulList("/proc/self/cmdline");
  if (line === null || line.length < argv.length) return null;
  const tail = line.slice(line.length - argv.length);
  return tail.every((bytes, i) => sameText(bytes, argv[i])) ? tail : null;
}

// NAME -> the bytes of its value, for every variable of the process's
// initial environment whose name is UTF-8; null when it cannot be read.
export function hostEnvBytes() {
  const entries = readNulList("/proc/self/environ");
  if (entries === null) return null;
  const values = new Map();
  for (const entry of entries) {
    const eq = entry.indexOf(0x3d);
    if (eq <= 0 || !isUtf8(entry.subarray(0, eq))) continue;
    values.set(Buffer.from(entry.subarray(0, eq)).toString("utf8"), entry.subarray(eq + 1));
  }
  return values;
}

// bytes decode (with U+FFFD for what is not UTF-8, as Node decodes its
// argv and environment) to text.
export function sameText(bytes, text) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8") === text;
}

// What the program gets for `text`, a value Node decoded from the host: the
// text when it is what the host gave (no U+FFFD, or bytes that are UTF-8), the
// exact bytes (a Uint8Array) when they are not UTF-8, or null when it may have
// been altered and its bytes are not known (the caller refuses it).
export function exactValue(text, bytes) {
  if (bytes !== null && bytes !== undefined && sameText(bytes, text)) return isUtf8(bytes) ? text : Uint8Array.from(bytes);
  return text.includes("\uFFFD") ? null : text;
}
