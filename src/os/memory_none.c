/* memory_none.c: wtp_memory.h where the OS takes no such advice (macOS's
 * superpages and Windows' large pages are chosen at allocation, by V8, not
 * afterwards), and no page is given back (the nearest calls there, Windows' MEM_RESET and
 * macOS's MADV_FREE, free pages only when the system runs short of memory,
 * and leave their content undefined). */
#include "wtp_memory.h"

bool wtp__os_advise_huge_pages(void* base, size_t length) {
  (void)base;
  (void)length;
  return false;
}

bool wtp__os_release_pages(void* base, size_t length) {
  (void)base;
  (void)length;
  return false;
}

bool wtp__os_free_huge_pages_reported(const char* sysfs) {
  (void)sysfs;
  return false; /* no huge page advice to weigh */
}
