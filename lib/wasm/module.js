// The module level of the wasm binary format, and the engine that passes
// over a module run on (lib/wasm/memory-pass.js is one).
//
//   readSections(bytes) -> [{id, name, start, contentStart, end}]
//     The sections in order (name: a custom section's name, else null);
//     offsets into bytes. Checks the header and every section's bounds.
//
//   moduleCounts(bytes) -> {types, importedFunctions, definedFunctions}
//
//   scanCode(bytes, visit) -> void
//     visit(ins, functionIndex) for every instruction of every function
//     body (lib/wasm/instructions.js gives the record). Cheap: a pass uses it
//     to decide whether it has anything to do.
//
//   transformModule(bytes, plan) -> Uint8Array
//     A new module, built from bytes with the plan applied:
//       plan.imports   [{module, name, params, results}]  function imports
//                      added after the existing imports. Every defined
//                      function's index moves up by imports.length: every
//                      place that names one is rewritten (call,
//                      return_call, ref.func in bodies and in constant
//                      expressions, exports, start, element segments, the
//                      "name" section's function, local and label names).
//       plan.functions [{params, results, locals, body(indices)}] functions
//                      defined after the existing ones (indices of the
//                      others do not move). locals: value type bytes, one a
//                      local; body(indices) returns the instructions, `end`
//                      included.
//       plan.replace(ins, indices) -> Uint8Array | undefined
//                      called for every instruction of every existing body:
//                      bytes to put in its place, or undefined to keep it.
//       plan.ops       optional: the opcodes plan.replace wants to see (it
//                      is then called for those only: a cheaper walk).
//       plan.onlyIfReplaced  when true and plan.replace replaced nothing,
//                      the input `bytes` object itself is returned.
//       plan.callsFor  optional: [[opcode, position in plan.imports]], a
//                      promise that plan.replace swaps each such instruction
//                      (an MVP opcode with one u32 immediate) whose
//                      immediate is 0 for a call of that added import, and
//                      throws for any other immediate. With it (and no
//                      plan.functions) a code section of at least
//                      plan.wasmFromBytes (64 KiB by default) is rewritten in
//                      wasm (lib/wasm/code-rewriter.js), with the JS walker as
//                      the fallback: the same bytes, sooner. plan.jsOnly: the
//                      JS walker only (the tests compare the two).
//     params/results are value type bytes (0x7f i32, 0x7e i64, ...). indices
//     is {imports: [function index of each added import], functions: [...
//     each appended function]}, so that a replacement can call them.
//     Each added signature is a new type at the end of the type section
//     (existing type indices do not move; a recursion group stays whole).
//     Custom sections other than "name" are copied as they are: those that
//     hold code offsets (DWARF, source maps, branch hints) no longer match
//     a body whose length changed.
//
// Which to choose for a helper function: an appended defined function keeps
// every index, so a pass that can write its helper in wasm should use
// plan.functions; an import is needed only to reach the host (JS), and
// costs the index shift above.
//
// Every error is a TypeError that says what is wrong with the binary. A pass
// should call WebAssembly.validate on what it makes before it relies on it.

import { Reader, concatBytes, encodeName, encodeU, encodeVector } from "./reader.js";
import { OP, readInstruction, readValueType, skipLocals, walkExpression } from "./instructions.js";
import { rewriteCodeInWasm } from "./code-rewriter.js";

const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
};
// The order known sections must appear in (the tag section sits between
// memory and global).
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

export function readSections(bytes) {
  if (bytes.length < 8) throw new TypeError("not a wasm binary (too short).");
  for (let i = 0; i < 8; i++) {
    if (bytes[i] !== MAGIC[i]) throw new TypeError("not a wasm binary of version 1 (bad header).");
  }
  const r = new Reader(bytes, 8);
  const sections = [];
  while (!r.atEnd()) {
    const start = r.pos;
    const id = r.byte();
    const size = r.u();
    const contentStart = r.pos;
    r.skip(size);
    let name = null;
    if (id === SECTION.custom) name = new Reader(bytes, contentStart, r.pos).name();
    else if (!ORDER.includes(id)) throw new TypeError(`wasm binary has a section of unknown id ${id}.`);
    sections.push({ id, name, start, contentStart, end: r.pos });
  }
  return sections;
}

const find = (sections, id) => sections.find((s) => s.id === id);

function countTypes(bytes, section) {
  if (!section) return 0;
  const r = new Reader(bytes, section.contentStart, section.end);
  const entries = r.u();
  let types = 0;
  for (let i = 0; i < entries; i++) {
    if (r.peek() !== 0x4e) {
      types++;
      skipSubtype(r);
      continue;
    }
    r.byte();
    const inGroup = r.u();
    for (let j = 0; j < inGroup; j++) skipSubtype(r);
    types += inGroup;
  }
  return types;
}

// One subtype of the type section: (sub final? supers) around a composite
// type (func, struct, array).
function skipSubtype(r) {
  let form = r.byte();
  if (form === 0x50 || form === 0x4f) {
    const supers = r.u();
    for (let i = 0; i < supers; i++) r.u();
    form = r.byte();
  }
  if (form === 0x60) {
    for (let k = 0; k < 2; k++) {
      const count = r.u();
      for (let i = 0; i < count; i++) readValueType(r);
    }
  } else if (form === 0x5f || form === 0x5e) {
    const fields = form === 0x5f ? r.u() : 1;
    for (let i = 0; i < fields; i++) {
      readValueType(r); // a storage type: a value type or a packed i8/i16 byte
      r.byte(); // mutability
    }
  } else throw new TypeError(`wasm binary has a type of form 0x${form.toString(16)}.`);
}

function skipLimits(r) {
  const flags = r.byte();
  r.u(64);
  if (flags & 1) r.u(64);
}

function countImportedFunctions(bytes, section) {
  if (!section) return 0;
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  let functions = 0;
  for (let i = 0; i < count; i++) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) {
      functions++;
      r.u();
    } else if (kind === 1) {
      readValueType(r);
      skipLimits(r);
    } else if (kind === 2) skipLimits(r);
    else if (kind === 3) {
      readValueType(r);
      r.byte();
    } else if (kind === 4) {
      r.byte();
      r.u();
    } else throw new TypeError(`wasm binary has an import of unknown kind ${kind}.`);
  }
  return functions;
}

function vectorCount(bytes, section) {
  return section ? new Reader(bytes, section.contentStart, section.end).u() : 0;
}

export function moduleCounts(bytes) {
  const sections = readSections(bytes);
  return {
    types: countTypes(bytes, find(sections, SECTION.type)),
    importedFunctions: countImportedFunctions(bytes, find(sections, SECTION.import)),
    definedFunctions: vectorCount(bytes, find(sections, SECTION.function)),
  };
}

// Each function body: {index in the module's function space, start of its
// instructions (after the locals), end}.
function* bodies(bytes, sections) {
  const code = find(sections, SECTION.code);
  if (!code) return;
  const first = countImportedFunctions(bytes, find(sections, SECTION.import));
  const r = new Reader(bytes, code.contentStart, code.end);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    const size = r.u();
    const start = r.pos;
    r.skip(size);
    yield { index: first + i, start, end: r.pos };
  }
}

export function scanCode(bytes, visit) {
  const sections = readSections(bytes);
  for (const body of bodies(bytes, sections)) {
    const r = new Reader(bytes, body.start, body.end);
    skipLocals(r);
    const first = r.pos;
    walkExpression(r, (ins) => visit(ins, body.index));
    if (r.pos !== body.end)
      throw new TypeError(`wasm binary has a function body that ends early (at ${r.pos}, not ${body.end}).`);
    if (first > body.end) throw new TypeError("wasm binary has a malformed function body.");
  }
}

// --- transformModule

// A growable output buffer: bytes and LEB128 numbers written in place, no
// allocation per item.
class Writer {
  constructor(size = 1024) {
    this.buf = new Uint8Array(size);
    this.len = 0;
  }

  room(n) {
    if (this.len + n <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    bigger.set(this.buf.subarray(0, this.len));
    this.buf = bigger;
  }

  u(value) {
    this.room(10);
    do {
      let b = value % 128;
      value = Math.floor(value / 128);
      if (value > 0) b |= 0x80;
      this.buf[this.len++] = b;
    } while (value > 0);
  }

  copy(src, start, end) {
    const n = end - start;
    this.room(n);
    if (n < 32) {
      // A short run (between two edits): a loop costs less than a view.
      const buf = this.buf;
      for (let i = 0; i < n; i++) buf[this.len + i] = src[start + i];
    } else this.buf.set(src.subarray(start, end), this.len);
    this.len += n;
  }

  bytes(src) {
    this.copy(src, 0, src.length);
  }

  content() {
    return this.buf.subarray(0, this.len);
  }
}

// Edits over the original bytes, written as they come (in order): from
// begin(start), each edit copies the bytes up to it and writes its
// replacement; finish(end) copies the rest. The result is `out`.
class Patches {
  constructor(bytes, start = 0) {
    this.bytes = bytes;
    this.out = new Writer();
    this.begin(start);
  }

  begin(start) {
    this.out.len = 0;
    this.at = start;
    this.edits = 0;
  }

  skipTo(start) {
    if (start < this.at) throw new Error("transformModule: overlapping edits (a bug).");
    this.out.copy(this.bytes, this.at, start);
  }

  add(start, end, replacement) {
    this.skipTo(start);
    this.out.bytes(replacement);
    this.at = end;
    this.edits++;
  }

  addU(start, end, value) {
    this.skipTo(start);
    this.out.u(value);
    this.at = end;
    this.edits++;
  }

  // The edited bytes up to `end` (a view into `out`: valid until begin()).
  finish(end) {
    this.skipTo(end);
    this.at = end;
    return this.out.content();
  }

  // finish(end), as a copy.
  apply(end) {
    return this.finish(end).slice();
  }
}

function encodeFuncType({ params, results }) {
  return concatBytes([
    Uint8Array.of(0x60),
    encodeVector(params.map((t) => Uint8Array.of(t))),
    encodeVector(results.map((t) => Uint8Array.of(t))),
  ]);
}

function encodeSection(id, content) {
  return concatBytes(sectionParts(id, content));
}

// A section as parts (its content not copied: the module's one copy is the
// output's concatenation).
function sectionParts(id, content) {
  return [Uint8Array.of(id), encodeU(content.length), content];
}

// A vector section with items appended: the new count, the old items, the new ones.
function appendToVector(bytes, section, items) {
  if (!section) return encodeVector(items);
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  return concatBytes([encodeU(count + items.length), bytes.subarray(r.pos, section.end), ...items]);
}

// Rewrites the expression at r.pos (to its closing end) into patches:
// function indices shifted, instructions replaced where asked.
function patchExpression(r, patches, ctx, replace) {
  const { shift, firstDefined, wanted } = ctx;
  const visit = (ins) => {
    const op = ins.op;
    if (replace !== undefined && (wanted === null || (op < 256 ? wanted.single[op] === 1 : wanted.prefixed.has(op)))) {
      const replacement = replace(ins, ctx.indices);
      if (replacement !== undefined) {
        if (op === OP.end || op === OP.block || op === OP.loop || op === OP.if || op === OP.try || op === OP.tryTable) {
          throw new TypeError("transformModule: a pass may not replace a structured instruction.");
        }
        patches.add(ins.start, ins.end, replacement);
        ctx.replaced++;
        return;
      }
    }
    if (shift > 0 && ins.funcAt >= 0 && ins.func >= firstDefined) patches.addU(ins.funcAt, ins.end, ins.func + shift);
  };
  walkExpression(r, visit, ctx.firstBytes);
}

// plan.ops (opcodes, prefixed ones as in lib/wasm/instructions.js) -> a
// quick membership test, or null: replace sees every instruction.
function wantedOps(ops) {
  if (!ops) return null;
  const single = new Uint8Array(256);
  const prefixed = new Set();
  for (const op of ops) {
    if (op < 256) single[op] = 1;
    else prefixed.add(op);
  }
  return { single, prefixed };
}

// The first opcode bytes a walk must stop at: the wanted ops (their prefix
// for a prefixed one) and, when indices move, the instructions that name a
// function. null when every instruction is wanted.
function firstBytesOf(wanted, shift) {
  if (wanted === null) return null;
  const first = wanted.single.slice();
  for (const op of wanted.prefixed) first[Math.floor(op / 0x10000)] = 1;
  if (shift > 0) for (const op of [OP.call, OP.returnCall, OP.refFunc]) first[op] = 1;
  return first;
}

// A function index at r.pos (an export, the start function, an element).
function patchIndex(r, patches, ctx) {
  const at = r.pos;
  const index = r.u();
  if (index >= ctx.firstDefined && ctx.shift > 0) patches.addU(at, r.pos, index + ctx.shift);
}

// The smallest code section rewritten in wasm: making the instance costs a
// few ms of a fresh process, about what the JS walker takes for 64 KiB.
const WASM_FROM_BYTES = 65536;

function rewriteCode(bytes, section, ctx, plan, appended) {
  const wasmFrom = plan.wasmFromBytes ?? WASM_FROM_BYTES;
  if (plan.callsFor && appended.length === 0 && !plan.jsOnly && section.end - section.contentStart >= wasmFrom) {
    const calls = plan.callsFor.map(([op, position]) => [op, ctx.indices.imports[position]]);
    const fast = rewriteCodeInWasm(bytes, section, { firstDefined: ctx.firstDefined, shift: ctx.shift, calls });
    if (fast !== null) {
      ctx.replaced += fast.replaced;
      return fast.content;
    }
  }
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  const patches = new Patches(bytes);
  const out = new Writer(section.end - section.contentStart + 64);
  out.u(count + appended.length);
  for (let i = 0; i < count; i++) {
    const sizeAt = r.pos;
    const size = r.u();
    const start = r.pos;
    const end = start + size;
    const body = new Reader(bytes, start, end);
    skipLocals(body);
    patches.begin(start);
    patchExpression(body, patches, ctx, plan.replace);
    if (body.pos !== end) throw new TypeError(`wasm binary has a function body that ends early (at ${body.pos}, not ${end}).`);
    if (patches.edits === 0)
      out.copy(bytes, sizeAt, end); // as it was, size bytes included
    else {
      const content = patches.finish(end);
      out.u(content.length);
      out.bytes(content);
    }
    r.pos = end;
  }
  for (const body of appended) {
    out.u(body.length);
    out.bytes(body);
  }
  return out.content();
}

function encodeBody({ locals = [] }, instructions) {
  const groups = locals.map((t) => concatBytes([encodeU(1), Uint8Array.of(t)]));
  return concatBytes([encodeVector(groups), instructions]);
}

function rewriteExports(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    r.name();
    const kind = r.byte();
    if (kind === 0) patchIndex(r, patches, ctx);
    else r.u();
  }
  return patches.apply(section.end);
}

function rewriteStart(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  patchIndex(r, patches, ctx);
  return patches.apply(section.end);
}

function rewriteGlobals(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    readValueType(r);
    r.byte();
    patchExpression(r, patches, ctx);
  }
  return patches.apply(section.end);
}

function rewriteTables(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    const withInit = r.peek() === 0x40;
    if (withInit) {
      r.byte();
      r.byte(); // reserved 0x00
    }
    readValueType(r);
    skipLimits(r);
    if (withInit) patchExpression(r, patches, ctx);
  }
  return patches.apply(section.end);
}

function rewriteElements(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    const flags = r.u();
    if (flags > 7) throw new TypeError(`wasm binary has an element segment with flags ${flags}.`);
    const active = (flags & 1) === 0;
    const explicitTable = (flags & 2) !== 0;
    const expressions = (flags & 4) !== 0;
    if (active && explicitTable) r.u();
    if (active) patchExpression(r, patches, ctx);
    if (!active || explicitTable) {
      if (expressions) readValueType(r);
      else r.byte(); // elemkind
    }
    const items = r.u();
    for (let j = 0; j < items; j++) {
      if (expressions) patchExpression(r, patches, ctx);
      else patchIndex(r, patches, ctx);
    }
  }
  return patches.apply(section.end);
}

// A name, not decoded (only its length is read).
function skipName(r) {
  r.skip(r.u());
}

// The "name" section: function names (1), local names (2) and label names
// (3) are keyed by function index. A malformed one is copied as it is (an
// engine ignores it too).
function rewriteNames(bytes, section, ctx) {
  try {
    const r = new Reader(bytes, section.contentStart, section.end);
    r.name(); // "name"
    const out = [bytes.subarray(section.contentStart, r.pos)];
    const patches = new Patches(bytes);
    while (!r.atEnd()) {
      const id = r.byte();
      const size = r.u();
      const start = r.pos;
      const sub = new Reader(bytes, start, start + size);
      r.skip(size);
      patches.begin(start);
      if (id >= 1 && id <= 3) {
        const count = sub.u();
        for (let i = 0; i < count; i++) {
          patchIndex(sub, patches, ctx);
          if (id === 1) skipName(sub);
          else {
            const inner = sub.u();
            for (let j = 0; j < inner; j++) {
              sub.u();
              skipName(sub);
            }
          }
        }
      }
      const content = patches.apply(start + size);
      out.push(Uint8Array.of(id), encodeU(content.length), content);
    }
    return concatBytes(out);
  } catch {
    return bytes.subarray(section.contentStart, section.end);
  }
}

export function transformModule(bytes, plan) {
  const sections = readSections(bytes);
  const imports = plan.imports ?? [];
  const functions = plan.functions ?? [];
  const typeSection = find(sections, SECTION.type);
  const importSection = find(sections, SECTION.import);
  const types = countTypes(bytes, typeSection);
  const firstDefined = countImportedFunctions(bytes, importSection);
  const defined = vectorCount(bytes, find(sections, SECTION.function));
  const shift = imports.length;
  const indices = {
    imports: imports.map((_, i) => firstDefined + i),
    functions: functions.map((_, i) => firstDefined + shift + defined + i),
  };
  const wanted = wantedOps(plan.ops);
  const ctx = { firstDefined, shift, indices, replaced: 0, wanted, firstBytes: firstBytesOf(wanted, shift) };
  // New types: imports' first, then the functions'.
  const newTypes = [...imports, ...functions].map(encodeFuncType);
  const importEntries = imports.map((imp, i) =>
    concatBytes([encodeName(imp.module), encodeName(imp.name), Uint8Array.of(0), encodeU(types + i)]),
  );
  const functionEntries = functions.map((_, i) => encodeU(types + imports.length + i));
  const appendedBodies = functions.map((f) => encodeBody(f, f.body(indices)));

  const content = new Map(); // section id -> new content (known sections)
  if (newTypes.length) content.set(SECTION.type, appendToVector(bytes, typeSection, newTypes));
  if (importEntries.length) content.set(SECTION.import, appendToVector(bytes, importSection, importEntries));
  if (functionEntries.length) {
    content.set(SECTION.function, appendToVector(bytes, find(sections, SECTION.function), functionEntries));
  }
  const rewrite = [
    [SECTION.table, rewriteTables],
    [SECTION.global, rewriteGlobals],
    [SECTION.export, rewriteExports],
    [SECTION.start, rewriteStart],
    [SECTION.element, rewriteElements],
  ];
  if (shift > 0) {
    for (const [id, fn] of rewrite) {
      const s = find(sections, id);
      if (s) content.set(id, fn(bytes, s, ctx));
    }
  }
  const code = find(sections, SECTION.code);
  if (code || appendedBodies.length) {
    content.set(SECTION.code, code ? rewriteCode(bytes, code, ctx, plan, appendedBodies) : encodeVector(appendedBodies));
  }
  if (plan.onlyIfReplaced && ctx.replaced === 0) return bytes;

  const out = [bytes.subarray(0, 8)];
  const pending = new Map(content); // sections the module lacks are inserted in order
  const flushBefore = (id) => {
    for (const [missing, c] of pending) {
      if (ORDER.indexOf(missing) < ORDER.indexOf(id) && !find(sections, missing)) {
        out.push(encodeSection(missing, c));
        pending.delete(missing);
      }
    }
  };
  for (const s of sections) {
    if (s.id !== SECTION.custom) flushBefore(s.id);
    if (s.id === SECTION.custom && s.name === "name" && shift > 0) out.push(encodeSection(0, rewriteNames(bytes, s, ctx)));
    else if (content.has(s.id) && s.id !== SECTION.custom) {
      out.push(...sectionParts(s.id, content.get(s.id)));
      pending.delete(s.id);
    } else out.push(bytes.subarray(s.start, s.end));
  }
  for (const id of ORDER) {
    if (pending.has(id)) out.push(encodeSection(id, pending.get(id)));
  }
  return concatBytes(out);
}

// For tests and passes: reads every instruction of a module once (a cheap
// check that the walker knows all of it).
export function readInstructions(bytes) {
  let count = 0;
  scanCode(bytes, () => count++);
  return count;
}

export { readInstruction };
