/* The code section rewrite of lib/wasm/module.js's transformModule, for a
 * plan whose only edits are function indices moved up by `shift` and
 * instructions swapped for calls of the added imports (plan.callsFor: the
 * memory pass). Compiled to wasm (scripts/build-code-rewriter.js) and run
 * by lib/wasm/code-rewriter.js: JS's walker costs 50-150 ms of a CLI run for
 * zstd.wasm (most of it V8's warm-up), this about a tenth of that.
 *
 * It gives the bytes the JS walker gives, or gives up: any instruction it
 * does not read (SIMD, GC, try_table, an unknown opcode), any number longer
 * than the JS reader accepts, any body that ends early or runs past its
 * size, a swapped instruction with a nonzero immediate, or an output that
 * does not fit is WTP_GIVE_UP, and the caller runs the JS walker, which
 * rewrites the module or says what is wrong with it. Every read is bounded
 * by the end of the body it is in: hostile bytes cannot make it read or
 * write outside the buffers it was given.
 *
 * Single-threaded (a wasm instance of its own per JS thread): the swap table
 * and the replaced count are plain globals. */

#include <stdint.h>

#define WTP_GIVE_UP (-1)

/* Immediate kinds of the MVP opcodes (lib/wasm/instructions.js, MVP). */
enum {
  K_BAD = 0,
  K_NONE,
  K_U,    /* one u32 (lenient skip: the JS fast path) */
  K_FUNC, /* call, return_call, ref.func: one u32, a function index */
  K_UU,   /* two u32 (read strictly: the JS reader) */
  K_BT,   /* a block type */
  K_MEM,  /* a memarg */
  K_S,    /* an s32/s64 const (lenient skip) */
  K_F32,
  K_F64,
  K_BR_TABLE,
  K_SELECT_T,
  K_HT,
  K_PREFIX /* 0xfc, 0xfe: read below; 0xfd and 0xfb give up (K_BAD) */
};

static uint8_t kinds[256];
/* Swaps: for an opcode, 1 + the import position it becomes a call of. */
static uint8_t swaps[256];
static uint32_t swap_call[4]; /* the function index of each added import */
static uint32_t replaced;

static void init_kinds(void);

static void ensure_kinds(void) {
  if (kinds[0x0b] == K_BAD) init_kinds();
}

static void set_kinds(uint8_t kind, uint32_t from, uint32_t to) {
  for (uint32_t op = from; op <= to; op++) kinds[op] = kind;
}

static void init_kinds(void) {
  static const uint8_t none[] = {0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f,
                                 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4};
  static const uint8_t u[] = {0x07, 0x08, 0x09, 0x0c, 0x0d, 0x14, 0x15,
                              0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25,
                              0x26, 0x3f, 0x40, 0xd5, 0xd6};
  for (uint32_t i = 0; i < sizeof none; i++) kinds[none[i]] = K_NONE;
  for (uint32_t i = 0; i < sizeof u; i++) kinds[u[i]] = K_U;
  set_kinds(K_NONE, 0x45, 0xc4);
  set_kinds(K_MEM, 0x28, 0x3e);
  set_kinds(K_BT, 0x02, 0x04);
  kinds[0x06] = K_BT;
  kinds[0x10] = K_FUNC;
  kinds[0x12] = K_FUNC;
  kinds[0xd2] = K_FUNC;
  kinds[0x11] = K_UU;
  kinds[0x13] = K_UU;
  kinds[0x0e] = K_BR_TABLE;
  kinds[0x1c] = K_SELECT_T;
  kinds[0x41] = K_S;
  kinds[0x42] = K_S;
  kinds[0x43] = K_F32;
  kinds[0x44] = K_F64;
  kinds[0xd0] = K_HT;
  kinds[0xfc] = K_PREFIX;
  kinds[0xfe] = K_PREFIX;
}

/* A bounded cursor: fails (ok = 0) instead of reading at or past end. */
typedef struct {
  const uint8_t* p;
  const uint8_t* end;
  int ok;
} cursor_t;

static uint32_t byte_at(cursor_t* c) {
  if (c->p >= c->end) {
    c->ok = 0;
    return 0;
  }
  return *c->p++;
}

/* An unsigned LEB128 of at most `most` bytes (the JS reader's limit for its
 * width), as a uint64. */
static uint64_t leb_u(cursor_t* c, uint32_t most) {
  uint64_t value = 0;
  for (uint32_t i = 0; i < most; i++) {
    uint32_t b = byte_at(c);
    if (!c->ok) return 0;
    value |= (uint64_t)(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  c->ok = 0;
  return 0;
}

/* The JS fast path's skip of a LEB128 (no length limit there; one here
 * that no number of a valid module reaches). */
static void skip_leb(cursor_t* c) { (void)leb_u(c, 10); }

static void skip_value_type(cursor_t* c) {
  uint32_t b = byte_at(c);
  if (b == 0x63 || b == 0x64) (void)leb_u(c, 5); /* s33 heap type */
}

static void skip_block_type(cursor_t* c) {
  if (c->p < c->end && (*c->p == 0x63 || *c->p == 0x64)) c->p++;
  (void)leb_u(c, 5); /* 0x40, a value type, or an s33 type index */
}

/* As the JS reader reads an atomic's memarg (the strictest of its two
 * readers): align and memory index u32, offset u64. */
static void skip_memarg(cursor_t* c) {
  uint64_t align = leb_u(c, 5);
  if (align & 0x40) (void)leb_u(c, 5);
  (void)leb_u(c, 10);
}

/* 0xfc: 0-7 none; 8-17 one or two u32 (lib/wasm/instructions.js, MISC). */
static void skip_misc(cursor_t* c, uint64_t sub) {
  static const uint8_t uu[18] = {0, 0, 0, 0, 0, 0, 0, 0, 2,
                                 1, 2, 1, 2, 1, 2, 1, 1, 1};
  if (sub > 17) {
    c->ok = 0;
    return;
  }
  for (uint32_t i = 0; i < uu[sub]; i++) (void)leb_u(c, 5);
}

/* 0xfe: waits, notify and every atomic load/store/rmw take a memarg;
 * atomic.fence one byte. */
static void skip_atomic(cursor_t* c, uint64_t sub) {
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e))
    skip_memarg(c);
  else if (sub == 0x03)
    (void)byte_at(c);
  else
    c->ok = 0;
}

/* The output: bounded, fails instead of writing past its end. */
typedef struct {
  uint8_t* p;
  uint8_t* end;
  int ok;
} out_t;

static void put_byte(out_t* o, uint32_t b) {
  if (o->p >= o->end) {
    o->ok = 0;
    return;
  }
  *o->p++ = (uint8_t)b;
}

static void put_leb(out_t* o, uint64_t value) {
  do {
    uint32_t b = value & 0x7f;
    value >>= 7;
    put_byte(o, value ? b | 0x80 : b);
  } while (value);
}

static void put_bytes(out_t* o, const uint8_t* from, const uint8_t* to) {
  if (to - from > o->end - o->p) {
    o->ok = 0;
    return;
  }
  __builtin_memcpy(o->p, from, (uint32_t)(to - from)); /* memory.copy */
  o->p += to - from;
}

typedef struct {
  uint32_t first_defined;
  uint32_t shift;
} plan_t;

/* One instruction at c->p (its first byte already read: op), its edit
 * written to `o` (the bytes before it are copied by the caller). Returns 1
 * when it edited (then *copy_from is where the copy resumes), 0 when not. */
static int edit_one(cursor_t* c, uint32_t op, const uint8_t* start,
                    const plan_t* plan, out_t* o, const uint8_t** copy_from) {
  uint32_t kind = kinds[op];
  if (kind == K_FUNC) {
    const uint8_t* at = c->p;
    uint64_t func = leb_u(c, 5);
    if (!c->ok || func > 0xffffffffu) return c->ok = 0, 0;
    if (plan->shift == 0 || func < plan->first_defined) return 0;
    put_bytes(o, *copy_from, at);
    put_leb(o, func + plan->shift);
    *copy_from = c->p;
    return 1;
  }
  if (swaps[op]) {
    uint64_t index = leb_u(c, 5);
    if (!c->ok || index != 0) return c->ok = 0, 0; /* JS says why */
    put_bytes(o, *copy_from, start);
    put_byte(o, 0x10);
    put_leb(o, swap_call[swaps[op] - 1]);
    *copy_from = c->p;
    replaced++;
    return 1;
  }
  return 0;
}

/* Skips the immediates of op (first byte read) that edit_one left. */
static void skip_immediates(cursor_t* c, uint32_t op) {
  switch (kinds[op]) {
    case K_NONE:
    case K_FUNC:
      return;
    case K_U:
      skip_leb(c);
      return;
    case K_UU:
      (void)leb_u(c, 5);
      (void)leb_u(c, 5);
      return;
    case K_BT:
      if (c->p < c->end && *c->p == 0x40)
        c->p++;
      else
        skip_block_type(c);
      return;
    case K_MEM:
      skip_memarg(c);
      return;
    case K_S:
      skip_leb(c);
      return;
    case K_F32:
    case K_F64: {
      uint32_t n = kinds[op] == K_F32 ? 4 : 8;
      if ((uint32_t)(c->end - c->p) < n)
        c->ok = 0;
      else
        c->p += n;
      return;
    }
    case K_BR_TABLE: {
      uint64_t count = leb_u(c, 5);
      for (uint64_t i = 0; c->ok && i <= count; i++) (void)leb_u(c, 5);
      return;
    }
    case K_SELECT_T: {
      uint64_t count = leb_u(c, 5);
      for (uint64_t i = 0; c->ok && i < count; i++) skip_value_type(c);
      return;
    }
    case K_HT:
      (void)leb_u(c, 5);
      return;
    case K_PREFIX: {
      uint64_t sub = leb_u(c, 5);
      if (!c->ok) return;
      if (op == 0xfc)
        skip_misc(c, sub);
      else
        skip_atomic(c, sub);
      return;
    }
    default:
      c->ok = 0;
  }
}

/* One body's expression (after its locals) to its closing end, which must
 * be the body's last byte. Edits go to o. Returns the number of edits, or
 * -1 (give up). */
static int32_t walk_body(cursor_t* c, const plan_t* plan, out_t* o,
                         const uint8_t** copy_from) {
  int32_t edits = 0;
  uint32_t depth = 0;
  for (;;) {
    const uint8_t* start = c->p;
    uint32_t op = byte_at(c);
    if (!c->ok) return -1;
    if (kinds[op] == K_BAD) return -1;
    if (edit_one(c, op, start, plan, o, copy_from))
      edits++;
    else if (c->ok && !(swaps[op] || kinds[op] == K_FUNC))
      skip_immediates(c, op);
    if (!c->ok || !o->ok) return -1;
    if (op == 0x02 || op == 0x03 || op == 0x04 || op == 0x06) {
      depth++;
    } else if (op == 0x0b || op == 0x18) {
      if (depth == 0) return op == 0x0b && c->p == c->end ? edits : -1;
      depth--;
    }
  }
}

static void skip_locals(cursor_t* c) {
  uint64_t groups = leb_u(c, 5);
  for (uint64_t i = 0; c->ok && i < groups; i++) {
    (void)leb_u(c, 5);
    skip_value_type(c);
  }
}

/* One function body at c->p (its size first), copied or rewritten to o. */
static int rewrite_body(cursor_t* section, const plan_t* plan, out_t* o) {
  const uint8_t* size_at = section->p;
  uint64_t size = leb_u(section, 5);
  if (!section->ok || size > (uint64_t)(section->end - section->p)) return 0;
  cursor_t body = {section->p, section->p + size, 1};
  section->p += size;
  skip_locals(&body);
  if (!body.ok) return 0;
  /* The edited body is written after a gap for its size (5 bytes, the most
   * a u32 takes), then moved down to follow its minimal size. */
  uint8_t* gap = o->p;
  if (o->end - o->p < 5) return 0;
  o->p += 5;
  const uint8_t* copy_from = body.end - size;
  int32_t edits = walk_body(&body, plan, o, &copy_from);
  if (edits < 0) return 0;
  if (edits == 0) {
    o->p = gap;
    put_bytes(o, size_at, body.end);
    return o->ok;
  }
  put_bytes(o, copy_from, body.end);
  if (!o->ok) return 0;
  uint32_t length = (uint32_t)(o->p - (gap + 5));
  uint8_t size_bytes[5];
  out_t s = {size_bytes, size_bytes + 5, 1};
  put_leb(&s, length);
  uint32_t n = (uint32_t)(s.p - size_bytes);
  __builtin_memmove(gap + n, gap + 5, length); /* memory.copy */
  __builtin_memcpy(gap, size_bytes, n);
  o->p = gap + n + length;
  return 1;
}

/* Swap setup: opcode `op` (an MVP opcode with one u32 immediate) becomes a
 * call of function `call` (slot 0-3). Reset by wtp_swaps_clear. */
__attribute__((export_name("wtp_swaps_clear"))) void wtp_swaps_clear(void) {
  for (uint32_t i = 0; i < 256; i++) swaps[i] = 0;
}

__attribute__((export_name("wtp_swap"))) int32_t wtp_swap(uint32_t op,
                                                          uint32_t slot,
                                                          uint32_t call) {
  ensure_kinds();
  if (op > 255 || slot > 3 || kinds[op] != K_U) return -1;
  swaps[op] = (uint8_t)(slot + 1);
  swap_call[slot] = call;
  return 0;
}

__attribute__((export_name("wtp_replaced"))) uint32_t wtp_replaced(void) {
  return replaced;
}

/* The rewrite of the code section's content [in, in + in_len) into [out,
 * out + out_cap), in steps: wtp_begin, then wtp_step until it returns 0,
 * then wtp_finish. The caller's JS gives up on any negative result. In
 * steps so that V8 can tier this code up between calls (a wasm function
 * runs its first, baseline code until it returns). */
static struct {
  plan_t plan;
  cursor_t in;
  out_t out;
  uint8_t* out_start;
  uint64_t left; /* bodies not rewritten yet */
} job;

/* Returns the number of bodies, or WTP_GIVE_UP. */
__attribute__((export_name("wtp_begin"))) int32_t wtp_begin(
    const uint8_t* in, uint32_t in_len, uint8_t* out, uint32_t out_cap,
    uint32_t first_defined, uint32_t shift) {
  ensure_kinds();
  replaced = 0;
  job.plan = (plan_t){first_defined, shift};
  job.in = (cursor_t){in, in + in_len, 1};
  job.out = (out_t){out, out + out_cap, 1};
  job.out_start = out;
  job.left = leb_u(&job.in, 5);
  if (!job.in.ok || job.left > 0x7fffffff) return WTP_GIVE_UP;
  put_leb(&job.out, job.left);
  return (int32_t)job.left;
}

/* Rewrites up to `most` more bodies: the number left, or WTP_GIVE_UP. */
__attribute__((export_name("wtp_step"))) int32_t wtp_step(uint32_t most) {
  for (uint32_t i = 0; i < most && job.left > 0; i++, job.left--) {
    if (!rewrite_body(&job.in, &job.plan, &job.out)) return WTP_GIVE_UP;
  }
  return (int32_t)job.left;
}

/* The rewritten section's length, or WTP_GIVE_UP (bodies left, or bytes
 * after the last body). */
__attribute__((export_name("wtp_finish"))) int32_t wtp_finish(void) {
  if (job.left != 0 || job.in.p != job.in.end || !job.out.ok)
    return WTP_GIVE_UP;
  return (int32_t)(job.out.p - job.out_start);
}
