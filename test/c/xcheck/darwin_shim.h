/* Lets gcc/clang on Linux syntax-check src/os/wait_darwin.c (`make xcheck`):
 * the two Darwin-only names it uses, declared as on macOS. */
#define _GNU_SOURCE
#include <stdint.h>
#define CLOCK_UPTIME_RAW 8
uint64_t clock_gettime_nsec_np(int clock_id);
