/* The thread-wave arithmetic, shared by the wasm guest (wave.c) and the
 * native reference check (wave_ref.c), so the check proves the guest's math.
 *
 * A grid of WAVE_CELLS u64 cells starts as cells[i] = i. Each wave splits the
 * grid into N stripes (lane s: begin = 840*s/N, end = 840*(s+1)/N in u64), and
 * every cell becomes
 *     v = cells[i] ^ ((u64)(wave+1) << 40) ^ i;  rounds x: v = mix64(v + r)
 * The result is sum = 0x9e3779b97f4a7c15, then sum = mix64(sum ^ cells[i]) over
 * all cells, written as 8 bytes little-endian. Cells are independent, so the
 * bytes do not depend on N or on which thread runs which stripe. */
#ifndef WAVE_MATH_H
#define WAVE_MATH_H

typedef unsigned long long wave_u64;
typedef unsigned int wave_u32;

#define WAVE_CELLS 840u /* lcm(1..8) */
#define WAVE_MAX_LANES 64u

#define WAVE_DEFAULT_WAVES 3u
#define WAVE_MAX_WAVES 1000000u
#define WAVE_DEFAULT_ROUNDS 2048u
#define WAVE_MAX_ROUNDS (1u << 20)

/* murmur3 fmix64 */
static inline wave_u64 wave_mix64(wave_u64 k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

static inline wave_u32 wave_stripe_begin(wave_u32 lane, wave_u32 lanes) {
  return (wave_u32)((wave_u64)WAVE_CELLS * lane / lanes);
}

static inline wave_u32 wave_stripe_end(wave_u32 lane, wave_u32 lanes) {
  return (wave_u32)((wave_u64)WAVE_CELLS * (lane + 1) / lanes);
}

static inline void wave_reset(wave_u64 *cells) {
  for (wave_u32 i = 0; i < WAVE_CELLS; i++) cells[i] = i;
}

static inline void wave_run_stripe(wave_u64 *cells, wave_u32 wave, wave_u32 begin,
                                   wave_u32 end, wave_u32 rounds) {
  const wave_u64 salt = (wave_u64)(wave + 1) << 40;
  for (wave_u32 i = begin; i < end; i++) {
    wave_u64 v = cells[i] ^ salt ^ (wave_u64)i;
    for (wave_u32 r = 0; r < rounds; r++) v = wave_mix64(v + r);
    cells[i] = v;
  }
}

static inline wave_u64 wave_checksum(const wave_u64 *cells) {
  wave_u64 sum = 0x9e3779b97f4a7c15ULL;
  for (wave_u32 i = 0; i < WAVE_CELLS; i++) sum = wave_mix64(sum ^ cells[i]);
  return sum;
}

static inline void wave_store_le(unsigned char out[8], wave_u64 sum) {
  for (int b = 0; b < 8; b++) out[b] = (unsigned char)(sum >> (8 * b));
}

#endif
