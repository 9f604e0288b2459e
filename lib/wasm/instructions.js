// The instruction level of the wasm binary format: readInstruction() reads
// one instruction with every immediate encoding a toolchain emits today:
// the MVP, sign extension, multi-value block types (s33 type indices),
// reference types, bulk memory and table ops (0xFC), SIMD and relaxed SIMD
// (0xFD), threads (0xFE), exception handling (legacy try/catch/delegate/
// rethrow and try_table/throw_ref), tail calls, typed function references,
// GC (0xFB, the standard encoding), multi-memory memargs and memory64
// offsets. An opcode it does not know is a TypeError that names it: a pass
// never guesses at a length.
//
// An instruction is returned as
//   { op, start, end, func, funcAt }
// op: the opcode, prefixed ones as prefix * 0x10000 + sub-opcode (memory.fill
// is 0xfc000b); start/end: its bytes in the module; func: the function index
// of call, return_call and ref.func (undefined otherwise), and funcAt the
// offset of that immediate (its LEB128 runs to the next immediate or `end`).

const PREFIX = 0x10000;
export const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  try: 0x06,
  end: 0x0b,
  call: 0x10,
  returnCall: 0x12,
  memorySize: 0x3f,
  memoryGrow: 0x40,
  refFunc: 0xd2,
  tryTable: 0x1f,
  misc: 0xfc,
  simd: 0xfd,
  atomic: 0xfe,
  gc: 0xfb,
  memoryAtomicWait32: 0xfe * PREFIX + 0x01,
  memoryAtomicWait64: 0xfe * PREFIX + 0x02,
  memoryFill: 0xfc * PREFIX + 0x0b,
  memoryCopy: 0xfc * PREFIX + 0x0a,
  memoryInit: 0xfc * PREFIX + 0x08,
};

// Immediate kinds. u: one u32; uu: two; bt: a block type; mem: a memarg;
// br_table, select_t, try_table, lane (one byte), v16 (16 bytes), f32/f64,
// s32/s64 consts, ht: a heap type, cast: br_on_cast's flags, label, 2 heap types.
const MVP = new Map();
const set = (kind, ...ops) => ops.forEach((op) => MVP.set(op, kind));
set("", 0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4);
set("bt", 0x02, 0x03, 0x04, 0x06);
set("u", 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26);
set("u", 0x3f, 0x40, 0xd2, 0xd5, 0xd6);
set("uu", 0x11, 0x13);
set("br_table", 0x0e);
set("select_t", 0x1c);
set("try_table", 0x1f);
for (let op = 0x28; op <= 0x3e; op++) MVP.set(op, "mem");
set("s32", 0x41);
set("s64", 0x42);
set("f32", 0x43);
set("f64", 0x44);
for (let op = 0x45; op <= 0xc4; op++) MVP.set(op, "");
set("ht", 0xd0);

// 0xFC: 0-7 saturating truncations; the bulk memory and table ops.
const MISC = ["", "", "", "", "", "", "", "", "uu", "u", "uu", "u", "uu", "u", "uu", "u", "u", "u"];

// 0xFB (GC, standard numbering).
const GC = new Map();
const gc = (kind, ...ops) => ops.forEach((op) => GC.set(op, kind));
gc("u", 0, 1, 6, 7, 11, 12, 13, 14, 16);
gc("uu", 2, 3, 4, 5, 8, 9, 10, 17, 18, 19);
gc("", 15, 26, 27, 28, 29, 30);
gc("ht", 20, 21, 22, 23);
gc("cast", 24, 25);

// 0xFD (SIMD): memargs, lanes, 16-byte immediates; the rest have none
// (relaxed SIMD included: 0x100-0x113).
function simdKind(sub) {
  if (sub <= 11 || sub === 92 || sub === 93) return "mem";
  if (sub === 12 || sub === 13) return "v16";
  if (sub >= 21 && sub <= 34) return "lane";
  if (sub >= 84 && sub <= 91) return "memlane";
  if (sub <= 0x113) return "";
  return null;
}

// 0xFE (threads): notify, waits and every atomic load/store/rmw take a
// memarg; atomic.fence one zero byte.
function atomicKind(sub) {
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) return "mem";
  if (sub === 0x03) return "lane";
  return null;
}

export function readBlockType(r) {
  const b = r.peek();
  if (b === 0x40) return r.byte();
  if (b === 0x63 || b === 0x64) {
    r.byte();
    return r.s(33);
  }
  return r.s(33); // a value type (one negative byte) or a type index
}

export function readValueType(r) {
  const b = r.byte();
  if (b === 0x63 || b === 0x64) r.s(33); // (ref null? heaptype)
  return b;
}

function readMemarg(r) {
  const align = r.u();
  if (align & 0x40) r.u(); // multi-memory: a memory index follows
  r.u(64); // offset (u64 for a 64-bit memory)
}

function readImmediates(r, kind, ins) {
  switch (kind) {
    case "":
      return;
    case "u":
      if (ins.op === OP.call || ins.op === OP.returnCall || ins.op === OP.refFunc) {
        ins.funcAt = r.pos;
        ins.func = r.u();
      } else r.u();
      return;
    case "uu":
      r.u();
      r.u();
      return;
    case "bt":
      readBlockType(r);
      return;
    case "mem":
      readMemarg(r);
      return;
    case "memlane":
      readMemarg(r);
      r.byte();
      return;
    case "lane":
      r.byte();
      return;
    case "v16":
      r.skip(16);
      return;
    case "br_table": {
      const count = r.u();
      for (let i = 0; i <= count; i++) r.u();
      return;
    }
    case "select_t": {
      const count = r.u();
      for (let i = 0; i < count; i++) readValueType(r);
      return;
    }
    case "try_table": {
      readBlockType(r);
      const count = r.u();
      for (let i = 0; i < count; i++) {
        const catchKind = r.byte();
        if (catchKind > 3) throw new TypeError(`wasm binary has a try_table catch of kind ${catchKind}.`);
        if (catchKind <= 1) r.u(); // tag
        r.u(); // label
      }
      return;
    }
    case "s32":
      r.s(32);
      return;
    case "s64":
      r.s(64);
      return;
    case "f32":
      r.skip(4);
      return;
    case "f64":
      r.skip(8);
      return;
    case "ht":
      r.s(33);
      return;
    case "cast":
      r.byte();
      r.u();
      r.s(33);
      r.s(33);
      return;
  }
}

function unknown(op, at) {
  const name = op >= PREFIX ? `0x${(op >>> 16).toString(16)} ${op & 0xffff}` : `0x${op.toString(16)}`;
  return new TypeError(`wasm binary has an instruction (opcode ${name}) at offset ${at} that is not read here.`);
}

// Reads one instruction at r.pos (see the top of the file for the record).
export function readInstruction(r) {
  const start = r.pos;
  const first = r.byte();
  const ins = { op: first, start, end: start, func: undefined, funcAt: -1 };
  let kind;
  if (first === OP.misc || first === OP.simd || first === OP.atomic || first === OP.gc) {
    const sub = r.u();
    ins.op = first * PREFIX + sub;
    if (first === OP.misc) kind = MISC[sub];
    else if (first === OP.simd) kind = simdKind(sub);
    else if (first === OP.atomic) kind = atomicKind(sub);
    else kind = GC.get(sub);
  } else kind = MVP.get(first);
  if (kind === undefined || kind === null) throw unknown(ins.op, start);
  readImmediates(r, kind, ins);
  ins.end = r.pos;
  return ins;
}

// Opens a block that a matching `end` closes (try_table included; `else`,
// `catch`, `catch_all` stay in their block; `delegate` closes a try).
function opensBlock(op) {
  return op === OP.block || op === OP.loop || op === OP.if || op === OP.try || op === OP.tryTable;
}

// Calls visit(ins) for each instruction of an expression that starts at
// r.pos and ends with the `end` that closes it (a function body after its
// locals, a constant expression). Leaves r.pos after that `end`.
export function walkExpression(r, visit) {
  let depth = 0;
  for (;;) {
    const ins = readInstruction(r);
    visit?.(ins);
    if (opensBlock(ins.op)) depth++;
    else if (ins.op === OP.end || ins.op === 0x18 /* delegate */) {
      if (depth === 0) {
        if (ins.op === 0x18) throw new TypeError(`wasm binary has a delegate outside a try at offset ${ins.start}.`);
        return;
      }
      depth--;
    }
  }
}

// A function body's locals (after its size): skipped; r.pos then points at
// its first instruction.
export function skipLocals(r) {
  const groups = r.u();
  for (let i = 0; i < groups; i++) {
    r.u();
    readValueType(r);
  }
}
