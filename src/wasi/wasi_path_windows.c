/* wasi_path_windows.c: the sandbox on Windows. Every guest path is
 * resolved beneath a directory handle of the program's table (a preopen, or
 * a directory opened through one), and nothing a program does reaches
 * outside it.
 *
 * The guarantee (the same as wasi_path_posix.c's, in Windows terms). A
 * path_* call opens, creates, reads, writes, truncates, links, renames,
 * removes or stats only entries whose every step of resolution stayed
 * beneath the handle it names:
 *   - every component is opened by NtCreateFile relative to the handle of
 *     the step before (OBJECT_ATTRIBUTES.RootDirectory), with
 *     FILE_OPEN_REPARSE_POINT, so Windows never follows a symbolic link, a
 *     junction or any other reparse point on its own: the walk reads each
 *     one itself (FSCTL_GET_REPARSE_POINT). A relative symbolic link's text
 *     is spliced into the rest of the path and walked; an absolute one, a
 *     junction (mount point) and any other name-surrogate reparse point
 *     (one that names another entry) is an escape: WASI EPERM (63), the
 *     errno wasmtime's cap-std answers for an escape. Reparse points that
 *     name no other entry (a deduplicated, cloud or compressed file) are the
 *     entries themselves;
 *   - ".." is the walk's: it goes back to the directory handle the walk came
 *     from (a stack of handles), never to a name Windows recomputes; above
 *     the base it is an escape (EPERM); "." stays;
 *   - refused before anything is opened, because Windows would read them as
 *     something other than a name in this directory: an absolute path
 *     ('/' or '\' first), a drive letter ("C:...", also "C:" alone or
 *     drive-relative "C:x"), UNC and device paths ("\\server", "\\?\",
 *     "\\.\"), and a backslash anywhere (a separator to Windows, which the
 *     walk does not split on): EPERM, as cap-std answers for a prefix or a
 *     root; a ':' in a component (an alternate data stream, "file:stream",
 *     "file::$DATA"), a reserved device name as a component, with or
 *     without an extension or trailing spaces (CON, PRN, AUX, NUL, COM0-9,
 *     LPT0-9, the superscript COM/LPT digits, CONIN$, CONOUT$, CLOCK$), a
 *     component ending in '.' or ' ' (Win32 strips those, so the entry
 *     would be another name to every other program), and the characters
 *     NTFS refuses in a name (< > " | ? * and control characters): EINVAL;
 *     a symbolic link's text is checked the same way when it is walked
 *     (its backslashes are separators there: Windows stores them);
 *   - a final component is followed only when the call asks (lookupflags
 *     SYMLINK_FOLLOW, or a trailing '/'); the host operation on it always
 *     opens it with FILE_OPEN_REPARSE_POINT (wasi_path_host_windows.c);
 *   - more than WTP__WASI_SYMLINK_MAX links in one resolution: ELOOP; more
 *     than WALK_DEPTH_MAX levels deep: ENAMETOOLONG; a path with a NUL
 *     byte: EINVAL; not UTF-8: EILSEQ; empty: ENOENT; longer than
 *     WTP__WASI_PATH_MAX: ENAMETOOLONG (wasi_path.c).
 * A directory swapped for a link while a walk is in it never carries the
 * walk outside: the walk holds a handle to each directory it entered, and
 * every open is relative to one of them with FILE_OPEN_REPARSE_POINT.
 *
 * Not promised: hard links and mounted volumes the host put inside, 8.3
 * short names (another name for an entry of the same directory), and a
 * link's text is stored as given (path_symlink, EPERM if absolute).
 *
 * What this rests on: NtCreateFile resolves a name relative to the object
 * its RootDirectory handle is open on, and FILE_OPEN_REPARSE_POINT opens a
 * reparse point itself. Under Wine (the only Windows this project runs its
 * tests on) neither holds: Wine follows Unix symbolic links in every open
 * and names handles by strings it stored. There every open is checked by
 * identity on the Unix side (wasi_path_windows.h, "Wine"; wasi_path_wine.c)
 * and a Unix link's text is walked here as a relative link's is;
 * docs/runner.md ("The sandbox on Windows") says what remains. */
#ifdef _WIN32

#include "wasi_path_windows.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_internal.h"

/* The longest text a walk holds at once (a path with its links spliced in). */
#define WALK_TEXT_MAX (16 * WTP__WASI_PATH_MAX)
/* The most directory handles one walk holds (one per level it entered). */
#define WALK_DEPTH_MAX 128
/* The largest reparse point (MAXIMUM_REPARSE_DATA_BUFFER_SIZE). */
#define REPARSE_MAX (16 * 1024)
#ifndef FSCTL_GET_REPARSE_POINT
#define FSCTL_GET_REPARSE_POINT 0x000900A8
#endif

/* ---- errors ---- */

uint32_t wtp__wasi_path_nt_errno(NTSTATUS status) {
  switch ((ULONG)status) {
    case 0xC00000BAUL: /* STATUS_FILE_IS_A_DIRECTORY */
      return WASI_EISDIR;
    case 0xC0000103UL: /* STATUS_NOT_A_DIRECTORY */
      return WASI_ENOTDIR;
    case 0xC0000101UL: /* STATUS_DIRECTORY_NOT_EMPTY */
      return WASI_ENOTEMPTY;
    case 0xC0000035UL: /* STATUS_OBJECT_NAME_COLLISION */
      return WASI_EEXIST;
    case 0xC0000034UL: /* STATUS_OBJECT_NAME_NOT_FOUND */
    case 0xC000003AUL: /* STATUS_OBJECT_PATH_NOT_FOUND */
    case 0xC0000056UL: /* STATUS_DELETE_PENDING: the name is going */
      return WASI_ENOENT;
    case 0xC0000033UL: /* STATUS_OBJECT_NAME_INVALID */
      return WASI_EINVAL;
    case 0xC0000281UL: /* STATUS_STOPPED_ON_SYMLINK */
      return WASI_ELOOP;
    case 0xC00000D4UL: /* STATUS_NOT_SAME_DEVICE */
      return WASI_EXDEV;
    case 0xC0000061UL: /* STATUS_PRIVILEGE_NOT_HELD */
      return WASI_EPERM;
    default:
      return wtp__wasi_nt_errno(status);
  }
}

/* ---- NT calls ---- */

/* UTF-8 (NUL-terminated) to UTF-16 in out[cap]; its length in units, or -1. */
static int to_wide(const char *s, WCHAR *out, int cap) {
  if (!s[0]) return 0;
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, out, cap);
  return n > 0 ? n - 1 : -1;
}

uint32_t wtp__wasi_nt_open(HANDLE dir, const char *name, ACCESS_MASK access,
                           ULONG disposition, ULONG options, ULONG attributes,
                           HANDLE *out) {
  WCHAR wide[256];
  int n = to_wide(name, wide, 256);
  if (n < 0) return WASI_ENAMETOOLONG; /* UTF-8 already checked: too long */
  UNICODE_STRING us;
  us.Buffer = wide;
  us.Length = us.MaximumLength = (USHORT)(n * sizeof(WCHAR));
  OBJECT_ATTRIBUTES oa;
  InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, dir, NULL);
  IO_STATUS_BLOCK io;
  NTSTATUS st = NtCreateFile(
      out, access | SYNCHRONIZE, &oa, &io, NULL, attributes,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, disposition,
      options | FILE_OPEN_REPARSE_POINT | FILE_SYNCHRONOUS_IO_NONALERT, NULL,
      0);
  return st < 0 ? wtp__wasi_path_nt_errno(st) : WASI_ESUCCESS;
}

uint32_t wtp__wasi_nt_tag(HANDLE h, ULONG *attributes, ULONG *tag) {
  FILE_ATTRIBUTE_TAG_INFO info;
  if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &info,
                                    sizeof info))
    return wtp__wasi_win_errno(GetLastError());
  *attributes = info.FileAttributes;
  *tag = (info.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? info.ReparseTag
                                                              : 0;
  return WASI_ESUCCESS;
}

int wtp__wasi_nt_is_link(ULONG attributes, ULONG tag) {
  return (attributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
         IsReparseTagNameSurrogate(tag);
}

/* The reparse point's layout (ntifs.h's REPARSE_DATA_BUFFER, symbolic link
 * and mount point forms). */
typedef struct reparse_data {
  ULONG tag;
  USHORT data_length, reserved;
  USHORT substitute_offset, substitute_length, print_offset, print_length;
  union {
    struct {
      ULONG flags;
      WCHAR path[1];
    } symlink;
    struct {
      WCHAR path[1];
    } mount_point;
  } u;
} reparse_data;

uint32_t wtp__wasi_nt_readlink(HANDLE h, char *buf, size_t size, size_t *len,
                               int *relative) {
  union {
    reparse_data data;
    unsigned char bytes[REPARSE_MAX];
  } *r = malloc(sizeof *r);
  if (!r) return WASI_ENOMEM;
  DWORD got = 0;
  uint32_t err = WASI_ESUCCESS;
  if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, r, sizeof *r, &got,
                       NULL)) {
    DWORD e = GetLastError();
    /* ERROR_NOT_A_REPARSE_POINT: no link (readlink's EINVAL). */
    err = e == 4390 ? WASI_EINVAL : wtp__wasi_win_errno(e);
  }
  const WCHAR *text = NULL;
  USHORT bytes = 0;
  if (!err && r->data.tag == WTP__TAG_SYMLINK &&
      got >= offsetof(reparse_data, u.symlink.path)) {
    const reparse_data *d = &r->data;
    *relative = (d->u.symlink.flags & WTP__SYMLINK_FLAG_RELATIVE) != 0;
    /* The print name is the text as made; the substitute name is the NT
     * path Windows follows (the same text for a relative link). */
    int print = d->print_length != 0;
    USHORT off = print ? d->print_offset : d->substitute_offset;
    bytes = print ? d->print_length : d->substitute_length;
    if ((size_t)off + bytes > got - offsetof(reparse_data, u.symlink.path))
      err = WASI_EINVAL;
    else
      text = (const WCHAR *)((const char *)d->u.symlink.path + off);
  } else if (!err && r->data.tag == WTP__TAG_MOUNT_POINT &&
             got >= offsetof(reparse_data, u.mount_point.path)) {
    const reparse_data *d = &r->data;
    *relative = 0;
    bytes = d->print_length ? d->print_length : d->substitute_length;
    USHORT off = d->print_length ? d->print_offset : d->substitute_offset;
    if ((size_t)off + bytes > got - offsetof(reparse_data, u.mount_point.path))
      err = WASI_EINVAL;
    else
      text = (const WCHAR *)((const char *)d->u.mount_point.path + off);
  } else if (!err) {
    err = WASI_EINVAL;
  }
  if (!err) {
    int n = 0;
    if (bytes) {
      n = WideCharToMultiByte(CP_UTF8, 0, text, bytes / sizeof(WCHAR), buf,
                              (int)(size - 1), NULL, NULL);
      if (n <= 0) err = WASI_ENAMETOOLONG;
    }
    if (!err) {
      buf[n] = '\0';
      for (int i = 0; i < n; i++)
        if (buf[i] == '\\') buf[i] = '/';
      *len = (size_t)n;
    }
  }
  free(r);
  return err;
}

/* ---- Wine's Unix links (wasi_path_windows.h) ---- */

/* 0 not known yet, 1 Wine, 2 Windows. Relaxed: it caches an answer every
 * thread computes the same, and publishes no other data. */
static atomic_int wine_state;

int wtp__wasi_under_wine(void) {
  int state = atomic_load_explicit(&wine_state, memory_order_relaxed);
  if (!state) {
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    state = ntdll && GetProcAddress(ntdll, "wine_get_version") ? 1 : 2;
    atomic_store_explicit(&wine_state, state, memory_order_relaxed);
  }
  return state == 1;
}

/* The handle's name on its volume (FileNameInformation: "\dir\name"),
 * malloc'd, its length in *units; NULL if it cannot be had. */
static WCHAR *handle_name(HANDLE h, size_t *units) {
  const ULONG size = sizeof(ULONG) + 32768 * sizeof(WCHAR);
  ULONG *info = malloc(size);
  if (!info) return NULL;
  IO_STATUS_BLOCK io;
  NTSTATUS st =
      NtQueryInformationFile(h, &io, info, size, (FILE_INFORMATION_CLASS)9);
  if (st < 0 || info[0] > size - sizeof(ULONG)) {
    free(info);
    return NULL;
  }
  *units = info[0] / sizeof(WCHAR);
  memmove(info, info + 1, info[0]);
  return (WCHAR *)info;
}

static int same_name(const WCHAR *a, size_t na, const WCHAR *b, size_t nb) {
  return na == nb && (na == 0 || CompareStringOrdinal(a, (int)na, b, (int)nb,
                                                      TRUE) == CSTR_EQUAL);
}

/* The length of the prefix a child of the directory named dir[n] has: the
 * name and a backslash (just the name for a volume's root, "\"). */
static size_t child_prefix(const WCHAR *dir, size_t n) {
  return n && dir[n - 1] == L'\\' ? n : n + 1;
}

/* Under Wine: 0 if Wine's stored name of h is dir's stored name and name
 * (Wine renames, links and deletes through h by that name); EPERM if not;
 * EIO if a name cannot be had. */
static uint32_t wine_same_names(HANDLE dir, const char *name, HANDLE h) {
  WCHAR wide[256];
  int n =
      name[0] ? MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, 256) - 1 : 0;
  size_t dir_units = 0, got_units = 0;
  WCHAR *dir_name = handle_name(dir, &dir_units);
  WCHAR *got = handle_name(h, &got_units);
  uint32_t err = WASI_ESUCCESS;
  if (!dir_name || !got || n < 0) {
    err = WASI_EIO;
  } else {
    size_t prefix = n ? child_prefix(dir_name, dir_units) : dir_units;
    int same = got_units == prefix + (size_t)n &&
               same_name(got, dir_units, dir_name, dir_units) &&
               (n == 0 || prefix == dir_units || got[dir_units] == L'\\') &&
               same_name(got + prefix, (size_t)n, wide, (size_t)n);
    if (!same) err = WASI_EPERM;
  }
  free(dir_name);
  free(got);
  return err;
}

/* The name Wine opened for name in dir when the host's entry differs from
 * it in case only (Wine matches names without case): the last component
 * of h's stored name, UTF-8 in out[size], if it equals name but for case;
 * else ENOENT. */
static uint32_t wine_host_name(const char *name, HANDLE h, char *out,
                               size_t size) {
  size_t units = 0;
  WCHAR *got = handle_name(h, &units);
  if (!got) return WASI_ENOENT;
  size_t last = units;
  while (last > 0 && got[last - 1] != L'\\') last--;
  WCHAR wide[256];
  int n = MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, 256) - 1;
  uint32_t err = WASI_ENOENT;
  if (n > 0 && same_name(got + last, units - last, wide, (size_t)n)) {
    int m = WideCharToMultiByte(CP_UTF8, 0, got + last, (int)(units - last),
                                out, (int)size - 1, NULL, NULL);
    if (m > 0) {
      out[m] = '\0';
      err = WASI_ESUCCESS;
    }
  }
  free(got);
  return err;
}

/* Under Wine: what the open of name relative to dir that gave h reached
 * (wasi_path_windows.h, wtp__wasi_wine_check): 0, ELOOP (a link: its text
 * in link[size] if link is not NULL, its length in *link_len), EPERM, or
 * another errno. With names, Wine's stored names must agree too. */
static uint32_t wine_entry(HANDLE dir, const char *name, HANDLE h, int names,
                           char *link, size_t size, size_t *link_len) {
  if (!name[0]) return WASI_ESUCCESS; /* dir itself, reopened */
  char host_name[256 * 3 + 1];
  const char *looked = name;
  wtp__wasi_wine_id entry, opened;
  int is_link = 0;
  uint32_t err = wtp__wasi_wine_lstat_at(dir, name, &entry, &is_link);
  if (err == WASI_ENOENT &&
      !wine_host_name(name, h, host_name, sizeof host_name)) {
    looked = host_name;
    err = wtp__wasi_wine_lstat_at(dir, looked, &entry, &is_link);
  }
  if (err) return err == WASI_ENOENT ? WASI_EPERM : err; /* gone meanwhile */
  if (is_link) {
    if (link &&
        (err = wtp__wasi_wine_readlink_at(dir, looked, link, size, link_len)))
      return err == WASI_EINVAL ? WASI_EPERM : err; /* no link now */
    return WASI_ELOOP;
  }
  if ((err = wtp__wasi_wine_fstat(h, &opened))) return err;
  if (opened.dev != entry.dev || opened.ino != entry.ino) return WASI_EPERM;
  return names ? wine_same_names(dir, name, h) : WASI_ESUCCESS;
}

uint32_t wtp__wasi_wine_check(HANDLE dir, const char *name, HANDLE h,
                              int names) {
  if (!wtp__wasi_under_wine()) return WASI_ESUCCESS;
  return wine_entry(dir, name, h, names, NULL, 0, NULL);
}

/* ---- names ---- */

static int ascii_upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

/* 1 if name (len bytes) is a reserved device name, with or without an
 * extension and with trailing spaces before it. */
static int reserved_name(const char *name, size_t len) {
  size_t stem = 0;
  while (stem < len && name[stem] != '.') stem++;
  while (stem > 0 && name[stem - 1] == ' ') stem--;
  char up[8];
  if (stem > 7) return 0;
  for (size_t i = 0; i < stem; i++) up[i] = (char)ascii_upper(name[i]);
  up[stem] = '\0';
  /* CLOCK$: the clock device of MS-DOS and early Windows NT, which some
   * Windows versions still reserve; refused as the others are. */
  static const char *const fixed[] = {"CON",    "PRN",     "AUX",   "NUL",
                                      "CONIN$", "CONOUT$", "CLOCK$"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (strcmp(up, fixed[i]) == 0) return 1;
  if (strncmp(up, "COM", 3) != 0 && strncmp(up, "LPT", 3) != 0) return 0;
  /* COM0-9, LPT0-9, and COM/LPT followed by a superscript 1, 2 or 3
   * (U+00B9, U+00B2, U+00B3: UTF-8 C2 B9, C2 B2, C2 B3). */
  if (stem == 4 && up[3] >= '0' && up[3] <= '9') return 1;
  return stem == 5 && (unsigned char)up[3] == 0xC2 &&
         ((unsigned char)up[4] == 0xB9 || (unsigned char)up[4] == 0xB2 ||
          (unsigned char)up[4] == 0xB3);
}

/* One component (not "." or ".."): 0, or the WASI errno that refuses it. */
static uint32_t check_component(const char *name, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c == '\\') return WASI_EPERM;
    if (c == ':' || c < 0x20 || c == '<' || c == '>' || c == '"' || c == '|' ||
        c == '?' || c == '*')
      return WASI_EINVAL;
  }
  if (name[len - 1] == '.' || name[len - 1] == ' ') return WASI_EINVAL;
  return reserved_name(name, len) ? WASI_EINVAL : WASI_ESUCCESS;
}

/* 1 if text begins like an absolute Windows path: '/', '\' (a root, UNC or
 * device path) or a drive letter and ':' (drive-absolute or relative). */
static int absolute_text(const char *text) {
  int c = ascii_upper((unsigned char)text[0]);
  return text[0] == '/' || text[0] == '\\' ||
         (c >= 'A' && c <= 'Z' && text[1] == ':');
}

/* ---- the walk ---- */

/* The directories a walk has entered below its base, each an owned handle
 * opened from the one before; the current directory is the top (or the
 * base). ".." pops. */
typedef struct walk {
  HANDLE base;
  HANDLE *dirs;
  size_t depth, cap;
  int links;
} walk;

static HANDLE walk_cur(const walk *w) {
  return w->depth ? w->dirs[w->depth - 1] : w->base;
}

static uint32_t walk_push(walk *w, HANDLE h) {
  if (w->depth >= WALK_DEPTH_MAX) {
    CloseHandle(h);
    return WASI_ENAMETOOLONG;
  }
  if (w->depth == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 8;
    HANDLE *dirs = realloc(w->dirs, cap * sizeof *dirs);
    if (!dirs) {
      CloseHandle(h);
      return WASI_ENOMEM;
    }
    w->dirs = dirs, w->cap = cap;
  }
  w->dirs[w->depth++] = h;
  return WASI_ESUCCESS;
}

static void walk_free(walk *w) {
  while (w->depth) CloseHandle(w->dirs[--w->depth]);
  free(w->dirs);
  w->dirs = NULL;
}

/* Replaces *text with head followed by rest. */
static uint32_t splice_text(char **text, const char *head, const char *rest) {
  size_t n = strlen(head), rest_len = strlen(rest);
  if (n + rest_len > WALK_TEXT_MAX) return WASI_ENAMETOOLONG;
  char *spliced = malloc(n + rest_len + 1);
  if (!spliced) return WASI_ENOMEM;
  memcpy(spliced, head, n);
  memcpy(spliced + n, rest, rest_len + 1);
  free(*text);
  *text = spliced;
  return WASI_ESUCCESS;
}

/* A link's text target[n] (relative, '/'-separated): replaces *text with
 * it followed by rest. EPERM if it is absolute or names a stream. */
static uint32_t walk_splice_text(walk *w, const char *target, size_t n,
                                 char **text, const char *rest) {
  if (n == 0 || absolute_text(target) || memchr(target, ':', n))
    return WASI_EPERM;
  if (++w->links > WTP__WASI_SYMLINK_MAX) return WASI_ELOOP;
  return splice_text(text, target, rest);
}

/* h is a link (name-surrogate reparse point): replaces *text with its
 * target followed by rest. EPERM for an absolute link, a junction or
 * another kind of surrogate. */
static uint32_t walk_splice(walk *w, HANDLE h, ULONG tag, char **text,
                            const char *rest) {
  if (tag != WTP__TAG_SYMLINK) return WASI_EPERM;
  char target[WTP__WASI_PATH_MAX + 1];
  size_t n = 0;
  int relative = 0;
  uint32_t err = wtp__wasi_nt_readlink(h, target, sizeof target, &n, &relative);
  if (err) return err == WASI_EINVAL ? WASI_EPERM : err;
  if (!relative) return WASI_EPERM;
  return walk_splice_text(w, target, n, text, rest);
}

/* Looks at name in the current directory: *h is its handle (the entry
 * itself, never followed) or NULL if it does not exist; *link says whether
 * it is a link, *tag its reparse tag. A directory is opened so that it can
 * be entered. Under Wine, a Unix link is *link 2, with no handle and its
 * text in wine_link[WTP__WASI_PATH_MAX + 1] (*wine_len bytes). */
static uint32_t walk_look(walk *w, const char *name, int want_dir, HANDLE *h,
                          int *link, ULONG *tag, char *wine_link,
                          size_t *wine_len) {
  *h = NULL, *link = 0, *tag = 0, *wine_len = 0;
  uint32_t err = WASI_ENOTDIR;
  if (want_dir)
    err = wtp__wasi_nt_open(walk_cur(w), name,
                            FILE_TRAVERSE | FILE_READ_ATTRIBUTES, FILE_OPEN,
                            FILE_DIRECTORY_FILE, 0, h);
  /* Not a directory (or not wanted as one): the entry as it is, to see
   * whether it is a link to one. */
  if (err == WASI_ENOTDIR)
    err = wtp__wasi_nt_open(walk_cur(w), name, FILE_READ_ATTRIBUTES, FILE_OPEN,
                            0, 0, h);
  if (err) return err;
  if (wtp__wasi_under_wine()) {
    /* Wine followed any Unix link: the host says what the entry is (and
     * whether *h is it); a link's text is walked as a link's. */
    err = wine_entry(walk_cur(w), name, *h, 0, wine_link,
                     WTP__WASI_PATH_MAX + 1, wine_len);
    if (err) {
      CloseHandle(*h);
      *h = NULL;
      if (err != WASI_ELOOP) return err;
      *link = 2;
      return WASI_ESUCCESS;
    }
  }
  ULONG attributes = 0;
  if ((err = wtp__wasi_nt_tag(*h, &attributes, tag))) {
    CloseHandle(*h);
    *h = NULL;
    return err;
  }
  *link = wtp__wasi_nt_is_link(attributes, *tag);
  if (want_dir && !*link && !(attributes & FILE_ATTRIBUTE_DIRECTORY)) {
    CloseHandle(*h);
    *h = NULL;
    return WASI_ENOTDIR;
  }
  return WASI_ESUCCESS;
}

static void set_name(wtp__wasi_at *at, const char *name, size_t len,
                     int trailing_slash) {
  memcpy(at->name, name, len);
  at->name[len] = '\0';
  at->trailing_slash = trailing_slash;
}

/* Walks path beneath w->base. On success the current directory holds the
 * final component, whose name (or ".") is in at->name. */
static uint32_t walk_resolve(walk *w, const char *path, int follow_final,
                             wtp__wasi_at *at) {
  char *text = _strdup(path);
  if (!text) return WASI_ENOMEM;
  const char *p = text;
  uint32_t err = WASI_ESUCCESS;
  for (;;) {
    wtp__wasi_component c = wtp__wasi_next_component(p);
    if (c.len >= sizeof at->name) {
      err = WASI_ENAMETOOLONG;
      break;
    }
    int dots = c.len == 0                                               ? 1
               : (c.len == 1 && c.start[0] == '.')                      ? 1
               : (c.len == 2 && c.start[0] == '.' && c.start[1] == '.') ? 2
                                                                        : 0;
    if (dots) {
      if (dots == 2) {
        if (!w->depth) {
          err = WASI_EPERM; /* above the base */
          break;
        }
        CloseHandle(w->dirs[--w->depth]);
      }
      if (c.final) {
        set_name(at, ".", 1, c.trailing_slash);
        break;
      }
      p = c.next;
      continue;
    }
    if ((err = check_component(c.start, c.len))) break;
    char name[sizeof at->name];
    memcpy(name, c.start, c.len);
    name[c.len] = '\0';
    if (c.final && !follow_final) {
      set_name(at, name, c.len, c.trailing_slash);
      break;
    }
    HANDLE h;
    int link;
    ULONG tag;
    char wine_link[WTP__WASI_PATH_MAX + 1];
    size_t wine_len;
    err = walk_look(w, name, !c.final, &h, &link, &tag, wine_link, &wine_len);
    if (c.final && err == WASI_ENOENT) {
      err = WASI_ESUCCESS; /* a final name that does not exist yet */
      set_name(at, name, c.len, c.trailing_slash);
      break;
    }
    if (err) break;
    if (link == 2) {
      /* A Unix link (under Wine): its text, walked from here. */
      err = walk_splice_text(w, wine_link, wine_len, &text, c.after);
      if (err) break;
      p = text;
      continue;
    }
    if (link) {
      err = walk_splice(w, h, tag, &text, c.after);
      CloseHandle(h);
      if (err) break;
      p = text;
      continue;
    }
    if (c.final) {
      CloseHandle(h);
      set_name(at, name, c.len, c.trailing_slash);
      break;
    }
    if ((err = walk_push(w, h))) break;
    p = c.next;
  }
  free(text);
  return err;
}

/* ---- the layer's calls ---- */

uint32_t wtp__wasi_beneath_resolve(int base, const char *path, int follow_final,
                                   wtp__wasi_at *at) {
  at->dir = -1, at->owned = 0, at->trailing_slash = 0, at->name[0] = '\0';
  if (absolute_text(path)) return WASI_EPERM;
  if (path[0] == '\0') return WASI_ENOENT;
  walk w = {WTP__WASI_HANDLE(base), NULL, 0, 0, 0};
  uint32_t err = walk_resolve(&w, path, follow_final, at);
  if (err) {
    walk_free(&w);
    return err;
  }
  if (w.depth) {
    at->dir = WTP__WASI_FD(w.dirs[--w.depth]);
    at->owned = 1;
  } else {
    at->dir = base;
    at->owned = 0;
  }
  walk_free(&w);
  return WASI_ESUCCESS;
}

void wtp__wasi_at_close(wtp__wasi_at *at) {
  if (at->owned) CloseHandle(WTP__WASI_HANDLE(at->dir));
  at->dir = -1, at->owned = 0;
}

#endif /* _WIN32 */
