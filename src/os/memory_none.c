/* memory_none.c: wtp_memory.h where the OS takes no such advice (macOS's
 * superpages and Windows' large pages are chosen at allocation, by V8, not
 * afterwards). */
#include "wtp_memory.h"

bool wtp__os_advise_huge_pages(void* base, size_t length) {
  (void)base;
  (void)length;
  return false;
}
