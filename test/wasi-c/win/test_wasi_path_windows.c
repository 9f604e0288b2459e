/* test_wasi_path_windows.c: the Windows sandbox (wasi_path_windows.c) and
 * the path calls' host operations (wasi_path_host_windows.c), built with
 * zig cc -target x86_64-windows-gnu and run under Wine (run.sh). Linked
 * with the path layer only (path_standins.c for the error translation).
 *
 * Usage: test_wasi_path_windows.exe [HOSTLINKS_DIR]
 * With HOSTLINKS_DIR (a Windows path of a directory run-path-test.sh filled
 * with Unix symbolic links, under Wine), also checks the sandbox against
 * the links Wine follows on its own (test_host_links). */
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_path.h"
#include "wasi_path_host.h"
#include "wasi_path_windows.h"

static int failures, checks;

#define CHECK_EQ(got, want, what)                                              \
  do {                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                   \
    checks++;                                                                  \
    if (g_ != w_) {                                                            \
      failures++;                                                              \
      printf("FAIL %s:%d %s: got %lld, want %lld\n", __FILE__, __LINE__, what, \
             g_, w_);                                                          \
    }                                                                          \
  } while (0)

static WCHAR root_w[MAX_PATH];

static void wpath(WCHAR *out, const WCHAR *rel) {
  swprintf(out, MAX_PATH, L"%ls\\%ls", root_w, rel);
}

static void make_file(const WCHAR *rel, const char *text) {
  WCHAR p[MAX_PATH];
  wpath(p, rel);
  HANDLE h = CreateFileW(p, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    printf("setup: cannot create %ls (%lu)\n", p, GetLastError());
    exit(2);
  }
  DWORD n;
  WriteFile(h, text, (DWORD)strlen(text), &n, NULL);
  CloseHandle(h);
}

static int open_dir(const WCHAR *p) {
  HANDLE h = CreateFileW(
      p,
      FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    printf("setup: cannot open %ls (%lu)\n", p, GetLastError());
    exit(2);
  }
  return WTP__WASI_FD(h);
}

/* Resolves path beneath base; returns the errno, closes the result. */
static uint32_t resolve(int base, const char *path, int follow, char *name) {
  wtp__wasi_at at;
  uint32_t err = wtp__wasi_beneath_resolve(base, path, follow, &at);
  if (!err) {
    if (name) strcpy(name, at.name);
    wtp__wasi_at_close(&at);
  }
  return err;
}

/* path_open's host part, read-only; closes what it opened. */
static uint32_t open_path(int base, const char *path, uint32_t oflags,
                          uint64_t rights, int follow, uint8_t *type) {
  int fd = -1;
  uint8_t t = 0;
  uint32_t err =
      wtp__wasi_host_open(NULL, base, path, oflags, 0, rights, follow, &fd, &t);
  if (!err) CloseHandle(WTP__WASI_HANDLE(fd));
  if (type) *type = t;
  return err;
}

static uint32_t stat_path(int base, const char *path, int follow,
                          uint8_t filestat[64]) {
  wtp__wasi_at at;
  uint32_t err = wtp__wasi_beneath_resolve(base, path, follow, &at);
  if (err) return err;
  err = wtp__wasi_host_stat_at(&at, filestat);
  wtp__wasi_at_close(&at);
  return err;
}

/* Applies op to the resolved path (never followed). */
static uint32_t at_op(int base, const char *path,
                      uint32_t (*op)(const wtp__wasi_at *)) {
  wtp__wasi_at at;
  uint32_t err = wtp__wasi_beneath_resolve(base, path, 0, &at);
  if (err) return err;
  err = op(&at);
  wtp__wasi_at_close(&at);
  return err;
}

static uint32_t two_op(int base, const char *from, const char *to,
                       uint32_t (*op)(const wtp__wasi_at *,
                                      const wtp__wasi_at *)) {
  wtp__wasi_at a, b;
  uint32_t err = wtp__wasi_beneath_resolve(base, from, 0, &a);
  if (err) return err;
  err = wtp__wasi_beneath_resolve(base, to, 0, &b);
  if (!err) {
    err = op(&a, &b);
    wtp__wasi_at_close(&b);
  }
  wtp__wasi_at_close(&a);
  return err;
}

static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static const uint64_t READ = 1u << 1;     /* FD_READ */
static const uint64_t WRITE = 1u << 6;    /* FD_WRITE */
static const uint64_t READDIR = 1u << 14; /* FD_READDIR */

static void test_escapes(int base) {
  char name[256];
  CHECK_EQ(resolve(base, "sub/f.txt", 0, name), 0, "sub/f.txt");
  CHECK_EQ(strcmp(name, "f.txt"), 0, "final name");
  CHECK_EQ(resolve(base, "sub/..", 0, name), 0, "sub/..");
  CHECK_EQ(strcmp(name, "."), 0, "sub/.. is the base");
  CHECK_EQ(resolve(base, "sub/./../sub/f.txt", 0, NULL), 0, "inside dots");
  CHECK_EQ(resolve(base, "..", 0, NULL), WASI_EPERM, "..");
  CHECK_EQ(resolve(base, "../outside.txt", 0, NULL), WASI_EPERM, "../x");
  CHECK_EQ(resolve(base, "sub/../../outside.txt", 0, NULL), WASI_EPERM,
           "sub/../../x");
  CHECK_EQ(open_path(base, "../outside.txt", 0, READ, 0, NULL), WASI_EPERM,
           "open ../x");
  CHECK_EQ(resolve(base, "", 0, NULL), WASI_ENOENT, "empty");
  CHECK_EQ(resolve(base, "sub/f.txt/x", 0, NULL), WASI_ENOTDIR, "file/x");
  CHECK_EQ(resolve(base, "nope/x", 0, NULL), WASI_ENOENT, "nope/x");
}

static void test_windows_names(int base) {
  static const char *const eperm[] = {
      "/etc",        "/",          "\\x",        "\\\\server\\share\\x",
      "\\\\?\\C:\\", "\\\\.\\NUL", "C:/windows", "c:\\windows",
      "C:",          "z:x",        "sub\\f.txt", "sub\\..\\..\\outside.txt",
      "sub/\\x",     "//?/C:/x"};
  for (size_t i = 0; i < sizeof eperm / sizeof *eperm; i++) {
    CHECK_EQ(resolve(base, eperm[i], 0, NULL), WASI_EPERM, eperm[i]);
    CHECK_EQ(open_path(base, eperm[i], 0, READ, 0, NULL), WASI_EPERM, eperm[i]);
  }
  static const char *const einval[] = {"CON",          "con",
                                       "nul.txt",      "sub/COM1",
                                       "LPT9.log",     "CONIN$",
                                       "conout$",      "con .txt",
                                       "AUX.tar.gz",   "prn",
                                       "COM\xc2\xb9",  "lpt\xc2\xb2.x",
                                       "f.txt:stream", "sub/f.txt::$DATA",
                                       "sub/f.txt:",   "a.",
                                       "a ",           "sub./f.txt",
                                       "x?",           "x*",
                                       "a<b",          "a|b",
                                       "a\"b",         "a\x01"};
  for (size_t i = 0; i < sizeof einval / sizeof *einval; i++) {
    CHECK_EQ(resolve(base, einval[i], 0, NULL), WASI_EINVAL, einval[i]);
    CHECK_EQ(open_path(base, einval[i], 1 /* CREAT */, READ | WRITE, 0, NULL),
             WASI_EINVAL, einval[i]);
  }
  /* Names that only look like them are names. */
  static const char *const fine[] = {"console", "CON1", "COM10",   "nul_",
                                     "LPT",     "a.b",  ".hidden", "a..b"};
  for (size_t i = 0; i < sizeof fine / sizeof *fine; i++)
    CHECK_EQ(resolve(base, fine[i], 0, NULL), 0, fine[i]);
  /* Nothing was made by the refused creates. */
  uint8_t st[64];
  CHECK_EQ(stat_path(base, "a", 0, st), WASI_ENOENT, "no 'a' made");
  CHECK_EQ(stat_path(base, "f.txt", 0, st), WASI_ENOENT, "no 'f.txt' made");
}

static void test_calls(int base) {
  uint8_t type = 0, st[64];
  int fd = -1;
  /* create, stat, exclusive, truncate */
  CHECK_EQ(wtp__wasi_host_open(NULL, base, "new.txt", 1 /* CREAT */, 0,
                               READ | WRITE, 0, &fd, &type),
           0, "create new.txt");
  CHECK_EQ(type, WASI_FILETYPE_REGULAR_FILE, "new.txt type");
  if (fd != -1) {
    DWORD n;
    WriteFile(WTP__WASI_HANDLE(fd), "hello", 5, &n, NULL);
    CloseHandle(WTP__WASI_HANDLE(fd));
  }
  CHECK_EQ(stat_path(base, "new.txt", 0, st), 0, "stat new.txt");
  CHECK_EQ(get64(st + 32), 5, "size 5");
  CHECK_EQ(st[16], WASI_FILETYPE_REGULAR_FILE, "stat type");
  CHECK_EQ(get64(st + 24), 1, "nlink 1");
  CHECK_EQ(get64(st + 48) > 1600000000ull * 1000000000ull, 1,
           "mtim after 2020, in ns since 1970");
  CHECK_EQ(open_path(base, "new.txt", 1 | 4 /* CREAT|EXCL */, READ, 0, NULL),
           WASI_EEXIST, "exclusive over a file");
  CHECK_EQ(open_path(base, "new.txt", 8 /* TRUNC */, WRITE, 0, NULL), 0,
           "truncate");
  CHECK_EQ(stat_path(base, "new.txt", 0, st), 0, "stat truncated");
  CHECK_EQ(get64(st + 32), 0, "size 0 after TRUNC");
  CHECK_EQ(open_path(base, "new.txt/", 0, READ, 0, NULL), WASI_ENOTDIR,
           "file/");
  CHECK_EQ(open_path(base, "new.txt", 2 /* DIRECTORY */, READ, 0, NULL),
           WASI_ENOTDIR, "DIRECTORY on a file");
  CHECK_EQ(open_path(base, "sub", 2, READDIR, 0, &type), 0, "open sub");
  CHECK_EQ(type, WASI_FILETYPE_DIRECTORY, "sub type");
  CHECK_EQ(open_path(base, "sub", 2, READDIR | WRITE, 0, NULL), WASI_EISDIR,
           "directory with write rights");
  CHECK_EQ(open_path(base, "sub", 0, WRITE, 0, NULL), WASI_EISDIR,
           "write a directory");
  CHECK_EQ(open_path(base, ".", 2, READDIR, 0, &type), 0, "open .");
  CHECK_EQ(open_path(base, "missing", 0, READ, 0, NULL), WASI_ENOENT,
           "missing");
  /* set times */
  wtp__wasi_at at;
  if (!wtp__wasi_beneath_resolve(base, "new.txt", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_set_times_at(&at, 0, 1000000000ull * 1234567890,
                                         4 /* MTIM */),
             0, "set mtim");
    wtp__wasi_at_close(&at);
  }
  CHECK_EQ(stat_path(base, "new.txt", 0, st), 0, "stat after set");
  CHECK_EQ(get64(st + 48), 1000000000ull * 1234567890, "mtim set");
  /* directories */
  CHECK_EQ(at_op(base, "d", wtp__wasi_host_mkdir_at), 0, "mkdir d");
  CHECK_EQ(at_op(base, "d", wtp__wasi_host_mkdir_at), WASI_EEXIST,
           "mkdir d again");
  CHECK_EQ(stat_path(base, "d", 0, st), 0, "stat d");
  CHECK_EQ(st[16], WASI_FILETYPE_DIRECTORY, "d is a directory");
  CHECK_EQ(at_op(base, "d", wtp__wasi_host_unlink_at), WASI_EISDIR,
           "unlink a directory");
  CHECK_EQ(at_op(base, "new.txt", wtp__wasi_host_rmdir_at), WASI_ENOTDIR,
           "rmdir a file");
  CHECK_EQ(open_path(base, "d/inner", 1, WRITE, 0, NULL), 0, "d/inner");
  CHECK_EQ(at_op(base, "d", wtp__wasi_host_rmdir_at), WASI_ENOTEMPTY,
           "rmdir non-empty");
  /* rename, link, unlink */
  CHECK_EQ(two_op(base, "new.txt", "d/moved.txt", wtp__wasi_host_rename_at), 0,
           "rename into d");
  CHECK_EQ(stat_path(base, "new.txt", 0, st), WASI_ENOENT, "old name gone");
  CHECK_EQ(two_op(base, "d/moved.txt", "d/inner", wtp__wasi_host_rename_at), 0,
           "rename over a file");
  CHECK_EQ(two_op(base, "d/inner", "hard", wtp__wasi_host_link_at), 0,
           "hard link");
  CHECK_EQ(stat_path(base, "hard", 0, st), 0, "stat hard");
  CHECK_EQ(get64(st + 24), 2, "nlink 2");
  uint8_t st2[64];
  CHECK_EQ(stat_path(base, "d/inner", 0, st2), 0, "stat d/inner");
  CHECK_EQ(get64(st + 8) == get64(st2 + 8) && get64(st) == get64(st2), 1,
           "same dev and ino");
  CHECK_EQ(two_op(base, "d/inner", "hard", wtp__wasi_host_link_at), WASI_EEXIST,
           "link over a name");
  CHECK_EQ(two_op(base, "d", "d2", wtp__wasi_host_link_at), WASI_EPERM,
           "link a directory");
  CHECK_EQ(at_op(base, "hard", wtp__wasi_host_unlink_at), 0, "unlink hard");
  CHECK_EQ(at_op(base, "d/inner", wtp__wasi_host_unlink_at), 0, "unlink inner");
  CHECK_EQ(at_op(base, "d", wtp__wasi_host_rmdir_at), 0, "rmdir d");
  CHECK_EQ(stat_path(base, "d", 0, st), WASI_ENOENT, "d gone");
  /* readlink of no link */
  char text[64];
  size_t len = 0;
  if (!wtp__wasi_beneath_resolve(base, "sub", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_readlink_at(&at, text, sizeof text, &len),
             WASI_EINVAL, "readlink of a directory");
    wtp__wasi_at_close(&at);
  }
}

/* Non-ASCII names: UTF-8 in the guest, UTF-16 on Windows, both ways. */
static void test_unicode(int base) {
  const char *name =
      "\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x98\x80.txt";
  uint8_t type, st[64];
  CHECK_EQ(open_path(base, name, 1 /* CREAT */, READ | WRITE, 0, &type), 0,
           "create a non-ASCII name");
  CHECK_EQ(stat_path(base, name, 0, st), 0, "stat it");
  WCHAR p[MAX_PATH];
  wpath(p, L"\u00e9t\u00e9-\u65e5\u672c-\U0001F600.txt");
  CHECK_EQ(GetFileAttributesW(p) != INVALID_FILE_ATTRIBUTES, 1,
           "Windows sees the same name");
  wtp__wasi_host_dir *d;
  int found = 0;
  if (!wtp__wasi_host_dir_open(base, &d)) {
    wtp__wasi_dirent e;
    while (wtp__wasi_host_dir_next(d, &e) > 0)
      if (strcmp(e.name, name) == 0 && e.name_len == strlen(name)) found++;
    wtp__wasi_host_dir_close(d);
  }
  CHECK_EQ(found, 1, "fd_readdir lists it in UTF-8");
  CHECK_EQ(at_op(base, name, wtp__wasi_host_unlink_at), 0, "unlink it");
  /* 255 bytes is the longest component; 256 answers ENAMETOOLONG. */
  char longest[257];
  memset(longest, 'n', 256);
  longest[255] = '\0';
  CHECK_EQ(open_path(base, longest, 1, READ | WRITE, 0, NULL), 0,
           "a 255-byte name");
  CHECK_EQ(at_op(base, longest, wtp__wasi_host_unlink_at), 0,
           "unlink the 255-byte name");
  longest[255] = 'n', longest[256] = '\0';
  CHECK_EQ(resolve(base, longest, 0, NULL), WASI_ENAMETOOLONG,
           "a 256-byte name");
}

static void test_readdir(int base) {
  int fd = -1;
  uint8_t type;
  if (wtp__wasi_host_open(NULL, base, "sub", 2, 0, READDIR, 0, &fd, &type)) {
    CHECK_EQ(1, 0, "open sub for readdir");
    return;
  }
  for (int round = 0; round < 2; round++) {
    wtp__wasi_host_dir *d;
    CHECK_EQ(wtp__wasi_host_dir_open(fd, &d), 0, "dir_open");
    int seen_f = 0, seen_dot = 0, count = 0;
    wtp__wasi_dirent e;
    for (int pass = 0; pass < 2; pass++) {
      int r;
      while ((r = wtp__wasi_host_dir_next(d, &e)) > 0) {
        count++;
        if (strcmp(e.name, "f.txt") == 0) {
          seen_f++;
          CHECK_EQ(e.type, WASI_FILETYPE_REGULAR_FILE, "f.txt's type");
          CHECK_EQ(e.name_len, 5, "f.txt's length");
        }
        if (strcmp(e.name, ".") == 0) seen_dot++;
      }
      CHECK_EQ(r, 0, "listing ends");
      if (pass == 0) wtp__wasi_host_dir_rewind(d);
    }
    CHECK_EQ(seen_f, 2, "f.txt listed once per pass");
    CHECK_EQ(count >= 2, 1, "entries listed");
    (void)seen_dot;
    wtp__wasi_host_dir_close(d);
  }
  CloseHandle(WTP__WASI_HANDLE(fd));
}

/* No handle leaks on any path, success or error: the walk's stack, the
 * host operations' handles. */
static void test_no_leaks(int base) {
  static const char *const paths[] = {
      "sub/f.txt",   "sub/..",      "../x",   "sub/../../x", "sub/f.txt/x",
      "nope/x",      "C:/x",        "sub\\x", "CON",         "sub/nul.txt",
      "sub/./f.txt", "sub/missing", ".",      "sub/"};
  /* Wine's GetProcessHandleCount says 0; a new handle takes the lowest
   * free slot there and on Windows, so its value shows a leak too. */
  HANDLE probe_before = CreateEventW(NULL, TRUE, FALSE, NULL);
  CloseHandle(probe_before);
  DWORD before = 0, after = 0;
  GetProcessHandleCount(GetCurrentProcess(), &before);
  for (int round = 0; round < 50; round++) {
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
      uint8_t st[64];
      resolve(base, paths[i], round & 1, NULL);
      open_path(base, paths[i], 0, READ, round & 1, NULL);
      stat_path(base, paths[i], round & 1, st);
    }
    at_op(base, "sub/tmpdir", wtp__wasi_host_mkdir_at);
    at_op(base, "sub/tmpdir", wtp__wasi_host_unlink_at); /* EISDIR */
    at_op(base, "sub/tmpdir", wtp__wasi_host_rmdir_at);
    two_op(base, "sub/f.txt", "sub/g.txt", wtp__wasi_host_rename_at);
    two_op(base, "sub/g.txt", "sub/f.txt", wtp__wasi_host_rename_at);
  }
  GetProcessHandleCount(GetCurrentProcess(), &after);
  HANDLE probe_after = CreateEventW(NULL, TRUE, FALSE, NULL);
  CloseHandle(probe_after);
  printf("handles: count %lu -> %lu, a new handle %p -> %p\n", before, after,
         probe_before, probe_after);
  CHECK_EQ(after, before, "handle count after 50 rounds");
  CHECK_EQ((uintptr_t)probe_after, (uintptr_t)probe_before,
           "a new handle's value after 50 rounds");
}

/* Windows symbolic links made through the layer (FSCTL_SET_REPARSE_POINT):
 * made where the OS lets this process (SeCreateSymbolicLinkPrivilege; Wine
 * gives it), otherwise EPERM and nothing to follow. */
static void test_symlinks(int base) {
  wtp__wasi_at at;
  uint32_t made = 1;
  if (!wtp__wasi_beneath_resolve(base, "lin", 0, &at)) {
    made = wtp__wasi_host_symlink_at("sub", &at);
    wtp__wasi_at_close(&at);
  }
  if (made == WASI_EPERM || made == WASI_ENOTSUP) {
    printf(
        "note: symbolic links cannot be made here (%u): link cases skipped\n",
        made);
    return;
  }
  CHECK_EQ(made, 0, "symlink lin -> sub");
  uint8_t st[64];
  CHECK_EQ(stat_path(base, "lin", 0, st), 0, "lstat lin");
  CHECK_EQ(st[16], WASI_FILETYPE_SYMBOLIC_LINK, "lin is a link");
  CHECK_EQ(stat_path(base, "lin", 1, st), 0, "stat lin followed");
  CHECK_EQ(st[16], WASI_FILETYPE_DIRECTORY, "lin leads to a directory");
  char text[64];
  size_t len = 0;
  if (!wtp__wasi_beneath_resolve(base, "lin", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_readlink_at(&at, text, sizeof text, &len), 0,
             "readlink lin");
    CHECK_EQ(len == 3 && memcmp(text, "sub", 3) == 0, 1, "lin's text");
    wtp__wasi_at_close(&at);
  }
  CHECK_EQ(resolve(base, "lin/f.txt", 0, NULL), 0, "through lin");
  CHECK_EQ(open_path(base, "lin/f.txt", 0, READ, 0, NULL), 0, "open via lin");
  CHECK_EQ(open_path(base, "lin", 2, READDIR, 0, NULL), WASI_ELOOP,
           "lin not followed: ELOOP");
  CHECK_EQ(open_path(base, "lin", 2, READDIR, 1, NULL), 0, "lin followed");
  CHECK_EQ(open_path(base, "lin/", 0, READ, 0, NULL), 0, "lin/ followed");
  /* a link out, relative */
  if (!wtp__wasi_beneath_resolve(base, "out", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_symlink_at("../outside.txt", &at), 0,
             "symlink out -> ../outside.txt");
    wtp__wasi_at_close(&at);
  }
  CHECK_EQ(open_path(base, "out", 0, READ, 1, NULL), WASI_EPERM,
           "following out: EPERM");
  CHECK_EQ(stat_path(base, "out", 1, st), WASI_EPERM, "stat out followed");
  CHECK_EQ(stat_path(base, "out", 0, st), 0, "lstat out");
  /* a link into a subdirectory that climbs back inside */
  if (!wtp__wasi_beneath_resolve(base, "sub/back", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_symlink_at("../sub/f.txt", &at), 0,
             "symlink sub/back");
    wtp__wasi_at_close(&at);
  }
  CHECK_EQ(open_path(base, "sub/back", 0, READ, 1, NULL), 0,
           "sub/back followed stays inside");
  /* a loop */
  if (!wtp__wasi_beneath_resolve(base, "loop", 0, &at)) {
    CHECK_EQ(wtp__wasi_host_symlink_at("loop", &at), 0, "symlink loop");
    wtp__wasi_at_close(&at);
  }
  CHECK_EQ(open_path(base, "loop", 0, READ, 1, NULL), WASI_ELOOP, "loop");
  /* unlink a link removes the link only */
  CHECK_EQ(at_op(base, "lin", wtp__wasi_host_unlink_at), 0, "unlink lin");
  CHECK_EQ(stat_path(base, "sub/f.txt", 0, st), 0, "target stays");
  at_op(base, "out", wtp__wasi_host_unlink_at);
  at_op(base, "sub/back", wtp__wasi_host_unlink_at);
  at_op(base, "loop", wtp__wasi_host_unlink_at);
}

/* Unix symbolic links the script made in HOSTLINKS_DIR (run-path-test.sh):
 *   abs -> OUT (an absolute directory outside), fout -> OUT/marker,
 *   up -> .., in -> sub, fin -> sub/marker, dang -> ../made-outside.
 * Wine follows them inside NtCreateFile and shows nothing of them on the
 * handle; the Wine defence (wasi_path_windows.h) catches them by the
 * handle's name. On Windows there are no Unix links (the script passes
 * HOSTLINKS_DIR only under Wine). */
static void test_host_links(const char *dir_utf8) {
  WCHAR dir[MAX_PATH];
  MultiByteToWideChar(CP_UTF8, 0, dir_utf8, -1, dir, MAX_PATH);
  int base = open_dir(dir);
  uint8_t st[64];
  CHECK_EQ(wtp__wasi_under_wine(), 1, "running under Wine");
  /* Links out: never followed, nothing outside touched. */
  CHECK_EQ(stat_path(base, "abs/marker", 0, st), WASI_EPERM, "abs/marker");
  CHECK_EQ(stat_path(base, "abs", 1, st), WASI_EPERM, "abs followed");
  CHECK_EQ(stat_path(base, "up/hostlinks/in", 0, st), WASI_EPERM, "up/...");
  CHECK_EQ(stat_path(base, "fout", 1, st), WASI_EPERM, "fout followed");
  CHECK_EQ(open_path(base, "fout", 0, READ, 1, NULL), WASI_EPERM,
           "open fout followed");
  CHECK_EQ(open_path(base, "fout", 0, READ, 0, NULL), WASI_ELOOP,
           "open fout not followed");
  CHECK_EQ(open_path(base, "abs/marker", 0, READ, 0, NULL), WASI_EPERM,
           "open abs/marker");
  /* Acting on a link itself would act on its target under Wine: refused. */
  CHECK_EQ(at_op(base, "fout", wtp__wasi_host_unlink_at), WASI_EPERM,
           "unlink fout");
  CHECK_EQ(at_op(base, "abs", wtp__wasi_host_rmdir_at), WASI_EPERM,
           "rmdir abs");
  CHECK_EQ(two_op(base, "fout", "stolen", wtp__wasi_host_rename_at), WASI_EPERM,
           "rename fout");
  CHECK_EQ(two_op(base, "fout", "hard", wtp__wasi_host_link_at), WASI_EPERM,
           "link fout");
  CHECK_EQ(stat_path(base, "fout", 0, st), WASI_EPERM, "lstat fout");
  /* A dangling link out is not followed to make its target. */
  CHECK_EQ(open_path(base, "dang", 1 /* CREAT */, READ | WRITE, 0, NULL),
           WASI_ELOOP, "create through dang");
  CHECK_EQ(open_path(base, "dang", 1, READ | WRITE, 1, NULL), WASI_ELOOP,
           "create through dang, followed");
  WCHAR p[MAX_PATH];
  swprintf(p, MAX_PATH, L"%ls\\..\\made-outside", dir);
  CHECK_EQ(GetFileAttributesW(p), INVALID_FILE_ATTRIBUTES,
           "nothing made outside");
  swprintf(p, MAX_PATH, L"%ls\\..\\out\\marker", dir);
  CHECK_EQ(GetFileAttributesW(p) != INVALID_FILE_ATTRIBUTES, 1,
           "the outside marker is still there");
  /* Links inside: followed to where they lead. */
  char name[256];
  CHECK_EQ(resolve(base, "in/marker", 0, name), 0, "in/marker");
  CHECK_EQ(strcmp(name, "marker"), 0, "in/marker's name");
  CHECK_EQ(stat_path(base, "in", 1, st), 0, "in followed");
  CHECK_EQ(st[16], WASI_FILETYPE_DIRECTORY, "in is a directory");
  CHECK_EQ(open_path(base, "fin", 0, READ, 1, NULL), 0, "fin followed");
  CHECK_EQ(open_path(base, "in/", 0, READ, 0, NULL), 0, "in/ followed");
  CHECK_EQ(stat_path(base, "sub/marker", 0, st), 0, "the real entry");
  CloseHandle(WTP__WASI_HANDLE(base));
}

int main(int argc, char **argv) {
  WCHAR tmp[MAX_PATH];
  GetTempPathW(MAX_PATH, tmp);
  swprintf(root_w, MAX_PATH, L"%lswtp-path-%lu", tmp, GetCurrentProcessId());
  WCHAR outer[MAX_PATH];
  wcscpy(outer, root_w);
  CreateDirectoryW(outer, NULL);
  wcscat(root_w, L"\\root");
  CreateDirectoryW(root_w, NULL);
  WCHAR p[MAX_PATH];
  wpath(p, L"sub");
  CreateDirectoryW(p, NULL);
  make_file(L"sub\\f.txt", "inside");
  make_file(L"..\\outside.txt", "outside");
  int base = open_dir(root_w);
  test_escapes(base);
  test_windows_names(base);
  test_calls(base);
  test_readdir(base);
  test_unicode(base);
  test_no_leaks(base);
  test_symlinks(base);
  if (argc > 1) test_host_links(argv[1]);
  CloseHandle(WTP__WASI_HANDLE(base));
  /* clean up */
  wpath(p, L"sub\\f.txt");
  DeleteFileW(p);
  wpath(p, L"sub");
  RemoveDirectoryW(p);
  RemoveDirectoryW(root_w);
  wpath(p, L"..\\outside.txt");
  DeleteFileW(p);
  RemoveDirectoryW(outer);
  printf("%s: %d checks, %d failed\n", failures ? "FAIL" : "PASS", checks,
         failures);
  return failures ? 1 : 0;
}
#else
int main(void) { return 0; }
#endif
