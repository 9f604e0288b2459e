// The Liftoff pass (issue 29, docs/runtime.md "The Node 20 Liftoff
// hazard"): every memory.atomic.wait32/wait64 of a module becomes a call of
// a small appended function that does only that wait.
//
// V8 11.3's Liftoff (Node 20) loses values it keeps in registers across a
// wait that returns at once: a param, a local, a value on the operand stack
// of the function that waits (measured: each of them reads back wrong in 8
// to 40% of calls until TurboFan replaces the code). A call is different:
// Liftoff spills what lives in registers before every call, and the
// appended function has nothing live across its wait (its three params are
// read before it, and nothing but its result after it). So a module whose
// waits all sit in such functions is safe with Liftoff on, and needs no
// --no-liftoff (lib/worker/liftoff.js decides; its probe is the judge).
//
//   hasAtomicWait(bytes) -> boolean
//   rewriteAtomicWaits(bytes) -> {bytes, rewritten, waits}
//     bytes unchanged (the same object, rewritten false) when the module
//     has no wait; otherwise the module with one function appended per
//     distinct wait instruction (its opcode and memarg: alignment, memory
//     index and offset are copied as they are) and each wait replaced by a
//     call of it. Function indices do not move (appended functions come
//     last), and the wrapper assumes 32-bit addresses: on a memory64 module
//     the result does not validate, which the caller sees as a compile
//     error (and falls back to the flag). waits: how many were replaced.
//     A binary the decoder cannot read is a TypeError (lib/wasm/module.js).

import { Reader, concatBytes, encodeU } from "./reader.js";
import { OP, skipLocals, walkExpression } from "./instructions.js";
import { SECTION, moduleCounts, readSections } from "./module.js";

const I32 = 0x7f;
const I64 = 0x7e;
const LOCAL_GET = 0x20;
const FUNC_TYPE = 0x60;

const find = (sections, id) => sections.find((s) => s.id === id);
// The walker's filter: only the atomic instructions (prefix 0xfe) are visited.
const ATOMICS_ONLY = new Uint8Array(256);
ATOMICS_ONLY[OP.atomic] = 1;
const isWait = (ins) => ins.op === OP.memoryAtomicWait32 || ins.op === OP.memoryAtomicWait64;

// Speed: a compile-time pass must cost less than what it saves (a real
// program's code is hundreds of KB, and the decoder is JS). A wait is the
// prefix byte 0xfe, its sub-opcode 1 or 2 (a LEB128), then its memarg,
// whose alignment (a LEB128) must be the natural one, 2 for wait32 and 3
// for wait64 (with flag 0x40 when a memory index follows). A body without
// that byte pattern has no wait: it is never decoded and is copied as it
// is. (The pattern inside an immediate only costs a decode.)
function leb(body, at) {
  let value = 0;
  for (let i = 0; i < 5 && at + i < body.length; i++) {
    value += (body[at + i] & 0x7f) * 128 ** i;
    if ((body[at + i] & 0x80) === 0) return { value, next: at + i + 1 };
  }
  return { value: -1, next: body.length };
}

function mayWait(body) {
  for (let k = body.indexOf(0xfe); k >= 0; k = body.indexOf(0xfe, k + 1)) {
    const sub = leb(body, k + 1);
    if (sub.value !== 1 && sub.value !== 2) continue;
    const align = leb(body, sub.next).value;
    if (align >= 0 && (align & ~0x40) === sub.value + 1) return true;
  }
  return false;
}

// Every function body of the code section: {sizeAt, start, end, waits:
// [instruction records] (decoded only when mayWait)}.
function readBodies(bytes, code) {
  const r = new Reader(bytes, code.contentStart, code.end);
  const count = r.u();
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const sizeAt = r.pos;
    const size = r.u();
    const start = r.pos;
    r.skip(size);
    const body = { sizeAt, start, end: r.pos, waits: [] };
    if (mayWait(bytes.subarray(start, r.pos))) {
      const br = new Reader(bytes, start, r.pos);
      skipLocals(br);
      // (The walker reuses its record: what is kept is copied.)
      walkExpression(
        br,
        (ins) => {
          if (isWait(ins)) body.waits.push({ op: ins.op, start: ins.start, end: ins.end });
        },
        ATOMICS_ONLY,
      );
      if (br.pos !== r.pos) throw new TypeError("wasm binary has a function body that ends early.");
    }
    bodies.push(body);
  }
  return bodies;
}

export function hasAtomicWait(bytes) {
  const code = readSections(bytes).find((s) => s.id === SECTION.code);
  return code !== undefined && readBodies(bytes, code).some((b) => b.waits.length > 0);
}

// The wait instruction's bytes (opcode and memarg) as a key.
const keyOf = (bytes, ins) => bytes.subarray(ins.start, ins.end).join(",");

// (address i32, expected i32|i64, timeout i64) -> i32.
const wrapperType = (op) => Uint8Array.of(FUNC_TYPE, 3, I32, op === OP.memoryAtomicWait32 ? I32 : I64, I64, 1, I32);

// No locals; the three params, the wait as it was written, end.
const wrapperBody = (code) =>
  concatBytes([Uint8Array.of(0, LOCAL_GET, 0, LOCAL_GET, 1, LOCAL_GET, 2), code, Uint8Array.of(OP.end)]);

// A vector section's content with items appended.
function appendItems(bytes, section, items) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  return concatBytes([encodeU(count + items.length), bytes.subarray(r.pos, section.end), ...items]);
}

// A section as parts (no copy of its content): id, size, content parts.
function sectionParts(id, parts) {
  const size = parts.reduce((n, p) => n + p.length, 0);
  return [Uint8Array.of(id), encodeU(size), ...parts];
}

// A body with each wait replaced by a call of its wrapper, size first.
function patchBody(bytes, body, callOf) {
  const parts = [];
  let at = body.start;
  for (const ins of body.waits) {
    parts.push(bytes.subarray(at, ins.start), callOf(ins));
    at = ins.end;
  }
  parts.push(bytes.subarray(at, body.end));
  return withSize(concatBytes(parts));
}

const withSize = (content) => concatBytes([encodeU(content.length), content]);

// The code section's content as parts: the new count, the unchanged runs
// of bodies as they are, the patched bodies, the wrappers' bodies.
function codeParts(bytes, bodies, added, callOf) {
  const parts = [encodeU(bodies.length + added.length)];
  let run = bodies.length ? bodies[0].sizeAt : 0;
  for (const b of bodies) {
    if (b.waits.length === 0) continue;
    parts.push(bytes.subarray(run, b.sizeAt), patchBody(bytes, b, callOf));
    run = b.end;
  }
  if (bodies.length) parts.push(bytes.subarray(run, bodies[bodies.length - 1].end));
  for (const w of added) parts.push(withSize(wrapperBody(w.code)));
  return parts;
}

export function rewriteAtomicWaits(bytes) {
  const sections = readSections(bytes);
  const code = find(sections, SECTION.code);
  const bodies = code ? readBodies(bytes, code) : [];
  const waits = bodies.reduce((n, b) => n + b.waits.length, 0);
  if (waits === 0) return { bytes, rewritten: false, waits: 0 };
  const { types, importedFunctions, definedFunctions } = moduleCounts(bytes);
  // One wrapper per distinct wait instruction, one type per wait kind.
  const wrappers = new Map(); // key -> {index, code, typeIndex}
  const newTypes = [];
  const typeOf = new Map(); // op -> type index
  for (const ins of bodies.flatMap((b) => b.waits)) {
    const key = keyOf(bytes, ins);
    if (wrappers.has(key)) continue;
    if (!typeOf.has(ins.op)) {
      typeOf.set(ins.op, types + newTypes.length);
      newTypes.push(wrapperType(ins.op));
    }
    const index = importedFunctions + definedFunctions + wrappers.size;
    wrappers.set(key, { index, code: bytes.subarray(ins.start, ins.end), typeIndex: typeOf.get(ins.op) });
  }
  const added = [...wrappers.values()];
  const callOf = (ins) => concatBytes([Uint8Array.of(OP.call), encodeU(wrappers.get(keyOf(bytes, ins)).index)]);
  const replaced = new Map([
    [SECTION.type, [appendItems(bytes, find(sections, SECTION.type), newTypes)]],
    [
      SECTION.function,
      [
        appendItems(
          bytes,
          find(sections, SECTION.function),
          added.map((w) => encodeU(w.typeIndex)),
        ),
      ],
    ],
    [SECTION.code, codeParts(bytes, bodies, added, callOf)],
  ]);
  const out = [bytes.subarray(0, 8)];
  for (const s of sections) {
    if (s.id !== SECTION.custom && replaced.has(s.id)) out.push(...sectionParts(s.id, replaced.get(s.id)));
    else out.push(bytes.subarray(s.start, s.end));
  }
  return { bytes: concatBytes(out), rewritten: true, waits };
}
