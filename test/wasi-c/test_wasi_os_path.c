/* test_wasi_os_path.c: the sandbox, from one source on POSIX and on Windows
 * (wasi_harness_os.h; on Windows built by scripts/wasi-c-windows.js and run
 * by node.exe under Wine). The tree:
 *
 *   <base>/links     the program's preopen (fd 3): inside.txt, sub/, and
 *                    link_out_dir -> ../outside, link_out_file ->
 *                    ../outside/secret.txt, link_out_abs -> <base>/outside,
 *                    link_in -> inside.txt, sub/link_up -> ../../outside
 *                    hold_f/f -> ../../outside/secret.txt, hold_f/g (a
 *                    file), decoy_f/f (a
 *                    file), hold_d/f -> <base>/outside, decoy_d/f/ (a
 *                    directory): a directory fd held while the program
 *                    renames the decoy into the held directory's place
 *   <base>/outside   beside it: secret.txt
 *
 * Under Wine, WTP_WASI_C_SWAP (the prepared tree's swap/, which
 * scripts/wasi-c-windows.js fills and in which a Linux process exchanges
 * swap/file with swap/file_link -> ../../outside/secret.txt and swap/dir
 * with swap/dir_link -> ../../outside, renameat2 RENAME_EXCHANGE, while
 * the test runs) adds the race: opens of swap/file and swap/dir/secret.txt
 * must never reach the outside.
 *
 * The test makes the tree; where it cannot make a symbolic link (Windows
 * without the privilege; Wine 8, whose CreateSymbolicLinkW makes nothing),
 * it uses the tree scripts/wasi-c-windows.js made on the Linux side
 * (WTP_WASI_C_LINKS, WTP_WASI_C_OUTSIDE), or says it skips the link cases.
 * Under Wine those links are Unix symlinks, which Wine follows without
 * showing a reparse point (test/wasi-c/WINE.md): they are the escapes
 * a Windows sandbox must still refuse there.
 *
 * Every escape must fail (EPERM, as on POSIX, where the answer is the
 * POSIX layer's) and leave the outside as it was; the controls that stay
 * inside must work. On Windows also: drive letters, UNC and device paths,
 * backslashes, reserved device names, alternate data streams and trailing
 * dots/spaces must fail (the errno is printed, not asserted) and make
 * nothing. */
#include "wasi_harness_os.h"

#define MEM 65536
#define OUT 64
#define IOV 128
#define PATH1 2048
#define PATH2 3072
#define BUF 4096
#define DIRFD 3
#define FOLLOW WASI_LOOKUPFLAGS_SYMLINK_FOLLOW
#define RW (WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_WRITE)
/* A directory's rights: all but those that write (a directory asked with
 * them answers EISDIR). */
#define DIR_RIGHTS                                    \
  (WASI_RIGHTS_ALL &                                  \
   ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_DATASYNC | \
     WASI_RIGHTS_FD_ALLOCATE | WASI_RIGHTS_FD_FILESTAT_SET_SIZE))

static wtp_wasi *wasi;
static wtp_wasi_memory memory;
static char base[512], links[600], outside[600];
static int have_links; /* the link_* entries are there */
static int unix_links; /* ... made on the Linux side for Wine */

static uint64_t put(uint64_t at, const char *s) {
  size_t n = strlen(s);
  memcpy(memory.base + at, s, n);
  return n;
}

/* path_open beneath dir: the errno; *fd_out the fd (or UINT32_MAX). */
static uint32_t g_open_at(uint32_t dir, uint32_t dirflags, const char *path,
                          uint32_t oflags, uint64_t rights, uint32_t *fd_out) {
  wtp__wasi_store32(&memory, OUT, 0xdeadbeef);
  uint32_t err = CALL(wasi, &memory, "path_open", dir, dirflags, PATH1,
                      put(PATH1, path), oflags, rights, rights, 0, OUT);
  uint32_t fd = wtp__wasi_load32(&memory, OUT);
  if (err) CHECK_EQ(fd, 0xdeadbeef); /* nothing written on failure */
  if (fd_out)
    *fd_out = err ? UINT32_MAX : fd;
  else if (!err)
    CALL(wasi, &memory, "fd_close", fd);
  return err;
}

/* path_open at the preopen. */
static uint32_t g_open(uint32_t dirflags, const char *path, uint32_t oflags,
                       uint64_t rights, uint32_t *fd_out) {
  return g_open_at(DIRFD, dirflags, path, oflags, rights, fd_out);
}

/* A one-path call (path_create_directory, path_unlink_file, ...). */
static uint32_t g_path(const char *call, const char *path) {
  return CALL(wasi, &memory, call, DIRFD, PATH1, put(PATH1, path));
}

static uint32_t g_rename(const char *from, const char *to) {
  uint64_t n1 = put(PATH1, from), n2 = put(PATH2, to);
  return CALL(wasi, &memory, "path_rename", DIRFD, PATH1, n1, DIRFD, PATH2, n2);
}

static uint32_t g_stat(uint32_t flags, const char *path) {
  return CALL(wasi, &memory, "path_filestat_get", DIRFD, flags, PATH1,
              put(PATH1, path), BUF);
}

/* Opens path (following links) and reads it into buf: the errno. */
static uint32_t read_guest_file(const char *path, char *buf, size_t size) {
  uint32_t fd;
  uint32_t err = g_open(FOLLOW, path, 0, WASI_RIGHTS_FD_READ, &fd);
  memset(buf, 0, size);
  if (err) return err;
  put_iovec(&memory, IOV, BUF, (uint32_t)(size - 1));
  err = CALL(wasi, &memory, "fd_read", fd, IOV, 1, OUT);
  if (!err) memcpy(buf, memory.base + BUF, wtp__wasi_load32(&memory, OUT));
  CALL(wasi, &memory, "fd_close", fd);
  return err;
}

static int at_outside(const char *name) {
  char p[700];
  os_join(p, sizeof p, outside, name);
  return os_exists(p);
}

#ifdef _WIN32
/* On Windows through a \\?\ path: Win32 would strip trailing dots and
 * spaces and map device names, and so see inside.txt for "inside.txt." and
 * the NUL device for "NUL". */
static int at_links(const char *name) {
  char p[700], q[720];
  os_join(p, sizeof p, links, name);
  snprintf(q, sizeof q, "\\\\?\\%s", p);
  return os_exists(q);
}
#endif

/* The outside is as the tree made it. */
static void check_outside_untouched(void) {
  char p[700], buf[64];
  os_join(p, sizeof p, outside, "secret.txt");
  CHECK_EQ(os_read_file(p, buf, sizeof buf), 7);
  CHECK(strcmp(buf, "SECRET\n") == 0);
  CHECK(!at_outside("newdir") && !at_outside("created.txt") &&
        !at_outside("planted.txt"));
}

/* ---- the tree ---- */

static void make_tree(void) {
  os_temp_dir(base, sizeof base);
  os_join(links, sizeof links, base, "links");
  os_join(outside, sizeof outside, base, "outside");
  os_mkdir(links);
  os_mkdir(outside);
  char p[700], target[700];
  os_join(p, sizeof p, links, "sub");
  os_mkdir(p);
  os_join(p, sizeof p, links, "inside.txt");
  os_write_file(p, "inside\n");
  os_join(p, sizeof p, outside, "secret.txt");
  os_write_file(p, "SECRET\n");
  os_join(p, sizeof p, links, "link_out_dir");
  have_links = os_symlink(".." OS_SEP "outside", p, 1);
  if (!have_links) return;
  os_join(p, sizeof p, links, "link_out_file");
  have_links &= os_symlink(".." OS_SEP "outside" OS_SEP "secret.txt", p, 0);
  os_join(p, sizeof p, links, "link_out_abs");
  have_links &= os_symlink(outside, p, 1);
  os_join(p, sizeof p, links, "link_in");
  have_links &= os_symlink("inside.txt", p, 0);
  os_join(p, sizeof p, links, "sub" OS_SEP "link_up");
  snprintf(target, sizeof target, ".." OS_SEP ".." OS_SEP "outside");
  have_links &= os_symlink(target, p, 1);
  static const char *const dirs[] = {"hold_f", "decoy_f", "hold_d", "decoy_d",
                                     "decoy_d" OS_SEP "f"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    os_join(p, sizeof p, links, dirs[i]);
    os_mkdir(p);
  }
  os_join(p, sizeof p, links, "decoy_f" OS_SEP "f");
  os_write_file(p, "decoy\n");
  os_join(p, sizeof p, links, "hold_f" OS_SEP "g");
  os_write_file(p, "held\n");
  os_join(p, sizeof p, links, "hold_f" OS_SEP "f");
  have_links &=
      os_symlink(".." OS_SEP ".." OS_SEP "outside" OS_SEP "secret.txt", p, 0);
  os_join(p, sizeof p, links, "hold_d" OS_SEP "f");
  have_links &= os_symlink(outside, p, 1);
  if (!have_links) abort(); /* the first link was made: so must the rest */
}

/* Where this OS cannot make links: the tree made for us, if any. */
static void use_prepared_tree(void) {
  const char *l = getenv("WTP_WASI_C_LINKS"), *o = getenv("WTP_WASI_C_OUTSIDE");
  if (l == NULL || o == NULL) {
    printf(
        "  skip the symbolic link cases: this host cannot make a link and "
        "WTP_WASI_C_LINKS/WTP_WASI_C_OUTSIDE name no prepared tree\n");
    return;
  }
  snprintf(links, sizeof links, "%s", l);
  snprintf(outside, sizeof outside, "%s", o);
  have_links = unix_links = 1;
  printf("  the link cases use the tree made on the Linux side: %s\n", links);
}

static void setup(void) {
  make_tree();
  if (!have_links) use_prepared_tree();
  wasi = make_wasi(-1, -1, -1, links);
  memory = guest_memory(MEM);
}

/* ---- the cases ---- */

static void test_dotdot_and_absolute(void) {
  static const char *const escapes[] = {
      "..",
      "../outside/secret.txt",
      "sub/../../outside/secret.txt",
      "./sub/./../../outside",
      "/",
      "/etc",
  };
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
    CHECK_EQ(g_open(FOLLOW, escapes[i], 0, WASI_RIGHTS_FD_READ, NULL),
             WASI_EPERM);
    CHECK_EQ(g_open(0, escapes[i], 0, WASI_RIGHTS_FD_READ, NULL), WASI_EPERM);
  }
  CHECK_EQ(
      g_open(FOLLOW, "../outside/created.txt", WASI_OFLAGS_CREAT, RW, NULL),
      WASI_EPERM);
  CHECK_EQ(g_path("path_create_directory", "../outside/newdir"), WASI_EPERM);
  CHECK_EQ(g_path("path_unlink_file", "../outside/secret.txt"), WASI_EPERM);
  CHECK_EQ(g_rename("inside.txt", "../outside/planted.txt"), WASI_EPERM);
  CHECK_EQ(g_stat(FOLLOW, "../outside/secret.txt"), WASI_EPERM);
  /* The controls: `..` that stays inside works. */
  char buf[64];
  CHECK_EQ(read_guest_file("sub/../inside.txt", buf, sizeof buf), 0);
  CHECK(strcmp(buf, "inside\n") == 0);
  CHECK_EQ(g_open(0, "sub/..", WASI_OFLAGS_DIRECTORY, 0, NULL), 0);
  check_outside_untouched();
}

static void test_links_out(void) {
  if (!have_links) return;
  static const char *const escapes[] = {
      "link_out_dir/secret.txt",
      "link_out_abs/secret.txt",
      "sub/link_up/secret.txt",
      "link_out_dir/../outside/secret.txt",
  };
  for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
    CHECK_EQ(g_open(FOLLOW, escapes[i], 0, WASI_RIGHTS_FD_READ, NULL),
             WASI_EPERM);
    CHECK_EQ(g_open(0, escapes[i], 0, WASI_RIGHTS_FD_READ, NULL), WASI_EPERM);
    CHECK_EQ(g_stat(FOLLOW, escapes[i]), WASI_EPERM);
  }
  /* A final link out, followed. */
  CHECK_EQ(g_open(FOLLOW, "link_out_file", 0, WASI_RIGHTS_FD_READ, NULL),
           WASI_EPERM);
  CHECK_EQ(g_open(FOLLOW, "link_out_file", WASI_OFLAGS_TRUNC, RW, NULL),
           WASI_EPERM);
  CHECK_EQ(g_stat(FOLLOW, "link_out_file"), WASI_EPERM);
  /* Making things through a link out. */
  CHECK_EQ(
      g_open(FOLLOW, "link_out_dir/created.txt", WASI_OFLAGS_CREAT, RW, NULL),
      WASI_EPERM);
  CHECK_EQ(g_path("path_create_directory", "link_out_dir/newdir"), WASI_EPERM);
  CHECK_EQ(g_path("path_create_directory", "link_out_abs/newdir"), WASI_EPERM);
  CHECK_EQ(g_rename("inside.txt", "link_out_dir/planted.txt"), WASI_EPERM);
  CHECK_EQ(g_path("path_unlink_file", "link_out_dir/secret.txt"), WASI_EPERM);
  check_outside_untouched();
  /* The link itself may be removed or renamed (POSIX: that acts on the
   * link), or refused: either way the target outside stays. (Wine deletes
   * a Unix symlink's TARGET when asked to delete the link through a handle:
   * a Windows sandbox that does so under Wine destroys the secret.) */
  uint32_t e = g_rename("link_out_file", "renamed_link");
  printf("  rename of the link out: errno %u\n", e);
  e = g_path("path_unlink_file", e ? "link_out_file" : "renamed_link");
  printf("  unlink of the link out: errno %u\n", e);
  check_outside_untouched();
  /* The control: a link that stays inside, followed. */
  char buf[64];
  e = read_guest_file("link_in", buf, sizeof buf);
  if (unix_links) {
    /* Under Wine a Unix link is no reparse point: a sandbox may refuse what
     * it cannot read. Reported, not asserted. */
    printf(
        "  link_in (a Unix link inside, under Wine): errno %u, read \"%s\"\n",
        e, e ? "" : buf);
  } else {
    CHECK_EQ(e, 0);
    CHECK(strcmp(buf, "inside\n") == 0);
  }
}

/* A directory fd is held while the program renames the directory it was
 * opened by and moves a decoy into its place; beneath the held fd, `f` is
 * now a link out (the decoy's `f` is no link). Whatever a host remembers of
 * the held directory's name, nothing beneath it may reach outside. */
static void hold_and_swap(const char *hold, const char *moved,
                          const char *decoy, uint32_t *held) {
  CHECK_EQ(g_open(0, hold, WASI_OFLAGS_DIRECTORY, DIR_RIGHTS, held), 0);
  CHECK_EQ(g_rename(hold, moved), 0);
  CHECK_EQ(g_rename(decoy, hold), 0);
}

/* Reads what fd holds into buf[size] (NUL-terminated); with write rights,
 * also writes "inside\n" over its start (an outside secret would change:
 * check_outside_untouched); closes fd. */
static void read_write_close(uint32_t fd, uint64_t rights, char *buf,
                             size_t size) {
  memset(buf, 0, size);
  put_iovec(&memory, IOV, BUF, (uint32_t)(size - 1));
  if (CALL(wasi, &memory, "fd_read", fd, IOV, 1, OUT) == 0)
    memcpy(buf, memory.base + BUF, wtp__wasi_load32(&memory, OUT));
  if (rights & WASI_RIGHTS_FD_WRITE) {
    put(BUF, "inside\n");
    put_iovec(&memory, IOV, BUF, 7);
    CALL(wasi, &memory, "fd_pwrite", fd, IOV, 1, (uint64_t)0, OUT);
  }
  CALL(wasi, &memory, "fd_close", fd);
}

/* Opens path beneath dir (following links): 0 if refused; if it opened,
 * reads (and with write rights writes), prints what it read, and answers
 * 1. */
static int escaped_read(uint32_t dir, const char *path, uint64_t rights) {
  uint32_t fd;
  uint32_t e = g_open_at(dir, FOLLOW, path, 0, rights, &fd);
  if (e) {
    printf("  %s beneath the held fd: errno %u\n", path, e);
    return 0;
  }
  char buf[64];
  read_write_close(fd, rights, buf, sizeof buf);
  printf("  ESCAPED: %s beneath the held fd opened, read \"%s\"\n", path, buf);
  return 1;
}

static void test_held_dir_renamed(void) {
  if (!have_links) return;
  /* A link to a file outside. */
  uint32_t d;
  hold_and_swap("hold_f", "hold_f_moved", "decoy_f", &d);
  CHECK(!escaped_read(d, "f", WASI_RIGHTS_FD_READ));
  CHECK(!escaped_read(d, "f", RW));
  CHECK(CALL(wasi, &memory, "path_filestat_get", d, FOLLOW, PATH1,
             put(PATH1, "f"), BUF) != 0);
  CHECK(g_open_at(d, 0, "f", 0, WASI_RIGHTS_FD_READ, NULL) != 0);
  /* The control: what is in the held directory opens through it. */
  uint32_t g;
  CHECK_EQ(g_open_at(d, FOLLOW, "g", 0, WASI_RIGHTS_FD_READ, &g), 0);
  if (g != UINT32_MAX) {
    put_iovec(&memory, IOV, BUF, 16);
    CHECK_EQ(CALL(wasi, &memory, "fd_read", g, IOV, 1, OUT), 0);
    CHECK(memcmp(memory.base + BUF, "held\n", 5) == 0);
    CALL(wasi, &memory, "fd_close", g);
  }
  CALL(wasi, &memory, "fd_close", d);
  check_outside_untouched();
  /* A link to a directory outside. */
  hold_and_swap("hold_d", "hold_d_moved", "decoy_d", &d);
  uint32_t fd;
  uint32_t e =
      g_open_at(d, FOLLOW, "f", WASI_OFLAGS_DIRECTORY, DIR_RIGHTS, &fd);
  printf("  f (a link to a directory out) beneath the held fd: errno %u\n", e);
  if (e == 0) {
    put_iovec(&memory, IOV, BUF, 0);
    uint32_t r = CALL(wasi, &memory, "fd_readdir", fd, BUF, 1024, 0, OUT);
    printf("  ESCAPED: fd_readdir of it: errno %u, %u bytes\n", r,
           wtp__wasi_load32(&memory, OUT));
    CALL(wasi, &memory, "fd_close", fd);
  }
  CHECK(e != 0);
  CHECK(!escaped_read(d, "f/secret.txt", WASI_RIGHTS_FD_READ));
  CHECK(CALL(wasi, &memory, "path_create_directory", d, PATH1,
             put(PATH1, "f/newdir")) != 0);
  CHECK(g_open_at(d, FOLLOW, "f/created.txt", WASI_OFLAGS_CREAT, RW, NULL) !=
        0);
  CHECK(g_open_at(d, 0, "f/created.txt", WASI_OFLAGS_CREAT, RW, NULL) != 0);
  CALL(wasi, &memory, "fd_close", d);
  check_outside_untouched();
  /* The controls: the held fd still works on what is in it, and the decoy
   * is reached by its new name. */
  char buf[64];
  CHECK_EQ(read_guest_file("hold_f/f", buf, sizeof buf), 0);
  CHECK(strcmp(buf, "decoy\n") == 0);
}

/* One open of path for the swap (read_write_close): 0 refused, 1 read
 * "inside", 2 reached the outside (read the secret). */
static int swap_open(const char *path, uint64_t rights) {
  uint32_t fd;
  if (g_open(FOLLOW, path, 0, rights, &fd)) return 0;
  char buf[16];
  read_write_close(fd, rights, buf, sizeof buf);
  return strncmp(buf, "SECRET", 6) == 0 ? 2 : 1;
}

/* The host swaps entries of the preopen with links out while the program
 * opens them (WTP_WASI_C_SWAP: how many rounds; the tree's swap/ and the
 * process that swaps come from scripts/wasi-c-windows.js): no open may
 * reach the outside. */
static void test_host_swap(void) {
  const char *rounds_text = getenv("WTP_WASI_C_SWAP");
  if (rounds_text == NULL || !unix_links) {
    printf("  skip: no host process swaps links in (WTP_WASI_C_SWAP)\n");
    return;
  }
  long rounds = atol(rounds_text);
  static const char *const paths[] = {"swap/file", "swap/dir/secret.txt",
                                      "swap/file"};
  const uint64_t rights[] = {WASI_RIGHTS_FD_READ, WASI_RIGHTS_FD_READ, RW};
  long seen[3][3] = {{0}};
  for (long i = 0; i < rounds; i++)
    for (int k = 0; k < 3; k++) seen[k][swap_open(paths[k], rights[k])]++;
  for (int k = 0; k < 3; k++) {
    printf("  %s%s: %ld opens: %ld refused, %ld inside, %ld outside\n",
           paths[k], k == 2 ? " (read-write)" : "", rounds, seen[k][0],
           seen[k][1], seen[k][2]);
    CHECK_EQ(seen[k][2], 0);
  }
  check_outside_untouched();
}

#ifdef _WIN32
/* Forms that mean something else to Windows than a name beneath the
 * preopen: each must fail and make nothing. */
static void test_windows_forms(void) {
  static const char *const forms[] = {
      "C:\\Windows\\win.ini",
      "C:/Windows/win.ini",
      "c:inside.txt",
      "Z:\\etc\\passwd",
      "\\\\?\\C:\\Windows",
      "\\\\.\\NUL",
      "//?/C:/Windows",
      "//./NUL",
      "\\\\localhost\\C$\\Windows",
      "\\etc",
      "sub\\..\\..\\outside\\secret.txt",
      "sub\\inside.txt",
      "NUL",
      "nul",
      "CON",
      "COM1",
      "LPT1",
      "AUX",
      "PRN",
      "CLOCK$",
      "clock$.txt",
      "nul.txt",
      "sub/CON.log",
      "inside.txt:stream",
      "inside.txt::$DATA",
      "sub:stream",
      "inside.txt.",
      "inside.txt ",
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    uint32_t r = g_open(FOLLOW, forms[i], 0, WASI_RIGHTS_FD_READ, NULL);
    uint32_t c = g_open(FOLLOW, forms[i], WASI_OFLAGS_CREAT, RW, NULL);
    uint32_t d = g_path("path_create_directory", forms[i]);
    printf("  %-32s open %u, creat %u, mkdir %u\n", forms[i], r, c, d);
    CHECK(r != 0);
    CHECK(c != 0);
    CHECK(d != 0);
  }
  /* Nothing was made under any of those names (Wine has no streams or
   * devices there: it would make plain files named so). */
  static const char *const made[] = {
      "CLOCK$",     "clock$.txt",  "NUL",         "nul",
      "CON",        "COM1",        "nul.txt",     "inside.txt:stream",
      "sub:stream", "inside.txt.", "inside.txt ", "sub\\CON.log"};
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
    if (at_links(made[i])) printf("  made: %s\n", made[i]);
    CHECK(!at_links(made[i]));
  }
  char buf[64], p[700];
  os_join(p, sizeof p, links, "inside.txt");
  CHECK_EQ(os_read_file(p, buf, sizeof buf), 7); /* not truncated */
  check_outside_untouched();
}
#endif

/* Removes the tree this test made (not a prepared one). */
static void remove_tree(void) {
  if (unix_links) return;
  static const char *const names[] = {
      "links" OS_SEP "sub" OS_SEP "link_up",
      "links" OS_SEP "sub",
      "links" OS_SEP "link_out_dir",
      "links" OS_SEP "link_out_file",
      "links" OS_SEP "renamed_link",
      "links" OS_SEP "link_out_abs",
      "links" OS_SEP "link_in",
      "links" OS_SEP "inside.txt",
      "links" OS_SEP "hold_f_moved" OS_SEP "f",
      "links" OS_SEP "hold_f_moved" OS_SEP "g",
      "links" OS_SEP "hold_f_moved",
      "links" OS_SEP "hold_f" OS_SEP "f",
      "links" OS_SEP "hold_f",
      "links" OS_SEP "hold_d_moved" OS_SEP "f",
      "links" OS_SEP "hold_d_moved",
      "links" OS_SEP "hold_d" OS_SEP "f",
      "links" OS_SEP "hold_d",
      "links",
      "outside" OS_SEP "secret.txt",
      "outside",
  };
  char p[700];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    os_join(p, sizeof p, base, names[i]);
    os_remove(p);
  }
  os_remove(base);
}

WTP_TEST_MAIN {
  setup();
  RUN(test_dotdot_and_absolute);
  RUN(test_links_out);
  RUN(test_held_dir_renamed);
#ifdef _WIN32
  RUN(test_windows_forms);
#endif
  RUN(test_host_swap);
  wtp_wasi_release(wasi);
  free(memory.base);
  remove_tree();
  return harness_summary("test_wasi_os_path");
}
