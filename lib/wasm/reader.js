// The byte level of the wasm binary format: a Reader (LEB128 numbers, names,
// raw bytes, with bounds checked: a truncated or malformed binary is a
// TypeError, never a wrong read) and the encoders a pass needs to write
// numbers back. No Node or browser API: any thread may load this file.

export class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }

  atEnd() {
    return this.pos >= this.end;
  }

  byte() {
    if (this.pos >= this.end) throw new TypeError("wasm binary is truncated.");
    return this.bytes[this.pos++];
  }

  peek() {
    if (this.pos >= this.end) throw new TypeError("wasm binary is truncated.");
    return this.bytes[this.pos];
  }

  // Unsigned LEB128 of up to `bits` bits, as a Number (exact up to 2^53;
  // the u64 of a memory64 offset is only skipped past, never used).
  u(bits = 32) {
    // Fast path: one byte (most indices, counts and alignments).
    if (this.pos < this.end && this.bytes[this.pos] < 0x80) return this.bytes[this.pos++];
    let result = 0;
    let scale = 1;
    const most = Math.ceil(bits / 7);
    for (let i = 0; i < most; i++) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new TypeError("wasm binary has a malformed LEB128 number.");
  }

  // Signed LEB128 of up to `bits` bits (s32, s33 block types, s64 consts),
  // as a Number (s64 values beyond 2^53 lose precision: only skipped).
  s(bits = 32) {
    let result = 0;
    let scale = 1;
    const most = Math.ceil(bits / 7);
    for (let i = 0; i < most; i++) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) return b & 0x40 ? result - scale : result;
    }
    throw new TypeError("wasm binary has a malformed LEB128 number.");
  }

  skip(count) {
    if (count > this.end - this.pos) throw new TypeError("wasm binary is truncated.");
    this.pos += count;
  }

  name() {
    const length = this.u();
    const start = this.pos;
    this.skip(length);
    return new TextDecoder().decode(this.bytes.subarray(start, this.pos));
  }
}

// Unsigned LEB128 of a non-negative integer below 2^53.
export function encodeU(value) {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`encodeU: ${value} is not a non-negative integer.`);
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return Uint8Array.from(out);
}

// Signed LEB128 of an integer within ±2^53.
export function encodeS(value) {
  if (!Number.isInteger(value)) throw new RangeError(`encodeS: ${value} is not an integer.`);
  const out = [];
  for (;;) {
    const b = ((value % 128) + 128) % 128;
    value = Math.floor(value / 128);
    const done = (value === 0 && (b & 0x40) === 0) || (value === -1 && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return Uint8Array.from(out);
  }
}

export function encodeName(text) {
  const bytes = new TextEncoder().encode(text);
  return concatBytes([encodeU(bytes.length), bytes]);
}

// A vector: its count, then the items' bytes.
export function encodeVector(items) {
  return concatBytes([encodeU(items.length), ...items]);
}

export function concatBytes(parts) {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// Uint8Array over a BufferSource (no copy).
export function bytesOf(source, what = "wasm") {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && source instanceof SharedArrayBuffer)) {
    return new Uint8Array(source);
  }
  throw new TypeError(`${what} must be a module's bytes (Uint8Array, another ArrayBuffer view, or an ArrayBuffer).`);
}
