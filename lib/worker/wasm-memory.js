// Reads what a wasi-threads program needs of its memory from the binary:
// WebAssembly.Module.imports() names a memory import but does not give its
// limits or whether it is shared, so the import section is parsed here.
//
// describeProgramMemory(bytes) (exported as describeWasiThreadsMemory) -> {module, name, initial, maximum, shared}
// (pages), or throws a TypeError that says why the program cannot run with a
// memory shared between threads.

import { Reader as WasmReader } from "../wasm/reader.js";

const SECTION_TYPE = 1;
const SECTION_IMPORT = 2;
const SECTION_MEMORY = 5;
const KIND_FUNC = 0;
const KIND_TABLE = 1;
const KIND_MEMORY = 2;
const KIND_GLOBAL = 3;
const KIND_TAG = 4;

// The byte reader of lib/wasm/reader.js, with what this file reads on top.
class Reader extends WasmReader {
  // Limits of a memory or table type: flags, min, max when flagged.
  limits() {
    const flags = this.byte();
    const initial = this.u(64);
    const maximum = flags & 1 ? this.u(64) : null;
    return { flags, initial, maximum, shared: (flags & 2) !== 0, memory64: (flags & 4) !== 0 };
  }

  // A value type: one byte, or a reference type with a heap type index.
  // Returns its name in the text format ("i32", ...; "ref" for the rest).
  valtype() {
    const b = this.byte();
    if (b === 0x63 || b === 0x64) this.u(); // (ref null? ht): typed function references
    return VALUE_TYPES[b] ?? "ref";
  }

  // A function type's params and results; null for any other composite
  // type (a GC struct or array), whose layout is not needed here.
  functype() {
    const vec = () => Array.from({ length: this.u() }, () => this.valtype());
    return { params: vec(), results: vec() };
  }

  // One entry of the type section (a rec group holds several).
  types(out) {
    const form = this.byte();
    if (form === 0x60) out.push(this.functype());
    else if (form === 0x4e) {
      const count = this.u();
      for (let i = 0; i < count; i++) this.types(out);
    } else if (form === 0x50 || form === 0x4f) {
      const supers = this.u();
      for (let i = 0; i < supers; i++) this.u();
      this.types(out);
    } else throw new TypeError(`wasm binary has a type of form 0x${form.toString(16)} not read here.`);
  }
}

const VALUE_TYPES = { 0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref" };
const KIND_NAMES = ["function", "table", "memory", "global", "tag"];

// The type section: every function type by index, or null when it holds a
// form this reader does not follow (signatures are then not checked).
function readTypes(r) {
  const types = [];
  try {
    const count = r.u();
    for (let i = 0; i < count; i++) r.types(types);
    return types;
  } catch {
    return null;
  }
}

function toBytes(wasm) {
  if (wasm instanceof Uint8Array) return wasm;
  if (ArrayBuffer.isView(wasm)) return new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
  if (wasm instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && wasm instanceof SharedArrayBuffer)) {
    return new Uint8Array(wasm);
  }
  throw new TypeError("wasm must be the program's bytes (Uint8Array, ArrayBuffer) or a WebAssembly.Module.");
}

// Every memory the binary imports and whether it defines any; with them,
// every import (`all`: {module, name, kind, type}, type a function's
// {params, results} or null when not known) for the link check
// (lib/program/link.js).
export function readMemoryDeclarations(wasm) {
  const bytes = toBytes(wasm);
  const r = new Reader(bytes);
  if (bytes.length < 8) throw new TypeError("not a wasm binary (too short).");
  const magic = [0x00, 0x61, 0x73, 0x6d];
  for (const b of magic) if (r.byte() !== b) throw new TypeError("not a wasm binary (bad magic).");
  r.pos = 8;
  const imports = [];
  const all = [];
  let types = [];
  let defined = 0;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u();
    const end = r.pos + size;
    if (end > bytes.length) throw new TypeError("wasm binary is truncated.");
    if (id === SECTION_TYPE) {
      types = readTypes(r);
    } else if (id === SECTION_IMPORT) {
      const count = r.u();
      for (let i = 0; i < count; i++) {
        const module = r.name();
        const name = r.name();
        const kind = r.byte();
        all.push({ module, name, kind: KIND_NAMES[kind] ?? "unknown", type: null });
        if (kind === KIND_FUNC) all.at(-1).type = types?.[r.u()] ?? null;
        else if (kind === KIND_TABLE) {
          r.valtype();
          r.limits();
        } else if (kind === KIND_MEMORY) imports.push({ module, name, ...r.limits() });
        else if (kind === KIND_GLOBAL) {
          r.valtype();
          r.byte();
        } else if (kind === KIND_TAG) {
          r.byte();
          r.u();
        } else throw new TypeError(`wasm binary has an import of unknown kind ${kind}.`);
      }
    } else if (id === SECTION_MEMORY) {
      defined += r.u();
    }
    r.pos = end;
  }
  return { imports, defined, all };
}

// Modules compiled by the package's compileWasiThreadGuest(Sync)
// (lib/worker/liftoff.js) -> their memory declarations, read from the bytes they
// were compiled from: a compiled module does not give its limits back.
const compiled = new WeakMap();

export function noteCompiledModule(module, bytes) {
  try {
    compiled.set(module, readMemoryDeclarations(bytes));
  } catch {
    // Not parsable here: WebAssembly.compile has said what it thinks.
  }
}

export function declarationsOf(wasm) {
  if (typeof WebAssembly !== "undefined" && wasm instanceof WebAssembly.Module) {
    const known = compiled.get(wasm);
    if (known) return known;
    throw new TypeError(
      "A compiled WebAssembly.Module does not give its memory's limits back: pass the program's bytes, " +
        "or compile it with compileWasiThreadGuest (which remembers them).",
    );
  }
  return readMemoryDeclarations(wasm);
}

// The most pages a guest's shared memory may have, as its module declares
// it (known for the bytes, or a module compileWasiThreadGuest compiled);
// wasm32's most (65536) when it cannot be known.
export function declaredSharedMaximum(wasm) {
  try {
    return declarationsOf(wasm).imports.find((m) => m.shared)?.maximum ?? 65536;
  } catch {
    return 65536;
  }
}

// The memory of a plain (single-threaded) WASI program: {initial, maximum}
// of the one non-shared memory it imports, or null when it defines its own
// (or has none). Throws a TypeError for what the runner cannot give it.
export function describePlainMemory({ imports, defined }) {
  if (imports.length + defined > 1) {
    throw new TypeError(`This program has ${imports.length + defined} memories; a WASI program has one.`);
  }
  if (imports.length === 0) return null;
  const [mem] = imports;
  const where = `"${mem.module}" "${mem.name}"`;
  if (mem.memory64) throw new TypeError(`This program's memory ${where} is a 64-bit memory, which is not supported.`);
  return { module: mem.module, name: mem.name, initial: mem.initial, maximum: mem.maximum, shared: false };
}

// The one shared memory a wasi-threads program must import.
export function describeProgramMemory(wasm) {
  return describeWasiThreadsMemory(wasm);
}

export function describeWasiThreadsMemory(wasm) {
  const { imports, defined } = declarationsOf(wasm);
  if (defined > 0) {
    throw new TypeError(
      "This program defines its own memory. Every thread of a wasi-threads program needs the same " +
        "memory, so it must import one shared memory (link with --import-memory --shared-memory).",
    );
  }
  if (imports.length === 0) {
    throw new TypeError(
      "This program has no memory. A wasi-threads program must import one shared memory " +
        "(link with --import-memory --shared-memory).",
    );
  }
  if (imports.length > 1) {
    throw new TypeError(`This program imports ${imports.length} memories; wasi-threads programs import exactly one.`);
  }
  const [mem] = imports;
  const where = `"${mem.module}" "${mem.name}"`;
  if (mem.memory64) throw new TypeError(`This program's memory ${where} is a 64-bit memory, which is not supported.`);
  if (!mem.shared) {
    throw new TypeError(
      `This program imports memory ${where} without "shared". Threads can only share a shared memory ` +
        "(link with --shared-memory).",
    );
  }
  if (mem.maximum === null) {
    throw new TypeError(`This program's shared memory ${where} has no maximum, which a shared memory needs.`);
  }
  return { module: mem.module, name: mem.name, initial: mem.initial, maximum: mem.maximum, shared: true };
}
