/* memory_linux.c: wtp_memory.h on Linux, madvise(2) and sysfs. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

/* The sysfs files wtp__os_free_huge_pages_reported reads, under its root:
 * the size of a transparent huge page (bytes), the smallest order of free
 * block the kernel reports (absent before Linux 5.18, where the order is the
 * pageblock's, a huge page's), and the virtio balloon devices, whose
 * "features" file holds one '0'/'1' per feature bit the driver negotiated. */
#define HPAGE_SIZE_FILE "/kernel/mm/transparent_hugepage/hpage_pmd_size"
#define REPORTING_ORDER_FILE \
  "/module/page_reporting/parameters/page_reporting_order"
#define BALLOON_DIR "/bus/virtio/drivers/virtio_balloon"
#define BALLOON_F_REPORTING 5 /* VIRTIO_BALLOON_F_REPORTING */

/* The first line of root + rel, at most size - 1 bytes, NUL-terminated;
 * false when the path is too long or the file cannot be read. */
static bool read_sysfs(const char* root, const char* rel, char* buf,
                       size_t size) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s%s", root, rel);
  if (n < 0 || (size_t)n >= sizeof(path)) return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t got = read(fd, buf, size - 1);
  close(fd);
  if (got <= 0) return false;
  buf[got] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  return true;
}

/* The decimal number in root + rel, or -1 (unreadable, not a number, or
 * above 2^62). */
static long long read_number(const char* root, const char* rel) {
  char text[32];
  if (!read_sysfs(root, rel, text, sizeof(text))) return -1;
  long long value = 0;
  for (const char* c = text; *c != '\0'; c++) {
    if (*c < '0' || *c > '9' || value > (1LL << 62) / 10) return -1;
    value = value * 10 + (*c - '0');
  }
  return text[0] == '\0' ? -1 : value;
}

/* Whether a virtio balloon device under root negotiated free page
 * reporting. */
static bool balloon_reports(const char* root) {
  char dir_path[PATH_MAX];
  int n = snprintf(dir_path, sizeof(dir_path), "%s" BALLOON_DIR, root);
  if (n < 0 || (size_t)n >= sizeof(dir_path)) return false;
  DIR* dir = opendir(dir_path);
  if (dir == NULL) return false;
  bool reports = false;
  struct dirent* entry;
  while (!reports && (entry = readdir(dir)) != NULL) {
    if (strncmp(entry->d_name, "virtio", 6) != 0) continue; /* bind, ... */
    char rel[PATH_MAX], bits[256];
    n = snprintf(rel, sizeof(rel), BALLOON_DIR "/%s/features", entry->d_name);
    reports = n > 0 && (size_t)n < sizeof(rel) &&
              read_sysfs(root, rel, bits, sizeof(bits)) &&
              strlen(bits) > BALLOON_F_REPORTING &&
              bits[BALLOON_F_REPORTING] == '1';
  }
  closedir(dir);
  return reports;
}

bool wtp__os_free_huge_pages_reported(const char* sysfs) {
  long page_size = sysconf(_SC_PAGESIZE);
  if (sysfs == NULL || page_size <= 0) return false;
  long long huge_size = read_number(sysfs, HPAGE_SIZE_FILE);
  if (huge_size < page_size || !balloon_reports(sysfs)) return false;
  int huge_order = 0;
  while (((long long)page_size << huge_order) < huge_size && huge_order < 40)
    huge_order++;
  long long order = read_number(sysfs, REPORTING_ORDER_FILE);
  /* Absent: a kernel that reports from the pageblock's order, a huge page's. */
  return order < 0 || order <= huge_order;
}
