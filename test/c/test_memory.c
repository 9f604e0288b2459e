/* test_memory.c: the OS memory advice (src/os/wtp_memory.h). On Linux
 * (memory_linux.c) the whole pages inside a range get MADV_HUGEPAGE, which
 * /proc/self/smaps shows as the "hg" flag of the mapping that holds them,
 * and nothing else changes: not the pages around the range, not the content.
 * Released pages (wtp__os_release_pages) are no longer resident (mincore),
 * read as zero and take writes; the partial pages at the range's ends keep
 * their content. A range with no whole page, NULL and a range that wraps are
 * refused before any system call. Free huge pages count as reported to a
 * hypervisor (wtp__os_free_huge_pages_reported) exactly when a virtio
 * balloon negotiated free page reporting and reports blocks no larger than a
 * transparent huge page: checked on made-up sysfs trees, with missing,
 * malformed and oversized files. The portable build (memory_none.c,
 * -DWTP_TEST_MEMORY_NONE) takes no advice, releases nothing and sees no
 * reporting. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/os/wtp_memory.h"
#include "harness.h"

#define REGION (8u << 20)

static size_t page;

/* The VmFlags of the mapping that holds addr has " hg" (1), has not (0), or
 * the mapping was not found (-1). */
static int huge_advised(const void* addr) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (f == NULL) return -1;
  char line[512];
  bool inside = false;
  int found = -1;
  while (fgets(line, sizeof(line), f) != NULL) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
        strchr(line, '-') == line + strspn(line, "0123456789abcdef")) {
      inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
    } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
      found = strstr(line, " hg") != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

static unsigned char* fresh_region(void) {
  void* p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  return p == MAP_FAILED ? NULL : p;
}

static void test_inner_pages_advised(void) {
  unsigned char* base = fresh_region();
  if (base == NULL) return;
  for (size_t i = 0; i < REGION; i += page) base[i] = (unsigned char)(i / page);
  /* From inside the first page to inside the last: the whole pages between. */
  bool took = wtp__os_advise_huge_pages(base + 1, REGION - 2);
#ifdef WTP_TEST_MEMORY_NONE
  CHECK(!took);
  CHECK_EQ(huge_advised(base + REGION / 2), 0);
#else
  CHECK(took);
  CHECK_EQ(huge_advised(base + page), 1);
  CHECK_EQ(huge_advised(base + REGION - 2 * page), 1);
  CHECK_EQ(huge_advised(base), 0);              /* the partial first page */
  CHECK_EQ(huge_advised(base + REGION - 1), 0); /* the partial last page */
#endif
  bool same = true;
  for (size_t i = 0; i < REGION; i += page)
    same = same && base[i] == (unsigned char)(i / page);
  CHECK(same);
  munmap(base, REGION);
}

/* Pages of [p, p + len) resident now (mincore), -1 when it fails. */
static long resident_pages(const unsigned char* p, size_t len) {
  static unsigned char vec[REGION / 4096 + 1];
  size_t pages = (len + page - 1) / page;
  if (pages > sizeof(vec) || mincore((void*)p, len, vec) != 0) return -1;
  long n = 0;
  for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
  return n;
}

static void test_release_pages(void) {
  unsigned char* base = fresh_region();
  if (base == NULL) return;
  size_t pages = REGION / page;
  for (size_t i = 0; i < REGION; i += page) base[i] = 0xA5;
  base[REGION - 1] = 0x5A;
  CHECK_EQ(resident_pages(base, REGION), (long)pages);
  /* From inside the first page to inside the last: the whole pages between. */
  bool took = wtp__os_release_pages(base + 1, REGION - 2);
#ifdef WTP_TEST_MEMORY_NONE
  CHECK(!took);
  CHECK_EQ(resident_pages(base, REGION), (long)pages);
  bool kept = true;
  for (size_t i = 0; i < REGION; i += page) kept = kept && base[i] == 0xA5;
  CHECK(kept);
#else
  CHECK(took);
  /* Only the two partial pages at the ends stay, with their content. */
  CHECK_EQ(resident_pages(base, REGION), 2);
  CHECK_EQ(base[0], 0xA5);
  CHECK_EQ(base[REGION - 1], 0x5A);
  bool zero = true;
  for (size_t i = page; i < REGION - page; i += page)
    zero = zero && base[i] == 0;
  CHECK(zero);
  /* Still the same mapping: writable, and backed again where touched. */
  for (size_t i = page; i < REGION - page; i += page) base[i] = 7;
  bool back = true;
  for (size_t i = page; i < REGION - page; i += page)
    back = back && base[i] == 7;
  CHECK(back);
  CHECK_EQ(resident_pages(base, REGION), (long)pages);
#endif
  munmap(base, REGION);
}

static void test_refused_ranges(void) {
  unsigned char* base = fresh_region();
  if (base == NULL) return;
  CHECK(!wtp__os_advise_huge_pages(base + 1, page - 1)); /* no whole page */
  CHECK(!wtp__os_advise_huge_pages(base + 1, page));     /* two partial pages */
  CHECK(!wtp__os_advise_huge_pages(base, 0));
  CHECK(!wtp__os_advise_huge_pages(NULL, REGION));
  CHECK(!wtp__os_advise_huge_pages((void*)(UINTPTR_MAX - 10), 100)); /* wraps */
  CHECK(!wtp__os_advise_huge_pages(base, SIZE_MAX));                 /* wraps */
  CHECK_EQ(huge_advised(base + page), 0);
  base[0] = 1;
  base[page] = 2;
  CHECK(!wtp__os_release_pages(base + 1, page - 1)); /* no whole page */
  CHECK(!wtp__os_release_pages(base + 1, page));     /* two partial pages */
  CHECK(!wtp__os_release_pages(base, 0));
  CHECK(!wtp__os_release_pages(NULL, REGION));
  CHECK(!wtp__os_release_pages((void*)(UINTPTR_MAX - 10), 100)); /* wraps */
  CHECK(!wtp__os_release_pages(base, SIZE_MAX));                 /* wraps */
  CHECK_EQ(base[0], 1);
  CHECK_EQ(base[page], 2);
  munmap(base, REGION);
}

/* A made-up sysfs tree: root + rel holds text (the folders made as needed);
 * text NULL removes the file. */
static void put(const char* root, const char* rel, const char* text) {
  char path[4096];
  snprintf(path, sizeof(path), "%s%s", root, rel);
  for (char* slash = strchr(path + strlen(root) + 1, '/'); slash != NULL;
       slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
  }
  if (text == NULL) {
    unlink(path);
    return;
  }
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

#define HPAGE "/kernel/mm/transparent_hugepage/hpage_pmd_size"
#define ORDER "/module/page_reporting/parameters/page_reporting_order"
#define BALLOON "/bus/virtio/drivers/virtio_balloon"
/* Bits 0-5 and more, as the kernel prints them: bit 5 is reporting. */
#define REPORTING "0110010100000000000000000000000010\n"
#define NO_REPORTING "0110000100000000000000000000000010\n"

static void test_free_huge_pages_reported(void) {
  char root[] = "/tmp/wtp-sysfs-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  char hpage[32], order_9[8];
  snprintf(hpage, sizeof(hpage), "%zu\n", page << 9); /* order 9 */
  snprintf(order_9, sizeof(order_9), "9\n");
  put(root, HPAGE, hpage);
  put(root, ORDER, order_9);
  put(root, BALLOON "/bind", "");
  put(root, BALLOON "/virtio3/features", REPORTING);
#ifdef WTP_TEST_MEMORY_NONE
  CHECK(!wtp__os_free_huge_pages_reported(root));
#else
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, "8\n"); /* smaller blocks: huge ones too */
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, "10\n"); /* only blocks of two huge pages or more */
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, NULL); /* before Linux 5.18: a huge page's order */
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, "nine\n"); /* unreadable: the same */
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, "99999999999999999999999\n");
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, ORDER, order_9);
  put(root, BALLOON "/virtio3/features", NO_REPORTING);
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, BALLOON "/virtio3/features", "01100\n"); /* no bit 5 */
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, BALLOON "/virtio3/features", "");
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, BALLOON "/virtio7/features", REPORTING); /* a second balloon */
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, BALLOON "/virtio7/features", NULL);
  put(root, BALLOON "/virtio3/features", REPORTING);
  put(root, HPAGE, "0\n"); /* no transparent huge pages */
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, HPAGE, "-2097152\n");
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, HPAGE, NULL);
  CHECK(!wtp__os_free_huge_pages_reported(root));
  put(root, HPAGE, hpage);
  CHECK(wtp__os_free_huge_pages_reported(root));
  put(root, BALLOON "/virtio3/features", NULL); /* no balloon device */
  CHECK(!wtp__os_free_huge_pages_reported(root));
  /* A root whose paths do not fit PATH_MAX. */
  static char long_root[8192];
  memset(long_root, 'a', sizeof(long_root) - 1);
  long_root[0] = '/';
  CHECK(!wtp__os_free_huge_pages_reported(long_root));
#endif
  CHECK(!wtp__os_free_huge_pages_reported(NULL));
  CHECK(!wtp__os_free_huge_pages_reported("/nonexistent-wtp-sysfs"));
  (void)wtp__os_free_huge_pages_reported("/sys"); /* this machine's: any */
  char cleanup[64];
  snprintf(cleanup, sizeof(cleanup), "rm -rf '%s'", root);
  CHECK(system(cleanup) == 0);
}

int main(void) {
  page = (size_t)sysconf(_SC_PAGESIZE);
  RUN(test_inner_pages_advised);
  RUN(test_release_pages);
  RUN(test_refused_ranges);
  RUN(test_free_huge_pages_reported);
  return harness_summary("test_memory");
}
