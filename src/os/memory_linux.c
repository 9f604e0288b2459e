/* memory_linux.c: wtp_memory.h on Linux, madvise(2). */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wtp_memory.h"

/* The whole pages inside [base, base + length) as [*start, *end); false when
 * there are none (NULL, a wrap, less than a page). */
static bool whole_pages(void* base, size_t length, uintptr_t* start,
                        uintptr_t* end) {
  long page_size = sysconf(_SC_PAGESIZE);
  uintptr_t first = (uintptr_t)base;
  if (page_size <= 0 || base == NULL || length > UINTPTR_MAX - first)
    return false;
  uintptr_t mask = (uintptr_t)page_size - 1;
  *start = (first + mask) & ~mask; /* no wrap: first + length fits */
  *end = (first + length) & ~mask;
  return *start >= first && *end > *start;
}

bool wtp__os_advise_huge_pages(void* base, size_t length) {
#ifdef MADV_HUGEPAGE
  uintptr_t start, end;
  if (!whole_pages(base, length, &start, &end)) return false;
  return madvise((void*)start, end - start, MADV_HUGEPAGE) == 0;
#else
  (void)base;
  (void)length;
  return false; /* a C library without the flag: no advice */
#endif
}

/* MADV_DONTNEED on a private anonymous mapping (V8's wasm memories, shared
 * ones included: shared between threads, not processes) frees the pages at
 * once; the next touch maps a zero page. */
bool wtp__os_release_pages(void* base, size_t length) {
  uintptr_t start, end;
  if (!whole_pages(base, length, &start, &end)) return false;
  return madvise((void*)start, end - start, MADV_DONTNEED) == 0;
}
