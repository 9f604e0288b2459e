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
// walkExpression hands the same record to every visit (copy what you keep).

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

// Immediate kinds (numbers, for a fast dispatch). NONE; U: one u32; UU: two;
// BT: a block type; MEM: a memarg; MEMLANE: a memarg and a lane; LANE: one
// byte; V16: 16 bytes; BR_TABLE; SELECT_T: value types; TRY_TABLE; S32/S64
// consts; F32/F64 consts; HT: a heap type; CAST: br_on_cast's flags, label
// and two heap types; BAD: not an instruction this reader knows.
const NONE = 0;
const U = 1;
const UU = 2;
const BT = 3;
const MEM = 4;
const MEMLANE = 5;
const LANE = 6;
const V16 = 7;
const BR_TABLE = 8;
const SELECT_T = 9;
const TRY_TABLE = 10;
const S32 = 11;
const S64 = 12;
const F32 = 13;
const F64 = 14;
const HT = 15;
const CAST = 16;
const BAD = 255;

const MVP = new Uint8Array(256).fill(BAD);
const set = (kind, ...ops) => ops.forEach((op) => (MVP[op] = kind));
set(NONE, 0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4);
set(BT, 0x02, 0x03, 0x04, 0x06);
set(U, 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26);
set(U, 0x3f, 0x40, 0xd2, 0xd5, 0xd6);
set(UU, 0x11, 0x13);
set(BR_TABLE, 0x0e);
set(SELECT_T, 0x1c);
set(TRY_TABLE, 0x1f);
for (let op = 0x28; op <= 0x3e; op++) MVP[op] = MEM;
set(S32, 0x41);
set(S64, 0x42);
set(F32, 0x43);
set(F64, 0x44);
for (let op = 0x45; op <= 0xc4; op++) MVP[op] = NONE;
set(HT, 0xd0);

// 0xFC: 0-7 saturating truncations; the bulk memory and table ops.
const MISC = [NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, UU, U, UU, U, UU, U, UU, U, U, U];

// 0xFB (GC, standard numbering).
const GC = new Map();
const gc = (kind, ...ops) => ops.forEach((op) => GC.set(op, kind));
gc(U, 0, 1, 6, 7, 11, 12, 13, 14, 16);
gc(UU, 2, 3, 4, 5, 8, 9, 10, 17, 18, 19);
gc(NONE, 15, 26, 27, 28, 29, 30);
gc(HT, 20, 21, 22, 23);
gc(CAST, 24, 25);

// 0xFD (SIMD): memargs, lanes, 16-byte immediates; the rest have none
// (relaxed SIMD included: 0x100-0x113).
function simdKind(sub) {
  if (sub <= 11 || sub === 92 || sub === 93) return MEM;
  if (sub === 12 || sub === 13) return V16;
  if (sub >= 21 && sub <= 34) return LANE;
  if (sub >= 84 && sub <= 91) return MEMLANE;
  if (sub <= 0x113) return NONE;
  return BAD;
}

// 0xFE (threads): notify, waits and every atomic load/store/rmw take a
// memarg; atomic.fence one zero byte.
function atomicKind(sub) {
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) return MEM;
  if (sub === 0x03) return LANE;
  return BAD;
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
    case NONE:
      return;
    case U:
      if (ins.op === OP.call || ins.op === OP.returnCall || ins.op === OP.refFunc) {
        ins.funcAt = r.pos;
        ins.func = r.u();
      } else r.u();
      return;
    case UU:
      r.u();
      r.u();
      return;
    case BT:
      readBlockType(r);
      return;
    case MEM:
      readMemarg(r);
      return;
    case MEMLANE:
      readMemarg(r);
      r.byte();
      return;
    case LANE:
      r.byte();
      return;
    case V16:
      r.skip(16);
      return;
    case BR_TABLE: {
      const count = r.u();
      for (let i = 0; i <= count; i++) r.u();
      return;
    }
    case SELECT_T: {
      const count = r.u();
      for (let i = 0; i < count; i++) readValueType(r);
      return;
    }
    case TRY_TABLE: {
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
    case S32:
      r.s(32);
      return;
    case S64:
      r.s(64);
      return;
    case F32:
      r.skip(4);
      return;
    case F64:
      r.skip(8);
      return;
    case HT:
      r.s(33);
      return;
    case CAST:
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

// Reads one instruction at r.pos into `ins` (a new record when absent; see
// the top of the file) and returns it.
export function readInstruction(r, ins = { op: 0, start: 0, end: 0, func: undefined, funcAt: -1 }) {
  const start = r.pos;
  const first = r.byte();
  ins.op = first;
  ins.start = start;
  ins.func = undefined;
  ins.funcAt = -1;
  let kind = MVP[first];
  if (first === OP.misc || first === OP.simd || first === OP.atomic || first === OP.gc) {
    const sub = r.u();
    ins.op = first * PREFIX + sub;
    if (first === OP.misc) kind = MISC[sub] ?? BAD;
    else if (first === OP.simd) kind = simdKind(sub);
    else if (first === OP.atomic) kind = atomicKind(sub);
    else kind = GC.get(sub) ?? BAD;
  }
  if (kind === BAD) throw unknown(ins.op, start);
  readImmediates(r, kind, ins);
  ins.end = r.pos;
  return ins;
}

// Calls visit(ins) for each instruction of an expression that starts at
// r.pos and ends with the `end` that closes it (a function body after its
// locals, a constant expression). Leaves r.pos after that `end`. The record
// is reused from one instruction to the next: copy what you keep. only: a
// Uint8Array(256) by first opcode byte (a prefixed instruction: its prefix),
// 1 for the instructions visit wants; null: every instruction.
export function walkExpression(r, visit, only = null) {
  let depth = 0;
  const ins = { op: 0, start: 0, end: 0, func: undefined, funcAt: -1 };
  const bytes = r.bytes;
  const end = r.end;
  let p = r.pos;
  for (;;) {
    // The frequent instructions are read here, in one loop (a pass walks
    // every instruction of a module: this is its cost); the rest by
    // readInstruction. A LEB128 that runs past `end` is caught after it.
    const start = p;
    if (p >= end) throw new TypeError("wasm binary is truncated.");
    const op = bytes[p++];
    const kind = MVP[op];
    ins.func = undefined;
    ins.funcAt = -1;
    let fast = true;
    if (kind === NONE) {
      // no immediate
    } else if (kind === U && op !== OP.call && op !== OP.returnCall && op !== OP.refFunc) {
      while (bytes[p++] & 0x80);
    } else if (kind === MEM) {
      const align = bytes[p];
      while (bytes[p++] & 0x80);
      if (align & 0x40) while (bytes[p++] & 0x80);
      while (bytes[p++] & 0x80);
    } else if (kind === S32 || kind === S64) {
      while (bytes[p++] & 0x80);
    } else if (kind === BT && bytes[p] === 0x40) {
      p++;
    } else {
      fast = false;
      r.pos = start;
      readInstruction(r, ins); // sets op (prefixed), start, end, func
      p = r.pos;
    }
    if (p > end) throw new TypeError("wasm binary is truncated.");
    if (fast) {
      ins.op = op;
      ins.start = start;
      ins.end = p;
    }
    if (visit !== undefined && (only === null || only[op] === 1)) visit(ins);
    const code = ins.op;
    if (code === OP.block || code === OP.loop || code === OP.if || code === OP.try || code === OP.tryTable) depth++;
    else if (code === OP.end || code === 0x18 /* delegate */) {
      if (depth === 0) {
        if (code === 0x18) throw new TypeError(`wasm binary has a delegate outside a try at offset ${start}.`);
        r.pos = p;
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
