/* wasi_path.c: the sandbox's OS-neutral part: copying a guest path out of
 * guest memory and checking it (wtp__wasi_path_copy). The resolution
 * beneath a directory, and the guarantee it gives, is per OS:
 * wasi_path_posix.c (Linux, macOS) and wasi_path_windows.c (Windows), each
 * stating its guarantee at its top. */
#include "wasi_path.h"

#include <string.h>

#include "wasi_errno.h"
#include "wasi_internal.h"

/* ---- guest paths ---- */

static int utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = s[i];
    size_t more;
    uint32_t cp, min;
    if (b < 0x80) {
      i++;
      continue;
    } else if ((b & 0xe0) == 0xc0) {
      more = 1, cp = b & 0x1f, min = 0x80;
    } else if ((b & 0xf0) == 0xe0) {
      more = 2, cp = b & 0x0f, min = 0x800;
    } else if ((b & 0xf8) == 0xf0) {
      more = 3, cp = b & 0x07, min = 0x10000;
    } else {
      return 0;
    }
    if (more > n - i - 1) return 0;
    for (size_t k = 1; k <= more; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return 0;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    i += more + 1;
  }
  return 1;
}

uint32_t wtp__wasi_path_copy(const wtp_wasi_memory *memory, uint64_t ptr,
                             uint64_t len, char *out, size_t out_size) {
  if (!wtp__wasi_range_ok(memory, ptr, len)) return WASI_EFAULT;
  if (len > WTP__WASI_PATH_MAX || len >= out_size) return WASI_ENAMETOOLONG;
  /* Copied first, then checked: another guest thread may change the shared
   * memory at any time, so only the copy is ever looked at (what is checked
   * is what is used). */
  memcpy(out, memory->base + ptr, (size_t)len);
  out[len] = '\0';
  if (memchr(out, 0, (size_t)len)) return WASI_EINVAL;
  if (!utf8_valid((const uint8_t *)out, (size_t)len)) return WASI_EILSEQ;
  return WASI_ESUCCESS;
}

wtp__wasi_component wtp__wasi_next_component(const char *p) {
  wtp__wasi_component c;
  while (*p == '/') p++;
  c.start = p;
  while (*p && *p != '/') p++;
  c.len = (size_t)(p - c.start);
  c.after = p;
  while (*p == '/') p++;
  c.next = p;
  c.final = *p == '\0';
  c.trailing_slash = c.final && c.next != c.after;
  return c;
}
