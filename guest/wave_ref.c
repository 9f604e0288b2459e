/* Native reference of the thread-wave arithmetic (gcc, hosted).
 *
 *   wave_ref                       print the reference table and check the
 *                                  two published figures; exit 1 on mismatch
 *   wave_ref WAVES ROUNDS LANES    print the hex for one configuration
 *
 * It runs the stripes of every lane sequentially, for several lane counts,
 * to show the bytes depend only on waves and rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave_math.h"

static void hex_of(wave_u32 waves, wave_u32 rounds, wave_u32 lanes, char hex[17]) {
  static wave_u64 cells[WAVE_CELLS];
  unsigned char out[8];
  wave_reset(cells);
  for (wave_u32 w = 0; w < waves; w++)
    for (wave_u32 s = 0; s < lanes; s++)
      wave_run_stripe(cells, w, wave_stripe_begin(s, lanes), wave_stripe_end(s, lanes), rounds);
  wave_store_le(out, wave_checksum(cells));
  for (int b = 0; b < 8; b++) sprintf(hex + 2 * b, "%02x", out[b]);
}

int main(int argc, char **argv) {
  char hex[17];
  if (argc == 4) {
    hex_of((wave_u32)strtoul(argv[1], 0, 10), (wave_u32)strtoul(argv[2], 0, 10),
           (wave_u32)strtoul(argv[3], 0, 10), hex);
    printf("%s\n", hex);
    return 0;
  }
  static const struct { wave_u32 waves, rounds; const char *expected; } cases[] = {
      {3, 2048, "ecbe247c0e7e1dec"},
      {2000, 16, "67b092ecfada4a65"},
  };
  static const wave_u32 lane_counts[] = {1, 2, 3, 4, 7, 8, 64};
  int failed = 0;
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (unsigned l = 0; l < sizeof lane_counts / sizeof lane_counts[0]; l++) {
      hex_of(cases[c].waves, cases[c].rounds, lane_counts[l], hex);
      int ok = strcmp(hex, cases[c].expected) == 0;
      failed |= !ok;
      printf("waves=%u rounds=%u lanes=%u %s %s\n", cases[c].waves, cases[c].rounds,
             lane_counts[l], hex, ok ? "ok" : "MISMATCH");
    }
  }
  return failed;
}
