/* memory_linux.c: wtp_memory.h on Linux, madvise(2). */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wtp_memory.h"

bool wtp__os_advise_huge_pages(void* base, size_t length) {
#ifdef MADV_HUGEPAGE
  long page_size = sysconf(_SC_PAGESIZE);
  uintptr_t first = (uintptr_t)base;
  if (page_size <= 0 || base == NULL || length > UINTPTR_MAX - first)
    return false;
  uintptr_t mask = (uintptr_t)page_size - 1;
  uintptr_t start = (first + mask) & ~mask; /* no wrap: first + length fits */
  uintptr_t end = (first + length) & ~mask;
  if (start < first || end <= start) return false;
  return madvise((void*)start, end - start, MADV_HUGEPAGE) == 0;
#else
  (void)base;
  (void)length;
  return false; /* a C library without the flag: no advice */
#endif
}
