/* The thread-wave guest: freestanding C for wasm32 with wasi-threads.
 *
 * It does the work of space-data-module-sdk's thread-wave test guest
 * (SDK-CONTRACT section 5) without wasi-libc: its own spawn/join over the
 * `wasi.thread-spawn` import and wasm atomics, its own per-thread stacks, and
 * the knobs read with WASI environ_get.
 *
 * Exports (the harness's ABI, see guest/README.md):
 *   int  waves(void)           run; 0 or a decline status (20+wave, 30+wave)
 *   u32  wave_output_ptr(void) 8 bytes: the checksum, little-endian
 *   u32  wave_error_ptr(void)  NUL-terminated error text ("" when none)
 *   u32  wave_error_code_ptr(void) NUL-terminated error code ("" when none)
 *   u32  wave_stat(u32 which)  0 spawned, 1 declined, 2 lanes, 3 waves,
 *                              4 rounds, 5 mode (0 "", 1 all, 2 nested),
 *                              6 most records in use at once
 *   wasi_thread_start(tid, arg) (start.s) the thread entry
 *
 * Knobs (environment): SDM_PARITY_THREADS lanes 1..64 (default 1), SDM_WAVES
 * (default 3, clamp 1..1000000), SDM_WAVE_ROUNDS (default 2048, clamp 1..2^20),
 * SDM_WAVE_MODE "" | "all" | "nested" (nested only when lanes > 1).
 *
 * Modes, per wave:
 *   ""      main spawns lanes-1 threads for stripes 1..N-1, runs stripe 0,
 *           joins them;
 *   "all"   main spawns N threads for every stripe and only joins;
 *   "nested" main spawns one coordinator for {first 1, count N-1}, runs
 *           stripe 0 and joins it; the coordinator spawns stripes 2..N-1,
 *           runs stripe 1 and joins them.
 * A declined spawn on the main thread returns 20 + wave, in the coordinator
 * 30 + wave; the threads already created are joined first. */
#include "wave_math.h"

typedef unsigned char u8;

/* ---- imports ------------------------------------------------------------ */

__attribute__((import_module("wasi"), import_name("thread-spawn")))
int wave_thread_spawn(void *start_arg);

__attribute__((import_module("wasi_snapshot_preview1"), import_name("environ_sizes_get")))
int wave_environ_sizes_get(wave_u32 *count, wave_u32 *buf_size);

__attribute__((import_module("wasi_snapshot_preview1"), import_name("environ_get")))
int wave_environ_get(char **environ, char *buf);

/* ---- threads: records, stacks, spawn, join ------------------------------- */

#define WAVE_MAX_THREADS 128u /* live at once; a run needs at most 64 */
#define WAVE_STACK_BYTES (16u * 1024u)

enum { KIND_STRIPE = 1, KIND_COORDINATOR = 2 };

/* start.s reads stack_top at +0 and stores/notifies done at +4. */
typedef struct wave_thread {
  wave_u32 stack_top; /* +0 */
  int done;           /* +4: 0 while running, 1 after wasi_thread_start's body */
  wave_u32 kind;
  wave_u32 wave;
  wave_u32 lane;      /* stripe lane, or the coordinator's first lane */
  wave_u32 count;     /* coordinator: lanes it covers */
  wave_u32 lanes;
  wave_u32 rounds;
  int status;         /* coordinator's result */
  wave_u32 index;
} wave_thread;

_Static_assert(__builtin_offsetof(wave_thread, stack_top) == 0, "start.s");
_Static_assert(__builtin_offsetof(wave_thread, done) == 4, "start.s");

static wave_thread records[WAVE_MAX_THREADS];
static u8 stacks[WAVE_MAX_THREADS][WAVE_STACK_BYTES] __attribute__((aligned(16)));
/* One bit per record; set = in use. Claimed and released with atomic RMW. */
static wave_u32 record_bits[WAVE_MAX_THREADS / 32];
static wave_u32 records_in_use, records_peak;

static wave_u64 cells[WAVE_CELLS];
static u8 output[8];
static char error_text[128];
static char error_code[40];
static wave_u32 stat_spawned, stat_declined;
static wave_u32 cfg_lanes, cfg_waves, cfg_rounds, cfg_mode;

static wave_thread *record_alloc(void) {
  for (wave_u32 w = 0; w < WAVE_MAX_THREADS / 32; w++) {
    wave_u32 bits = __atomic_load_n(&record_bits[w], __ATOMIC_SEQ_CST);
    while (bits != 0xffffffffu) {
      wave_u32 bit = (wave_u32)__builtin_ctz(~bits);
      if (__atomic_compare_exchange_n(&record_bits[w], &bits, bits | (1u << bit), 0,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        wave_u32 index = w * 32 + bit;
        wave_thread *t = &records[index];
        t->index = index;
        t->stack_top = (wave_u32)(__UINTPTR_TYPE__)&stacks[index][WAVE_STACK_BYTES];
        __atomic_store_n(&t->done, 0, __ATOMIC_SEQ_CST);
        t->status = 0;
        wave_u32 now = __atomic_add_fetch(&records_in_use, 1, __ATOMIC_SEQ_CST);
        wave_u32 peak = __atomic_load_n(&records_peak, __ATOMIC_SEQ_CST);
        while (now > peak && !__atomic_compare_exchange_n(&records_peak, &peak, now, 0,
                                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        }
        return t;
      }
    }
  }
  return 0;
}

static void record_free(wave_thread *t) {
  wave_u32 index = t->index;
  __atomic_sub_fetch(&records_in_use, 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_and(&record_bits[index / 32], ~(1u << (index % 32)), __ATOMIC_SEQ_CST);
}

/* 1 if the thread started; 0 if the host declined (the record is freed). */
static int spawn(wave_thread *t) {
  int tid = wave_thread_spawn(t);
  if (tid <= 0) {
    __atomic_add_fetch(&stat_declined, 1, __ATOMIC_SEQ_CST);
    record_free(t);
    return 0;
  }
  __atomic_add_fetch(&stat_spawned, 1, __ATOMIC_SEQ_CST);
  return 1;
}

/* Wait until wasi_thread_start has finished the thread's body, then recycle
 * its record and stack: start.s touches neither after the notify. */
static void wait_done(wave_thread *t) {
  while (__atomic_load_n(&t->done, __ATOMIC_SEQ_CST) == 0)
    __builtin_wasm_memory_atomic_wait32(&t->done, 0, -1);
}

static void join(wave_thread *t) {
  wait_done(t);
  record_free(t);
}

static void join_all(wave_thread **threads, wave_u32 n) {
  for (wave_u32 i = 0; i < n; i++) join(threads[i]);
}

/* ---- errors -------------------------------------------------------------- */

typedef struct { char *p; char *end; } wave_buf;

static void put_str(wave_buf *b, const char *s) {
  while (*s && b->p < b->end) *b->p++ = *s++;
}

static void put_u32(wave_buf *b, wave_u32 v) {
  char digits[10];
  int n = 0;
  do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v);
  while (n && b->p < b->end) *b->p++ = digits[--n];
}

static void set_error(const char *code, const char *what, wave_u32 wave, wave_u32 k, wave_u32 of) {
  wave_buf c = {error_code, error_code + sizeof error_code - 1};
  put_str(&c, code);
  *c.p = 0;
  wave_buf b = {error_text, error_text + sizeof error_text - 1};
  put_str(&b, "wave ");
  put_u32(&b, wave);
  put_str(&b, what);
  put_u32(&b, k);
  put_str(&b, " of ");
  put_u32(&b, of);
  *b.p = 0;
}

/* ---- the work -------------------------------------------------------------- */

static void run_lane(wave_u32 wave, wave_u32 lane, wave_u32 lanes, wave_u32 rounds) {
  wave_run_stripe(cells, wave, wave_stripe_begin(lane, lanes), wave_stripe_end(lane, lanes), rounds);
}

static wave_thread *stripe_record(wave_u32 wave, wave_u32 lane, wave_u32 lanes, wave_u32 rounds) {
  wave_thread *t = record_alloc();
  if (!t) return 0;
  t->kind = KIND_STRIPE;
  t->wave = wave;
  t->lane = lane;
  t->count = 1;
  t->lanes = lanes;
  t->rounds = rounds;
  return t;
}

/* The coordinator of a nested wave: spawns lanes first+1 .. first+count-1,
 * runs lane `first`, joins. */
static int coordinate(wave_u32 wave, wave_u32 first, wave_u32 count, wave_u32 lanes, wave_u32 rounds) {
  wave_thread *threads[WAVE_MAX_LANES];
  wave_u32 created = 0;
  for (wave_u32 k = 1; k < count; k++) {
    wave_thread *t = stripe_record(wave, first + k, lanes, rounds);
    if (!t || !spawn(t)) {
      if (!t) __atomic_add_fetch(&stat_declined, 1, __ATOMIC_SEQ_CST);
      join_all(threads, created);
      /* spawn k+1 of the wave's N-1: the coordinator itself was spawn 1 */
      set_error("thread-spawn-declined", " nested thread declined spawn ", wave, k + 1, count);
      return 30 + (int)wave;
    }
    threads[created++] = t;
  }
  run_lane(wave, first, lanes, rounds);
  join_all(threads, created);
  return 0;
}

/* Called by start.s with the thread's own stack in place. */
void wave_thread_main(int tid, wave_thread *t) {
  (void)tid;
  if (t->kind == KIND_COORDINATOR)
    t->status = coordinate(t->wave, t->lane, t->count, t->lanes, t->rounds);
  else
    run_lane(t->wave, t->lane, t->lanes, t->rounds);
}

static int run_wave(wave_u32 wave) {
  const wave_u32 lanes = cfg_lanes, rounds = cfg_rounds;
  wave_thread *threads[WAVE_MAX_LANES];
  wave_u32 created = 0;

  if (cfg_mode == 2 && lanes > 1) {
    wave_thread *c = record_alloc();
    if (c) {
      c->kind = KIND_COORDINATOR;
      c->wave = wave;
      c->lane = 1;
      c->count = lanes - 1;
      c->lanes = lanes;
      c->rounds = rounds;
    }
    if (!c || !spawn(c)) {
      if (!c) __atomic_add_fetch(&stat_declined, 1, __ATOMIC_SEQ_CST);
      set_error("thread-spawn-declined", " declined spawn ", wave, 1, 1);
      return 20 + (int)wave;
    }
    run_lane(wave, 0, lanes, rounds);
    wait_done(c);
    int status = c->status;
    record_free(c);
    return status;
  }

  const wave_u32 first = cfg_mode == 1 ? 0 : 1;
  for (wave_u32 lane = first; lane < lanes; lane++) {
    wave_thread *t = stripe_record(wave, lane, lanes, rounds);
    if (!t || !spawn(t)) {
      if (!t) __atomic_add_fetch(&stat_declined, 1, __ATOMIC_SEQ_CST);
      join_all(threads, created);
      set_error("thread-spawn-declined", " declined spawn ", wave, lane - first + 1, lanes - first);
      return 20 + (int)wave;
    }
    threads[created++] = t;
  }
  if (first == 1) run_lane(wave, 0, lanes, rounds);
  join_all(threads, created);
  return 0;
}

/* ---- knobs --------------------------------------------------------------- */

#define ENV_MAX_VARS 1024u
#define ENV_MAX_BYTES 65536u
static char *env_vars[ENV_MAX_VARS];
static char env_bytes[ENV_MAX_BYTES];
static wave_u32 env_count;

static int env_load(void) {
  wave_u32 count = 0, size = 0;
  env_count = 0;
  if (wave_environ_sizes_get(&count, &size) != 0) return 0;
  if (count > ENV_MAX_VARS || size > ENV_MAX_BYTES) return -1;
  if (count && wave_environ_get(env_vars, env_bytes) != 0) return 0;
  env_count = count;
  return 0;
}

static const char *env_find(const char *name) {
  for (wave_u32 i = 0; i < env_count; i++) {
    const char *e = env_vars[i], *n = name;
    while (*n && *e == *n) { e++; n++; }
    if (!*n && *e == '=') return e + 1;
  }
  return 0;
}

/* Leading decimal digits (saturating), clamped to [lo, hi]; absent or empty
 * gives the default, no digits at all gives lo (as atoi's 0 would). */
static wave_u32 env_u32(const char *name, wave_u32 dflt, wave_u32 lo, wave_u32 hi) {
  const char *s = env_find(name);
  if (!s || !*s) return dflt;
  wave_u64 v = 0;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (wave_u64)(*s++ - '0');
    if (v > hi) { v = hi; break; }
  }
  if (v < lo) v = lo;
  return (wave_u32)v;
}

static int str_eq(const char *a, const char *b) {
  while (*a && *a == *b) { a++; b++; }
  return *a == *b;
}

/* ---- exports ------------------------------------------------------------- */

__attribute__((export_name("waves")))
int waves(void) {
  error_text[0] = 0;
  error_code[0] = 0;
  for (int b = 0; b < 8; b++) output[b] = 0;
  __atomic_store_n(&stat_spawned, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&stat_declined, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&records_peak, __atomic_load_n(&records_in_use, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);

  if (env_load() != 0) {
    wave_buf c = {error_code, error_code + sizeof error_code - 1};
    put_str(&c, "environment-too-large");
    *c.p = 0;
    wave_buf b = {error_text, error_text + sizeof error_text - 1};
    put_str(&b, "the environment exceeds the guest's buffer");
    *b.p = 0;
    return 1;
  }
  cfg_lanes = env_u32("SDM_PARITY_THREADS", 1, 1, WAVE_MAX_LANES);
  cfg_waves = env_u32("SDM_WAVES", WAVE_DEFAULT_WAVES, 1, WAVE_MAX_WAVES);
  cfg_rounds = env_u32("SDM_WAVE_ROUNDS", WAVE_DEFAULT_ROUNDS, 1, WAVE_MAX_ROUNDS);
  const char *mode = env_find("SDM_WAVE_MODE");
  cfg_mode = !mode ? 0 : str_eq(mode, "all") ? 1 : str_eq(mode, "nested") ? 2 : 0;

  wave_reset(cells);
  for (wave_u32 w = 0; w < cfg_waves; w++) {
    int status = run_wave(w);
    if (status) return status;
  }
  wave_store_le(output, wave_checksum(cells));
  return 0;
}

__attribute__((export_name("wave_output_ptr")))
wave_u32 wave_output_ptr(void) { return (wave_u32)(__UINTPTR_TYPE__)output; }

__attribute__((export_name("wave_error_ptr")))
wave_u32 wave_error_ptr(void) { return (wave_u32)(__UINTPTR_TYPE__)error_text; }

__attribute__((export_name("wave_error_code_ptr")))
wave_u32 wave_error_code_ptr(void) { return (wave_u32)(__UINTPTR_TYPE__)error_code; }

__attribute__((export_name("wave_stat")))
wave_u32 wave_stat(wave_u32 which) {
  switch (which) {
    case 0: return __atomic_load_n(&stat_spawned, __ATOMIC_SEQ_CST);
    case 1: return __atomic_load_n(&stat_declined, __ATOMIC_SEQ_CST);
    case 2: return cfg_lanes;
    case 3: return cfg_waves;
    case 4: return cfg_rounds;
    case 5: return cfg_mode;
    case 6: return __atomic_load_n(&records_peak, __ATOMIC_SEQ_CST);
    default: return 0;
  }
}
