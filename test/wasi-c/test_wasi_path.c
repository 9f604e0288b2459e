/* test_wasi_path.c: the sandbox (src/wasi/wasi_path.c) and the path calls
 * (wasi_path_calls.c), through the calls themselves over a temporary tree:
 *
 *   <root>/sandbox   the program's preopen (fd 3)
 *   <root>/outside   beside it: secret, dir/, dir/inner, target
 *
 * Every escape asserts its errno and that the outside is as it was (names,
 * types, sizes, link counts, times, the secret's bytes) and that no result
 * was written. The whole suite runs twice: over openat2 (where the kernel
 * has it) and over the forced component walk. A race test swaps a
 * directory and a symbolic link to the outside while threads open through
 * it. `--walk-only` runs the walk alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "../../src/wasi/wasi_errno.h"
#include "../../src/wasi/wasi_internal.h"
#include "../../src/wasi/wasi_path.h"
#include "../c/harness.h"

/* ---- the tree ---- */

static char root[256], sandbox[300], outside[300];

static void host_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

static void at_root(char *out, size_t size, const char *rel) {
  snprintf(out, size, "%s/%s", root, rel);
}

static void host_symlink(const char *target, const char *rel) {
  char path[600];
  at_root(path, sizeof path, rel);
  if (symlink(target, path) != 0) {
    perror(path);
    exit(2);
  }
}

static void host_mkdir(const char *rel) {
  char path[600];
  at_root(path, sizeof path, rel);
  if (mkdir(path, 0777) != 0) {
    perror(path);
    exit(2);
  }
}

static void host_file(const char *rel, const char *text) {
  char path[600];
  at_root(path, sizeof path, rel);
  host_write(path, text);
}

static int host_exists(const char *rel) {
  char path[600];
  struct stat st;
  at_root(path, sizeof path, rel);
  return lstat(path, &st) == 0;
}

static void build_tree(void) {
  char cmd[700], abs[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s/sandbox' '%s/outside'", root, root);
  if (system(cmd) != 0) exit(2);
  host_mkdir("sandbox");
  host_mkdir("outside");
  host_file("outside/secret", "secret bytes");
  host_file("outside/target", "outside target");
  host_mkdir("outside/dir");
  host_file("outside/dir/inner", "inner");
  host_file("sandbox/file", "hello");
  host_mkdir("sandbox/sub");
  host_file("sandbox/sub/inner", "sub inner");
  snprintf(abs, sizeof abs, "%s/outside", root);
  host_symlink(abs, "sandbox/link_out_abs");
  host_symlink(abs, "sandbox/link_out_spare");
  host_symlink("../outside", "sandbox/link_out_rel");
  snprintf(abs, sizeof abs, "%s/outside/secret", root);
  host_symlink(abs, "sandbox/link_secret_abs");
  host_symlink("../outside/secret", "sandbox/link_secret_rel");
  snprintf(abs, sizeof abs, "%s/outside/new_abs", root);
  host_symlink(abs, "sandbox/dangling_out_abs");
  host_symlink("../outside/new_rel", "sandbox/dangling_out_rel");
  host_symlink("sub/../../outside/new_deep", "sandbox/dangling_out_deep");
  host_symlink("new_inside", "sandbox/dangling_in");
  host_symlink("loop2", "sandbox/loop1");
  host_symlink("loop1", "sandbox/loop2");
  host_symlink("self", "sandbox/self");
  host_symlink("sub", "sandbox/link_sub");
  host_symlink("file", "sandbox/link_file");
  host_symlink("..", "sandbox/sub/link_up");
  host_symlink("../..", "sandbox/sub/link_up2");
  host_symlink("../link_out_rel", "sandbox/sub/link_chain");
  snprintf(abs, sizeof abs, "%s/sandbox/file", root);
  host_symlink(
      abs,
      "sandbox/link_abs_inside"); /* absolute, even to the inside: an escape */
}

/* What the outside looks like: every entry's name, type, size, link count
 * and modification time, and the secret's bytes. */
static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, char *out, size_t size) {
  char *lines[64];
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) && n < 64) {
    char path[900], line[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (lstat(path, &st) != 0) continue;
    snprintf(line, sizeof line, "%s %o %lld %lld %lld.%09ld\n", e->d_name,
             (unsigned)st.st_mode, (long long)st.st_size,
             (long long)st.st_nlink, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    lines[n++] = strdup(line);
  }
  if (d) closedir(d);
  qsort(lines, (size_t)n, sizeof lines[0], compare_names);
  for (int i = 0; i < n; i++) {
    strncat(out, lines[i], size - strlen(out) - 1);
    free(lines[i]);
  }
}

static void fingerprint(char *out, size_t size) {
  char dir[600], secret[600], bytes[64] = {0};
  out[0] = '\0';
  list_dir(outside, out, size);
  snprintf(dir, sizeof dir, "%s/dir", outside);
  list_dir(dir, out, size);
  snprintf(secret, sizeof secret, "%s/secret", outside);
  FILE *f = fopen(secret, "r");
  if (f) {
    size_t n = fread(bytes, 1, sizeof bytes - 1, f);
    bytes[n] = '\0';
    fclose(f);
  }
  strncat(out, bytes, size - strlen(out) - 1);
}

static char baseline[8192];

/* The outside is exactly as build_tree left it. */
#define CHECK_OUTSIDE_UNTOUCHED()                                      \
  do {                                                                 \
    char now_[8192];                                                   \
    fingerprint(now_, sizeof now_);                                    \
    CHECK(strcmp(now_, baseline) == 0);                                \
    if (strcmp(now_, baseline) != 0)                                   \
      fprintf(stderr, "outside now:\n%s\nwas:\n%s\n", now_, baseline); \
  } while (0)

/* ---- the guest ---- */

static uint8_t guest[1 << 16];
static const wtp_wasi_memory memory = {guest, sizeof guest};
static wtp_wasi *wasi;
enum { DIRFD = 3, PATH1 = 1024, PATH2 = 8192, OUT = 64, BUF = 16384 };
#define FOLLOW WASI_LOOKUPFLAGS_SYMLINK_FOLLOW
#define RW (WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_WRITE)
#define SENTINEL 0xa5

static uint64_t put(uint64_t at, const char *text) {
  size_t n = strlen(text);
  memcpy(guest + at, text, n);
  return n;
}

static void close_fd(uint32_t fd) {
  uint64_t a[1] = {fd};
  CHECK_EQ(wtp__wasi_fd_close(wasi, &memory, a), 0);
}

static uint32_t g_open(uint32_t dirflags, const char *path, uint32_t oflags,
                       uint64_t rights, uint32_t *fd_out) {
  uint64_t a[9] = {DIRFD,  dirflags, PATH1, put(PATH1, path), oflags, rights,
                   rights, 0,        OUT};
  wtp__wasi_store32(&memory, OUT, 0xdeadbeef);
  uint32_t err = wtp__wasi_path_open(wasi, &memory, a);
  uint32_t fd = wtp__wasi_load32(&memory, OUT);
  if (err) CHECK_EQ(fd, 0xdeadbeef); /* nothing written on failure */
  if (fd_out) {
    *fd_out = err ? UINT32_MAX : fd;
  } else if (!err) {
    close_fd(fd);
  }
  return err;
}

typedef uint32_t (*call_fn)(wtp_wasi *, const wtp_wasi_memory *,
                            const uint64_t *);

static uint32_t g_path(call_fn fn, const char *path) {
  uint64_t a[3] = {DIRFD, PATH1, put(PATH1, path)};
  return fn(wasi, &memory, a);
}

static uint32_t g_two(call_fn fn, uint32_t flags, const char *from,
                      const char *to) {
  uint64_t n1 = put(PATH1, from), n2 = put(PATH2, to);
  if (fn == wtp__wasi_path_rename) {
    uint64_t a[6] = {DIRFD, PATH1, n1, DIRFD, PATH2, n2};
    return fn(wasi, &memory, a);
  }
  if (fn == wtp__wasi_path_link) {
    uint64_t a[7] = {DIRFD, flags, PATH1, n1, DIRFD, PATH2, n2};
    return fn(wasi, &memory, a);
  }
  uint64_t a[5] = {PATH1, n1, DIRFD, PATH2, n2}; /* path_symlink(target, new) */
  return fn(wasi, &memory, a);
}

static uint32_t g_readlink(const char *path, uint32_t buf_len, uint32_t *used) {
  memset(guest + BUF, SENTINEL, 512);
  wtp__wasi_store32(&memory, OUT, 0xdeadbeef);
  uint64_t a[6] = {DIRFD, PATH1, put(PATH1, path), BUF, buf_len, OUT};
  uint32_t err = wtp__wasi_path_readlink(wasi, &memory, a);
  *used = wtp__wasi_load32(&memory, OUT);
  return err;
}

static int untouched(uint64_t at, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (guest[at + i] != SENTINEL) return 0;
  return 1;
}

static uint32_t g_stat(uint32_t flags, const char *path) {
  memset(guest + BUF, SENTINEL, 64);
  uint64_t a[5] = {DIRFD, flags, PATH1, put(PATH1, path), BUF};
  uint32_t err = wtp__wasi_path_filestat_get(wasi, &memory, a);
  if (err) CHECK(untouched(BUF, 64));
  return err;
}

static uint8_t stat_type(void) { return guest[BUF + 16]; }

static uint32_t g_times(uint32_t flags, const char *path, uint64_t mtim) {
  uint64_t a[7] = {
      DIRFD, flags, PATH1, put(PATH1, path), 0, mtim, WASI_FSTFLAGS_MTIM};
  return wtp__wasi_path_filestat_set_times(wasi, &memory, a);
}

static void g_create(void) {
  char error[256];
  wtp_wasi_preopen preopen = {sandbox, "/sandbox"};
  wtp_wasi_config config;
  memset(&config, 0, sizeof config);
  config.preopens = &preopen;
  config.preopen_count = 1;
  config.stdio[0] = config.stdio[1] = config.stdio[2] = -1;
  if (wtp_wasi_create(&config, &wasi, error, sizeof error) != 0) {
    fprintf(stderr, "wtp_wasi_create: %s\n", error);
    exit(2);
  }
}

/* ---- escapes ---- */

static void test_open_escapes(void) {
  static const char *const escapes[] = {
      "/etc/passwd",
      "/",
      "..",
      "../outside/secret",
      "sub/../../outside/secret",
      "sub/../..",
      "link_out_abs/secret",
      "link_out_rel/secret",
      "link_out_rel/dir/inner",
      "sub/link_up2/outside/secret",
      "sub/link_chain/secret",
      "link_abs_inside/",
      "./sub/./../../outside",
      "sub/link_up/../outside/secret",
  };
  /* A final link is followed only when asked: not followed, ELOOP. */
  CHECK_EQ(g_open(0, "link_abs_inside", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_ELOOP);
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
    CHECK_EQ(g_open(FOLLOW, escapes[i], 0, RW, NULL), WASI_EPERM);
    CHECK_EQ(g_open(0, escapes[i], 0, WASI_RIGHTS_FD_READ, NULL), WASI_EPERM);
    CHECK_EQ(g_open(FOLLOW, escapes[i], WASI_OFLAGS_DIRECTORY, 0, NULL),
             WASI_EPERM);
  }
  /* A final link out: followed, EPERM; not followed, ELOOP (as the kernel's O_NOFOLLOW). */
  CHECK_EQ(g_open(FOLLOW, "link_secret_abs", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(FOLLOW, "link_secret_rel", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(0, "link_secret_rel", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_ELOOP);
  /* Truncation through a link out. */
  CHECK_EQ(g_open(FOLLOW, "link_secret_rel", WASI_OFLAGS_TRUNC, RW, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(FOLLOW, "link_secret_abs",
                  WASI_OFLAGS_CREAT | WASI_OFLAGS_TRUNC, RW, NULL),
           WASI_EPERM);
  /* Creation through dangling links out: nothing appears outside. */
  CHECK_EQ(g_open(FOLLOW, "dangling_out_abs", WASI_OFLAGS_CREAT, RW, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(FOLLOW, "dangling_out_rel", WASI_OFLAGS_CREAT, RW, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(FOLLOW, "dangling_out_deep", WASI_OFLAGS_CREAT, RW, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(0, "dangling_out_rel", WASI_OFLAGS_CREAT, RW, NULL),
           WASI_ELOOP);
  CHECK_EQ(g_open(FOLLOW, "dangling_out_rel",
                  WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL, RW, NULL),
           WASI_EEXIST);
  CHECK_EQ(g_open(FOLLOW, "link_out_rel/created", WASI_OFLAGS_CREAT, RW, NULL),
           WASI_EPERM);
  CHECK(!host_exists("outside/new_abs") && !host_exists("outside/new_rel") &&
        !host_exists("outside/new_deep"));
  CHECK(!host_exists("outside/created") && !host_exists("new_deep"));
  CHECK_OUTSIDE_UNTOUCHED();
}

static void test_loops(void) {
  CHECK_EQ(g_open(FOLLOW, "loop1", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ELOOP);
  CHECK_EQ(g_open(0, "loop1/x", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ELOOP);
  CHECK_EQ(g_open(FOLLOW, "self/x", WASI_OFLAGS_CREAT, RW, NULL), WASI_ELOOP);
  CHECK_EQ(g_stat(FOLLOW, "loop2"), WASI_ELOOP);
  CHECK_EQ(g_stat(0, "loop2"), 0);
  CHECK_EQ(stat_type(), WASI_FILETYPE_SYMBOLIC_LINK);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "self/d"), WASI_ELOOP);
}

static void test_mutation_escapes(void) {
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "../outside/newdir"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "link_out_rel/newdir"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "link_out_abs/newdir"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "/tmp/newdir"), WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "link_out_rel/dir"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "sub/link_up2/outside/dir"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "link_out_abs/secret"),
           WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "../outside/secret"), WASI_EPERM);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "sub/link_chain/dir/inner"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "link_out_rel/secret", "stolen"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "file", "link_out_rel/planted"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "file", "../outside/secret"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "link_out_abs/dir", "sub/dir"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "link_out_rel/secret", "hard"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_link, FOLLOW, "link_secret_abs", "hard"),
           WASI_EINVAL);
  CHECK_EQ(g_two(wtp__wasi_path_link, FOLLOW, "link_secret_rel", "hard"),
           WASI_EINVAL);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "file", "link_out_rel/hard"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "file", "../outside/hard"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "anything", "link_out_rel/planted"),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "anything", "../outside/planted"),
           WASI_EPERM);
  CHECK_EQ(g_times(FOLLOW, "link_secret_abs", 1000000000), WASI_EPERM);
  CHECK_EQ(g_times(FOLLOW, "link_secret_rel", 1000000000), WASI_EPERM);
  CHECK_EQ(g_times(0, "link_out_rel/secret", 1000000000), WASI_EPERM);
  CHECK(!host_exists("sandbox/stolen") && !host_exists("sandbox/hard") &&
        !host_exists("sandbox/sub/dir"));
  CHECK_OUTSIDE_UNTOUCHED();
  /* Not following a final link acts on the link, never on its target. */
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "link_secret_abs", "hard_to_link"), 0);
  CHECK_EQ(g_open(FOLLOW, "hard_to_link", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_EPERM);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "link_secret_rel", "renamed_link"),
           0);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "renamed_link"), 0);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "link_out_spare"), 0);
  CHECK_EQ(g_times(0, "link_secret_abs", 1000000000), 0);
  CHECK_OUTSIDE_UNTOUCHED();
}

static void test_read_escapes(void) {
  uint32_t used;
  /* An absolute target is refused (wasmtime: EPERM) and nothing is made. */
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "/etc", "to_etc"), WASI_EPERM);
  CHECK_EQ(g_readlink("to_etc", 64, &used), WASI_ENOENT);
  /* A relative one that climbs out is stored as given; following it is
   * refused. */
  const char *up = "../../../../../../../../etc";
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, up, "to_etc"), 0);
  CHECK_EQ(g_readlink("to_etc", 64, &used), 0);
  CHECK_EQ(used, strlen(up));
  CHECK(memcmp(guest + BUF, up, strlen(up)) == 0 &&
        guest[BUF + strlen(up)] == SENTINEL);
  CHECK_EQ(g_open(FOLLOW, "to_etc/passwd", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_EPERM);
  CHECK_EQ(g_readlink("link_out_rel/secret", 64, &used), WASI_EPERM);
  CHECK(untouched(BUF, 64) && used == 0xdeadbeef);
  CHECK_EQ(g_stat(FOLLOW, "link_out_abs"), WASI_EPERM);
  CHECK_EQ(g_stat(0, "link_out_rel/secret"), WASI_EPERM);
  CHECK_EQ(g_stat(0, "../outside"), WASI_EPERM);
  CHECK_EQ(g_stat(FOLLOW, "sub/link_up2"), WASI_EPERM);
  CHECK_EQ(g_stat(FOLLOW, "link_abs_inside"), WASI_EPERM);
  CHECK_EQ(g_stat(0, "link_out_abs"), 0);
  CHECK_EQ(stat_type(), WASI_FILETYPE_SYMBOLIC_LINK);
  CHECK_OUTSIDE_UNTOUCHED();
}

/* Paths as wasmtime answers them (preview1_interesting_paths and friends). */
static void test_path_forms(void) {
  uint64_t a[9] = {DIRFD, 0, PATH1, 0, 0, RW, RW, 0, OUT};
  memcpy(guest + PATH1, "file\0x", 6);
  a[3] = 6;
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, a), WASI_EINVAL);
  memcpy(guest + PATH1, "fil\xff", 4);
  a[3] = 4;
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, a), WASI_EILSEQ);
  CHECK_EQ(g_open(0, "", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ENOENT);
  CHECK_EQ(g_open(0, "file/", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ENOTDIR);
  CHECK_EQ(g_open(0, "file///", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ENOTDIR);
  CHECK_EQ(g_open(0, "sub/", 0, WASI_RIGHTS_FD_READ, NULL), 0);
  CHECK_EQ(g_open(0, "sub///", 0, WASI_RIGHTS_FD_READ, NULL), 0);
  CHECK_EQ(g_open(0, "link_sub/", 0, WASI_RIGHTS_FD_READ, NULL),
           0); /* a trailing slash follows */
  CHECK_EQ(
      g_open(0, "sub/.//../sub/../sub///./inner", 0, WASI_RIGHTS_FD_READ, NULL),
      0);
  CHECK_EQ(g_open(0, "sub/link_up/file", 0, WASI_RIGHTS_FD_READ, NULL), 0);
  CHECK_EQ(g_open(0, "link_sub/../file", 0, WASI_RIGHTS_FD_READ, NULL), 0);
  CHECK_EQ(g_open(0, ".", WASI_OFLAGS_DIRECTORY, 0, NULL), 0);
  CHECK_EQ(g_open(0, "file", WASI_OFLAGS_DIRECTORY, 0, NULL), WASI_ENOTDIR);
  CHECK_EQ(g_open(0, "missing", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ENOENT);
  CHECK_EQ(g_open(0, "file/x", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ENOTDIR);
  CHECK_EQ(g_open(0, "link_file", 0, WASI_RIGHTS_FD_READ, NULL), WASI_ELOOP);
  CHECK_EQ(g_open(FOLLOW, "link_file", 0, WASI_RIGHTS_FD_READ, NULL), 0);
  CHECK_EQ(g_stat(0, "file/"), WASI_ENOTDIR);
  CHECK_EQ(g_stat(0, "sub/"), 0);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "file/"), WASI_ENOTDIR);
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "sub"), WASI_EISDIR);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "file"), WASI_ENOTDIR);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "sub"), WASI_EEXIST);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "."), WASI_EEXIST);
  /* New names with a trailing slash (link, symlink): nothing is made. */
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "t", "new_link/"), WASI_ENOENT);
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "t", "sub/"), WASI_EEXIST);
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "t", "file/"), WASI_ENOTDIR);
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "t", "file"), WASI_EEXIST);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "file", "new_link/"), WASI_ENOENT);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "file/", "new_link"), WASI_ENOTDIR);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "file", "file"), WASI_EEXIST);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "sub", "new_link"), WASI_EPERM);
  CHECK(!host_exists("sandbox/new_link"));
  CHECK_EQ(g_path(wtp__wasi_path_unlink_file, "sub/"), WASI_EISDIR);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "file/"), WASI_ENOTDIR);
  /* Directories renamed with trailing slashes on either side. */
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "moving"), 0);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "moving/", "moved"), 0);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "moved", "moving/"), 0);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "moving/", "moved/"), 0);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "file", "file2/"), WASI_ENOTDIR);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "moved"), 0);
  CHECK(host_exists("sandbox/file") && host_exists("sandbox/sub"));
  /* A name too long for a component, a path too long for the layer. */
  char long_name[300];
  memset(long_name, 'n', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CHECK_EQ(g_open(0, long_name, 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_ENAMETOOLONG);
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, long_name),
           WASI_ENAMETOOLONG);
  a[3] = WTP__WASI_PATH_MAX + 1;
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, a), WASI_ENAMETOOLONG);
}

/* EFAULT means nothing happened: every range is checked before the host is. */
static void test_efault_first(void) {
  uint64_t n = put(PATH1, "efault_new");
  uint64_t open_bad_out[9] = {
      DIRFD, 0, PATH1, n, WASI_OFLAGS_CREAT, RW, RW, 0, sizeof guest - 2};
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, open_bad_out), WASI_EFAULT);
  uint64_t open_bad_path[9] = {
      DIRFD, 0, sizeof guest - 3, 10, WASI_OFLAGS_CREAT, RW, RW, 0, OUT};
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, open_bad_path), WASI_EFAULT);
  uint64_t huge[9] = {DIRFD, 0,  UINT64_MAX - 2, 10, WASI_OFLAGS_CREAT, RW, RW,
                      0,     OUT};
  CHECK_EQ(wtp__wasi_path_open(wasi, &memory, huge), WASI_EFAULT);
  uint64_t rename_bad[6] = {DIRFD, PATH1,        put(PATH1, "file"),
                            DIRFD, sizeof guest, 1};
  CHECK_EQ(wtp__wasi_path_rename(wasi, &memory, rename_bad), WASI_EFAULT);
  uint64_t link_bad[7] = {DIRFD, 0, PATH1, 4, DIRFD, PATH2, sizeof guest};
  CHECK_EQ(wtp__wasi_path_link(wasi, &memory, link_bad), WASI_EFAULT);
  uint64_t readlink_bad[6] = {DIRFD, PATH1,        put(PATH1, "link_file"),
                              BUF,   sizeof guest, OUT};
  CHECK_EQ(wtp__wasi_path_readlink(wasi, &memory, readlink_bad), WASI_EFAULT);
  uint64_t stat_bad[5] = {DIRFD, 0, PATH1, put(PATH1, "file"),
                          sizeof guest - 63};
  CHECK_EQ(wtp__wasi_path_filestat_get(wasi, &memory, stat_bad), WASI_EFAULT);
  uint64_t readdir_bad[5] = {DIRFD, BUF, sizeof guest, 0, OUT};
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, readdir_bad), WASI_EFAULT);
  CHECK(!host_exists("sandbox/efault_new") && host_exists("sandbox/file"));
  uint64_t bad_fd[3] = {99, PATH1, put(PATH1, "x")};
  CHECK_EQ(wtp__wasi_path_create_directory(wasi, &memory, bad_fd), WASI_EBADF);
}

/* ---- ordinary use ---- */

static uint32_t g_write(uint32_t fd, const char *text) {
  size_t n = strlen(text);
  memcpy(guest + BUF, text, n);
  wtp__wasi_store32(&memory, 32, BUF);
  wtp__wasi_store32(&memory, 36, (uint32_t)n);
  uint64_t a[4] = {fd, 32, 1, OUT};
  return wtp__wasi_fd_write(wasi, &memory, a);
}

static void test_ordinary_use(void) {
  uint32_t fd, used;
  CHECK_EQ(g_path(wtp__wasi_path_create_directory, "made"), 0);
  CHECK_EQ(
      g_open(0, "made/new.txt", WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL, RW, &fd),
      0);
  CHECK_EQ(g_write(fd, "written by the guest"), 0);
  CHECK_EQ(wtp__wasi_load32(&memory, OUT), 20);
  close_fd(fd);
  CHECK_EQ(
      g_open(0, "made/new.txt", WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL, RW, NULL),
      WASI_EEXIST);
  CHECK_EQ(g_stat(0, "made/new.txt"), 0);
  CHECK_EQ(stat_type(), WASI_FILETYPE_REGULAR_FILE);
  CHECK_EQ(wtp__wasi_load32(&memory, BUF + 32), 20); /* size */
  /* Creation through a dangling link inside lands inside. */
  CHECK_EQ(g_open(FOLLOW, "dangling_in", WASI_OFLAGS_CREAT, RW, NULL), 0);
  CHECK(host_exists("sandbox/new_inside"));
  /* Truncation. */
  CHECK_EQ(g_open(0, "made/new.txt", WASI_OFLAGS_TRUNC, RW, NULL), 0);
  CHECK_EQ(g_stat(FOLLOW, "made/new.txt"), 0);
  CHECK_EQ(wtp__wasi_load32(&memory, BUF + 32), 0);
  CHECK_EQ(g_two(wtp__wasi_path_rename, 0, "made/new.txt", "made/renamed.txt"),
           0);
  CHECK(!host_exists("sandbox/made/new.txt") &&
        host_exists("sandbox/made/renamed.txt"));
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "made/renamed.txt", "made/hard.txt"),
           0);
  CHECK_EQ(g_stat(0, "made/hard.txt"), 0);
  CHECK_EQ(wtp__wasi_load32(&memory, BUF + 24), 2); /* nlink */
  CHECK_EQ(g_two(wtp__wasi_path_symlink, 0, "renamed.txt", "made/soft"), 0);
  CHECK_EQ(g_readlink("made/soft", 64, &used), 0);
  CHECK_EQ(used, 11);
  CHECK(memcmp(guest + BUF, "renamed.txt", 11) == 0);
  CHECK_EQ(g_readlink("made/soft", 4, &used),
           0); /* cut to the buffer, as wasmtime */
  CHECK_EQ(used, 4);
  CHECK(memcmp(guest + BUF, "rena", 4) == 0 && guest[BUF + 4] == SENTINEL);
  CHECK_EQ(g_readlink("made/renamed.txt", 64, &used), WASI_EINVAL);
  /* As wasmtime: path_link never follows (EINVAL when asked to). */
  CHECK_EQ(g_two(wtp__wasi_path_link, FOLLOW, "made/soft", "made/hard2.txt"),
           WASI_EINVAL);
  CHECK_EQ(g_two(wtp__wasi_path_link, 0, "made/soft", "made/hard2.txt"), 0);
  CHECK_EQ(g_stat(0, "made/hard2.txt"), 0);
  CHECK_EQ(stat_type(), WASI_FILETYPE_SYMBOLIC_LINK);
  CHECK_EQ(g_stat(FOLLOW, "made/hard2.txt"), 0);
  CHECK_EQ(stat_type(), WASI_FILETYPE_REGULAR_FILE);
  CHECK_EQ(g_times(0, "made/hard.txt", UINT64_C(1234567890123456789)), 0);
  CHECK_EQ(g_stat(0, "made/renamed.txt"), 0);
  uint64_t mtim = wtp__wasi_load32(&memory, BUF + 48) |
                  (uint64_t)wtp__wasi_load32(&memory, BUF + 52) << 32;
  CHECK_EQ(mtim, UINT64_C(1234567890123456789));
  uint64_t both[7] = {DIRFD,
                      0,
                      PATH1,
                      put(PATH1, "made"),
                      0,
                      0,
                      WASI_FSTFLAGS_MTIM | WASI_FSTFLAGS_MTIM_NOW};
  CHECK_EQ(wtp__wasi_path_filestat_set_times(wasi, &memory, both), WASI_EINVAL);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "made"), WASI_ENOTEMPTY);
  const char *const gone[] = {"made/renamed.txt", "made/hard.txt",
                              "made/hard2.txt", "made/soft"};
  for (int i = 0; i < 4; i++)
    CHECK_EQ(g_path(wtp__wasi_path_unlink_file, gone[i]), 0);
  CHECK_EQ(g_path(wtp__wasi_path_remove_directory, "made/"), 0);
  CHECK(!host_exists("sandbox/made"));
}

/* ---- fd_readdir ---- */

enum { LISTED = 150 };

/* Reads the whole directory fd as wasi-libc does, buf_len bytes at a time:
 * an entry cut at the end is asked for again (a larger buffer if not even
 * one fits). Counts each name; returns the number of entries. */
static int read_all(const wtp_wasi_memory *m, uint32_t fd, uint32_t buf_len,
                    int *seen, int *dots) {
  uint64_t cookie = 0;
  int total = 0;
  for (int calls = 0; calls < 100000; calls++) {
    memset(m->base + BUF, SENTINEL, buf_len + 8);
    uint64_t a[5] = {fd, BUF, buf_len, cookie, OUT};
    CHECK_EQ(wtp__wasi_fd_readdir(wasi, m, a), 0);
    uint32_t used = wtp__wasi_load32(m, OUT);
    CHECK(used <= buf_len && m->base[BUF + used] == SENTINEL);
    uint32_t at = 0;
    int complete = 0;
    while (at + 24 <= used) {
      uint32_t name_len = wtp__wasi_load32(m, BUF + at + 16);
      if (at + 24 + name_len > used) break; /* cut: ask again from its cookie */
      char name[256] = {0};
      memcpy(name, m->base + BUF + at + 24, name_len);
      uint64_t next = wtp__wasi_load32(m, BUF + at) |
                      (uint64_t)wtp__wasi_load32(m, BUF + at + 4) << 32;
      CHECK(next > cookie);
      cookie = next;
      int index;
      if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        (*dots)++;
        CHECK_EQ(m->base[BUF + at + 20], WASI_FILETYPE_DIRECTORY);
      } else if (sscanf(name, "entry-with-a-longish-name-%d", &index) == 1 &&
                 index >= 0 && index < LISTED) {
        seen[index]++;
        CHECK_EQ(m->base[BUF + at + 20], index % 2
                                             ? WASI_FILETYPE_DIRECTORY
                                             : WASI_FILETYPE_REGULAR_FILE);
      } else {
        CHECK(!"an unexpected name");
      }
      total++, complete++;
      at += 24 + name_len;
    }
    if (used < buf_len) return total; /* the end */
    if (!complete) buf_len = buf_len * 2 < 4096 ? buf_len * 2 : 4096;
  }
  CHECK(!"fd_readdir never ended");
  return total;
}

static void test_readdir(void) {
  char rel[128];
  host_mkdir("sandbox/listed");
  for (int i = 0; i < LISTED; i++) {
    snprintf(rel, sizeof rel, "sandbox/listed/entry-with-a-longish-name-%d", i);
    if (i % 2)
      host_mkdir(rel);
    else
      host_file(rel, "x");
  }
  uint32_t fd;
  CHECK_EQ(
      g_open(0, "listed", WASI_OFLAGS_DIRECTORY, WASI_RIGHTS_FD_READDIR, &fd),
      0);
  static const uint32_t sizes[] = {4096, 1000, 100, 61, 24, 10};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int seen[LISTED] = {0}, dots = 0;
    int total = read_all(&memory, fd, sizes[s], seen, &dots);
    CHECK_EQ(total, LISTED + 2);
    CHECK_EQ(dots, 2);
    for (int i = 0; i < LISTED; i++) CHECK_EQ(seen[i], 1);
  }
  /* A cookie from the middle gives the rest; the same cookie twice, the same entry. */
  uint64_t a[5] = {fd, BUF, 60, 0, OUT};
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  uint64_t next = wtp__wasi_load32(&memory, BUF);
  char first[64] = {0}, again[64] = {0};
  a[3] = next, a[2] = 200;
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  memcpy(first, guest + BUF + 24, wtp__wasi_load32(&memory, BUF + 16) % 64);
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  memcpy(again, guest + BUF + 24, wtp__wasi_load32(&memory, BUF + 16) % 64);
  CHECK(strcmp(first, again) == 0 && first[0]);
  /* Past the end: nothing. A zero-length buffer: nothing, no error. */
  a[3] = 100000, a[2] = 200;
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  CHECK_EQ(wtp__wasi_load32(&memory, OUT), 0);
  a[3] = 0, a[2] = 0;
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  CHECK_EQ(wtp__wasi_load32(&memory, OUT), 0);
  close_fd(fd);
  uint32_t file_fd;
  CHECK_EQ(g_open(0, "file", 0, WASI_RIGHTS_FD_READ, &file_fd), 0);
  a[0] = file_fd, a[2] = 200;
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), WASI_ENOTDIR);
  close_fd(file_fd);
}

/* Two threads list one descriptor at once, each with its own cookies and
 * memory: each sees every entry once (the listing's state is the entry's,
 * under its lock, and a cookie is a position, whoever moved it last). */
typedef struct lister {
  uint32_t fd;
  int total, dots, seen[LISTED];
} lister;

static void *list_in_thread(void *arg) {
  lister *l = arg;
  static _Thread_local uint8_t own[1 << 16];
  const wtp_wasi_memory m = {own, sizeof own};
  for (int round = 0; round < 5; round++)
    l->total +=
        read_all(&m, l->fd, 100 + 37 * (uint32_t)round, l->seen, &l->dots);
  return NULL;
}

static void test_readdir_threads(void) {
  uint32_t fd;
  CHECK_EQ(
      g_open(0, "listed", WASI_OFLAGS_DIRECTORY, WASI_RIGHTS_FD_READDIR, &fd),
      0); /* fd_readdir needs the right (test_wasi_rights) */
  lister listers[2];
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) {
    memset(&listers[t], 0, sizeof listers[t]);
    listers[t].fd = fd;
    pthread_create(&threads[t], NULL, list_in_thread, &listers[t]);
  }
  for (int t = 0; t < 2; t++) {
    pthread_join(threads[t], NULL);
    CHECK_EQ(listers[t].total, 5 * (LISTED + 2));
    CHECK_EQ(listers[t].dots, 10);
    for (int i = 0; i < LISTED; i++) CHECK_EQ(listers[t].seen[i], 5);
  }
  /* "." is the directory itself. */
  uint64_t a[5] = {fd, BUF, 4096, 0, OUT};
  CHECK_EQ(wtp__wasi_fd_readdir(wasi, &memory, a), 0);
  uint32_t used = wtp__wasi_load32(&memory, OUT), at = 0;
  char path[600];
  struct stat st;
  at_root(path, sizeof path, "sandbox/listed");
  CHECK(stat(path, &st) == 0);
  int found = 0;
  while (at + 24 <= used) {
    uint32_t name_len = wtp__wasi_load32(&memory, BUF + at + 16);
    if (name_len == 1 && guest[BUF + at + 24] == '.') {
      found = 1;
      CHECK_EQ(wtp__wasi_load32(&memory, BUF + at + 8), (uint32_t)st.st_ino);
    }
    at += 24 + name_len;
  }
  CHECK(found);
  close_fd(fd);
}

/* ---- FIFOs ---- */

/* Opening a FIFO waits for its peer, as a blocking open does, and the stop
 * ends the wait; with the guest's NONBLOCK it does not wait (a reader opens
 * at once, a writer without a reader gets ENXIO). */
typedef struct fifo_peer {
  char path[600];
  int write; /* the host's end: 1 writes "hello", 0 reads */
  char got[16];
} fifo_peer;

/* The host's end, 200 ms late; bounded (5 s) so that a failing test ends. */
static void *fifo_peer_thread(void *arg) {
  fifo_peer *peer = arg;
  struct timespec pause = {0, 200 * 1000000}, tick = {0, 10 * 1000000};
  nanosleep(&pause, NULL);
  int fd = -1;
  for (int i = 0; i < 500 && fd < 0; i++) {
    fd = open(peer->path, (peer->write ? O_WRONLY : O_RDONLY) | O_NONBLOCK);
    if (fd < 0) nanosleep(&tick, NULL);
  }
  if (fd < 0) return NULL;
  if (peer->write) {
    if (write(fd, "hello", 5) != 5) perror("fifo write");
  } else {
    struct pollfd ready = {fd, POLLIN, 0};
    if (poll(&ready, 1, 5000) == 1 &&
        read(fd, peer->got, sizeof peer->got - 1) < 0)
      perror("fifo read");
  }
  close(fd);
  return NULL;
}

static uint32_t g_read(uint32_t fd, char *out, size_t size) {
  wtp__wasi_store32(&memory, 32, BUF);
  wtp__wasi_store32(&memory, 36, (uint32_t)size - 1);
  uint64_t a[4] = {fd, 32, 1, OUT};
  uint32_t err = wtp__wasi_fd_read(wasi, &memory, a);
  uint32_t n = err ? 0 : wtp__wasi_load32(&memory, OUT);
  memcpy(out, guest + BUF, n);
  out[n] = '\0';
  return err;
}

static uint32_t g_open_flags(const char *path, uint64_t rights,
                             uint32_t fdflags, uint32_t *fd) {
  uint64_t a[9] = {DIRFD,  0,       PATH1, put(PATH1, path), 0, rights,
                   rights, fdflags, OUT};
  uint32_t err = wtp__wasi_path_open(wasi, &memory, a);
  *fd = err ? UINT32_MAX : wtp__wasi_load32(&memory, OUT);
  return err;
}

static void *stop_later(void *arg) {
  struct timespec pause = {0, 200 * 1000000};
  nanosleep(&pause, NULL);
  wtp_wasi_stop(arg);
  return NULL;
}

/* Stops the WASI after 5 s unless it was stopped before. */
static void *watchdog(void *arg) {
  struct timespec tick = {0, 10 * 1000000};
  for (int i = 0; i < 500 && !wtp_wasi_stopped(arg); i++)
    nanosleep(&tick, NULL);
  wtp_wasi_stop(arg);
  return NULL;
}

static void test_fifo_open(void) {
  fifo_peer peer;
  at_root(peer.path, sizeof peer.path, "sandbox/fifo");
  CHECK(mkfifo(peer.path, 0600) == 0);
  uint32_t fd;
  char got[16];
  pthread_t t;
  /* A reader waits for the writer (not an end of file before it came). */
  peer.write = 1;
  pthread_create(&t, NULL, fifo_peer_thread, &peer);
  CHECK_EQ(g_open_flags("fifo", WASI_RIGHTS_FD_READ, 0, &fd), 0);
  CHECK_EQ(g_read(fd, got, sizeof got), 0);
  CHECK(strcmp(got, "hello") == 0);
  pthread_join(t, NULL);
  close_fd(fd);
  /* A writer waits for the reader (not ENXIO). */
  peer.write = 0;
  memset(peer.got, 0, sizeof peer.got);
  pthread_create(&t, NULL, fifo_peer_thread, &peer);
  CHECK_EQ(g_open_flags("fifo", WASI_RIGHTS_FD_WRITE, 0, &fd), 0);
  CHECK_EQ(g_write(fd, "to the reader"), 0);
  close_fd(fd);
  pthread_join(t, NULL);
  CHECK(strcmp(peer.got, "to the reader") == 0);
  /* NONBLOCK: no wait. */
  CHECK_EQ(
      g_open_flags("fifo", WASI_RIGHTS_FD_WRITE, WASI_FDFLAGS_NONBLOCK, &fd),
      WASI_ENXIO);
  CHECK_EQ(
      g_open_flags("fifo", WASI_RIGHTS_FD_READ, WASI_FDFLAGS_NONBLOCK, &fd), 0);
  close_fd(fd);
  /* A socket's ENXIO is no FIFO's: answered at once. */
  char sock_path[600];
  at_root(sock_path, sizeof sock_path, "sandbox/sock");
  int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  CHECK(strlen(sock_path) < sizeof addr.sun_path);
  memcpy(addr.sun_path, sock_path, strlen(sock_path) % sizeof addr.sun_path);
  CHECK(bind(sock, (struct sockaddr *)&addr, sizeof addr) == 0);
  CHECK_EQ(g_open_flags("sock", WASI_RIGHTS_FD_WRITE, 0, &fd), WASI_ENXIO);
  close(sock);
  /* A writer already there (holding the FIFO open, writing nothing): the
   * reader's open returns (a watchdog's stop after 5 s would fail it). */
  int held = open(peer.path, O_RDWR | O_NONBLOCK);
  wtp_wasi *kept_wasi = wasi;
  g_create();
  pthread_create(&t, NULL, watchdog, wasi);
  CHECK_EQ(g_open_flags("fifo", WASI_RIGHTS_FD_READ, 0, &fd), 0);
  wtp_wasi_stop(wasi);
  pthread_join(t, NULL);
  wtp_wasi_release(wasi);
  wasi = kept_wasi;
  close(held);
  /* The stop ends both waits (on a WASI of their own). */
  wtp_wasi *kept = wasi;
  for (int write_end = 0; write_end < 2; write_end++) {
    g_create();
    pthread_create(&t, NULL, stop_later, wasi);
    uint64_t rights = write_end ? WASI_RIGHTS_FD_WRITE : WASI_RIGHTS_FD_READ;
    CHECK_EQ(g_open_flags("fifo", rights, 0, &fd), WTP_WASI_STOPPED);
    pthread_join(t, NULL);
    wtp_wasi_release(wasi);
  }
  wasi = kept;
}

/* ---- the race ---- */

/* sandbox/race is swapped, atomically and over and over, between a real
 * directory (holding "target") and a symbolic link to the outside (which
 * holds "target" too) while this thread opens, creates and stats through
 * it. Every success must be the inside's file; nothing is created outside. */
static atomic_int race_stop;

static void *swapper(void *arg) {
  (void)arg;
  char a[600], b[600];
  unsigned seed = 1;
  at_root(a, sizeof a, "sandbox/race");
  at_root(b, sizeof b, "sandbox/race_other");
  while (!atomic_load(&race_stop)) {
#if defined(__linux__) && defined(SYS_renameat2)
    syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
#else
    char tmp[600];
    at_root(tmp, sizeof tmp, "sandbox/race_tmp");
    rename(a, tmp), rename(b, a), rename(tmp, b);
#endif
    /* A random pause, so that the opener meets both states as well as
     * changes in the middle of its walks (back-to-back renames keep the
     * kernel's look-ups retrying until they see one state only). */
    struct timespec pause = {0, 1000 + rand_r(&seed) % 100000};
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static void test_race(void) {
  char abs[600];
  host_mkdir("sandbox/race");
  host_file("sandbox/race/target", "inside target");
  snprintf(abs, sizeof abs, "%s/outside", root);
  host_symlink(abs, "sandbox/race_other");
  struct stat inside;
  char path[600];
  at_root(path, sizeof path, "sandbox/race/target");
  CHECK(stat(path, &inside) == 0);
  atomic_store(&race_stop, 0);
  pthread_t t;
  pthread_create(&t, NULL, swapper, NULL);
  int opened = 0, refused = 0, escaped = 0;
  /* At least 3000 rounds, and on until both outcomes were seen 20 times
   * (the swapper holds each state at random; bounded at 30000). */
  for (int i = 0; i < 30000 && (i < 3000 || opened < 20 || refused < 20); i++) {
    uint32_t fd;
    const char *p = i % 3 == 0   ? "race/target"
                    : i % 3 == 1 ? "race/../race/target"
                                 : "race/./target";
    uint32_t err = g_open(FOLLOW, p, i % 2 ? WASI_OFLAGS_CREAT : 0,
                          WASI_RIGHTS_FD_READ, &fd);
    if (err == 0) {
      wtp__wasi_entry *entry;
      struct stat st;
      if (wtp__wasi_fd_get(wasi, fd, &entry) == 0) {
        CHECK(fstat(wtp__wasi_entry_host_fd(entry), &st) == 0);
        if (st.st_ino != inside.st_ino) escaped++;
        wtp__wasi_fd_put(entry);
      }
      close_fd(fd);
      opened++;
    } else {
      refused++;
    }
    if (g_stat(FOLLOW, "race/target") == 0 &&
        wtp__wasi_load32(&memory, BUF + 8) != (uint32_t)inside.st_ino)
      escaped++;
    char name[64];
    snprintf(name, sizeof name, "race/made-%d", i);
    /* Made inside or refused (the fingerprint shows nothing made outside);
     * its removal may meet the link and be refused in turn. */
    if (g_path(wtp__wasi_path_create_directory, name) == 0)
      g_path(wtp__wasi_path_remove_directory, name);
  }
  atomic_store(&race_stop, 1);
  pthread_join(t, NULL);
  CHECK_EQ(escaped, 0);
  CHECK(opened > 0 && refused > 0); /* both states were met */
  printf("    race: %d opened, %d refused, %d escaped\n", opened, refused,
         escaped);
  CHECK_OUTSIDE_UNTOUCHED();
}

/* ---- both resolvers ---- */

static void suite(void) {
  build_tree();
  fingerprint(baseline, sizeof baseline);
  g_create();
  RUN(test_open_escapes);
  RUN(test_loops);
  RUN(test_mutation_escapes);
  RUN(test_read_escapes);
  RUN(test_path_forms);
  RUN(test_efault_first);
  RUN(test_ordinary_use);
  RUN(test_readdir);
  RUN(test_readdir_threads);
  RUN(test_fifo_open);
  RUN(test_race);
  wtp_wasi_release(wasi);
  wasi = NULL;
}

int main(int argc, char **argv) {
  int walk_only = argc > 1 && strcmp(argv[1], "--walk-only") == 0;
  snprintf(root, sizeof root, "%s/wtp-path-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 2;
  }
  snprintf(sandbox, sizeof sandbox, "%s/sandbox", root);
  snprintf(outside, sizeof outside, "%s/outside", root);
  if (!walk_only) {
    int openat2 = !wtp__wasi_path_force_walk(0) ? 0 : 1;
    printf("resolver: %s\n",
           openat2 ? "openat2 (RESOLVE_BENEATH)"
                   : "the walk (no openat2 here, or WTP_WASI_PATH_WALK=1)");
    suite();
  }
  wtp__wasi_path_force_walk(1);
  printf("resolver: the component walk (forced)\n");
  suite();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  return harness_summary("test_wasi_path");
}
