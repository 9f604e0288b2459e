/* Capability-safe paths: every way out of a preopened directory that the
 * issue lists, tried with raw WASI calls (not libc's path handling), so that
 * the host alone decides. Run with /sandbox preopened on S, where the test
 * made, next to S, an outside directory O with O/secret.txt, and inside S:
 *
 *   inside.txt            "inside"
 *   sub/                  a directory
 *   in-link  -> sub/../inside.txt    a symlink that stays inside
 *   out-dir  -> ../outside           a relative directory symlink out
 *   abs-dir  -> /abs/path/of/O       an absolute directory symlink out
 *   out-file -> ../outside/secret.txt, abs-file -> /abs/O/secret.txt
 *   dangling -> ../outside/created.txt   (does not exist)
 *   chain    -> sub/up, sub/up -> ../../outside   a chain of relative links
 *   loop1 -> loop2, loop2 -> loop1
 *
 *   sandbox.wasm ABS_OUTSIDE
 *
 * Each escape prints "blocked NAME (errno E)" or "ESCAPED NAME: what
 * happened"; the controls that stay inside print "ok NAME" or "FAIL NAME".
 * The test checks on the host that nothing in O was read, made or changed. */
#include <fcntl.h>

#include "common.h"

static __wasi_fd_t dir;
static int escapes;

/* The rights the preopen hands down (as wasi-libc asks): a host that
 * checks rights refuses more than these with ENOTCAPABLE before it looks at
 * the path, which would hide what the path walk does. */
static __wasi_rights_t ALL;

static __wasi_errno_t open_at(const char *path, __wasi_lookupflags_t look,
                              __wasi_oflags_t oflags, __wasi_fd_t *fd) {
  return __wasi_path_open(dir, look, path, oflags, ALL, ALL, 0, fd);
}

/* An escape attempt's result: e is the call's errno; 0 means it worked. */
static void expect_blocked(const char *name, __wasi_errno_t e,
                           const char *what) {
  if (e == 0) {
    say("ESCAPED %s: %s\n", name, what);
    escapes++;
  } else {
    say("blocked %s (errno %d)\n", name, e);
  }
}

/* Opening `path` for reading must fail; if it opens, what it reads is
 * shown (the secret, or not). */
static void try_read(const char *name, const char *path,
                     __wasi_lookupflags_t look) {
  __wasi_fd_t fd;
  __wasi_errno_t e = open_at(path, look, 0, &fd);
  if (e == 0) {
    char buf[64] = {0};
    __wasi_iovec_t iov = {(uint8_t *)buf, sizeof buf - 1};
    __wasi_size_t n = 0;
    __wasi_fd_read(fd, &iov, 1, &n);
    __wasi_fd_close(fd);
    say("ESCAPED %s: opened, read \"%.20s\"\n", name, buf);
    escapes++;
    return;
  }
  say("blocked %s (errno %d)\n", name, e);
}

static void try_create(const char *name, const char *path,
                       __wasi_lookupflags_t look) {
  __wasi_fd_t fd;
  __wasi_errno_t e = open_at(path, look, __WASI_OFLAGS_CREAT, &fd);
  if (e == 0) {
    __wasi_ciovec_t iov = {(const uint8_t *)"escaped\n", 8};
    __wasi_size_t n;
    __wasi_fd_write(fd, &iov, 1, &n);
    __wasi_fd_close(fd);
  }
  expect_blocked(name, e, "created or opened for writing");
}

static const __wasi_lookupflags_t FOLLOW = __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW;

static void reads(const char *abs_outside) {
  char abs_path[512];
  try_read("dotdot", "../outside/secret.txt", FOLLOW);
  try_read("dotdot-after-sub", "sub/../../outside/secret.txt", FOLLOW);
  try_read("dotdot-nofollow", "../outside/secret.txt", 0);
  snprintf(abs_path, sizeof abs_path, "%s/secret.txt", abs_outside);
  try_read("absolute-host-path", abs_path, FOLLOW);
  try_read("absolute-guest-path", "/sandbox/../outside/secret.txt", FOLLOW);
  try_read("intermediate-relative-symlink", "out-dir/secret.txt", FOLLOW);
  try_read("intermediate-relative-symlink-nofollow", "out-dir/secret.txt", 0);
  try_read("intermediate-absolute-symlink", "abs-dir/secret.txt", FOLLOW);
  try_read("final-relative-symlink", "out-file", FOLLOW);
  try_read("final-absolute-symlink", "abs-file", FOLLOW);
  try_read("symlink-chain", "chain/secret.txt", FOLLOW);
  try_read("symlink-then-dotdot", "sub/up/secret.txt", FOLLOW);
  __wasi_fd_t fd;
  expect_blocked("directory-through-symlink",
                 __wasi_path_open(dir, FOLLOW, "out-dir",
                                  __WASI_OFLAGS_DIRECTORY, ALL, ALL, 0, &fd),
                 "opened O as a directory");
  __wasi_filestat_t st;
  expect_blocked(
      "stat-through-symlink",
      __wasi_path_filestat_get(dir, FOLLOW, "out-dir/secret.txt", &st),
      "stat'ed O/secret.txt");
  expect_blocked(
      "stat-dotdot",
      __wasi_path_filestat_get(dir, FOLLOW, "../outside/secret.txt", &st),
      "stat'ed O/secret.txt");
  __wasi_errno_t e = open_at("loop1", FOLLOW, 0, &fd);
  check(e == __WASI_ERRNO_LOOP, "symlink-loop-eloop",
        "path_open of a loop: errno %d (expected ELOOP %d)", e,
        __WASI_ERRNO_LOOP);
  e = open_at("loop1/x", FOLLOW, 0, &fd);
  check(e == __WASI_ERRNO_LOOP, "symlink-loop-intermediate-eloop", "errno %d",
        e);
}

static void writes(void) {
  try_create("dangling-symlink-creat", "dangling", FOLLOW);
  try_create("create-through-dir-symlink", "out-dir/new.txt", FOLLOW);
  try_create("create-dotdot", "../outside/new.txt", FOLLOW);
  try_create("truncate-through-symlink", "out-file", FOLLOW);
  expect_blocked("mkdir-through-symlink",
                 __wasi_path_create_directory(dir, "out-dir/newdir"),
                 "made O/newdir");
  expect_blocked("mkdir-dotdot",
                 __wasi_path_create_directory(dir, "../outside/newdir2"),
                 "made O/newdir2");
  expect_blocked("rmdir-through-symlink",
                 __wasi_path_remove_directory(dir, "out-dir/keep"),
                 "removed O/keep");
  expect_blocked("set-times-through-symlink",
                 __wasi_path_filestat_set_times(
                     dir, FOLLOW, "out-dir/secret.txt", 1, 1,
                     __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM),
                 "changed O/secret.txt's times");
  expect_blocked("symlink-into-outside",
                 __wasi_path_symlink("inside.txt", dir, "out-dir/planted"),
                 "made O/planted");
  expect_blocked(
      "link-from-outside",
      __wasi_path_link(dir, 0, "out-dir/secret.txt", dir, "stolen-link"),
      "hard-linked O/secret.txt into the sandbox");
  expect_blocked(
      "link-from-outside-follow",
      __wasi_path_link(dir, FOLLOW, "out-file", dir, "stolen-follow"),
      "hard-linked O/secret.txt through a final symlink");
  expect_blocked(
      "link-to-outside",
      __wasi_path_link(dir, 0, "inside.txt", dir, "out-dir/linked.txt"),
      "made O/linked.txt");
  expect_blocked(
      "link-to-dotdot",
      __wasi_path_link(dir, 0, "inside.txt", dir, "../outside/linked2.txt"),
      "made O/linked2.txt");
  expect_blocked(
      "rename-from-outside",
      __wasi_path_rename(dir, "out-dir/secret.txt", dir, "moved-in.txt"),
      "moved O/secret.txt into the sandbox");
  expect_blocked(
      "rename-to-outside",
      __wasi_path_rename(dir, "inside-copy.txt", dir, "out-dir/moved-out.txt"),
      "moved a file into O");
  expect_blocked("rename-to-dotdot",
                 __wasi_path_rename(dir, "inside-copy.txt", dir,
                                    "../outside/moved-out2.txt"),
                 "moved a file into O");
  /* Last: where a host lets them through, they take the secret away. */
  expect_blocked("unlink-through-symlink",
                 __wasi_path_unlink_file(dir, "out-dir/secret.txt"),
                 "removed O/secret.txt");
  expect_blocked("unlink-dotdot",
                 __wasi_path_unlink_file(dir, "../outside/secret.txt"),
                 "removed O/secret.txt");
}

/* A link planted by the program that points out is no way out either. */
static void planted(void) {
  __wasi_errno_t e =
      __wasi_path_symlink("../outside/secret.txt", dir, "planted-out");
  if (e == 0)
    try_read("planted-symlink", "planted-out", FOLLOW);
  else
    say("blocked planted-symlink-create (errno %d)\n", e);
  e = __wasi_path_symlink("sub/..", dir, "planted-up");
  if (e == 0)
    try_read("planted-symlink-dotdot", "planted-up/../outside/secret.txt",
             FOLLOW);
}

/* The controls: what stays inside works. */
static void inside(void) {
  __wasi_fd_t fd;
  __wasi_errno_t e = open_at("sub/../inside.txt", FOLLOW, 0, &fd);
  check(e == 0, "dotdot-inside", "errno %d", e);
  if (e == 0) __wasi_fd_close(fd);
  e = open_at("in-link", FOLLOW, 0, &fd);
  check(e == 0, "symlink-inside", "errno %d", e);
  if (e == 0) __wasi_fd_close(fd);
  e = open_at("in-link", 0, 0, &fd);
  check(e == __WASI_ERRNO_LOOP || e == __WASI_ERRNO_NOTDIR ||
            e == __WASI_ERRNO_MLINK,
        "final-symlink-nofollow-refused", "errno %d", e);
  char target[128] = {0};
  __wasi_size_t n = 0;
  e = __wasi_path_readlink(dir, "out-dir", (uint8_t *)target, sizeof target - 1,
                           &n);
  check(e == 0 && n == 10 && !memcmp(target, "../outside", 10),
        "readlink-of-outward-link", "errno %d, \"%.*s\"", e, (int)n, target);
  e = __wasi_path_rename(dir, "inside.txt", dir, "sub/renamed.txt");
  check(e == 0, "rename-inside", "errno %d", e);
  e = __wasi_path_link(dir, 0, "sub/renamed.txt", dir, "inside-copy.txt");
  check(e == 0, "link-inside", "errno %d", e);
}

/* A thread of the program is held to the same sandbox. */
static void *from_thread(void *arg) {
  try_read("intermediate-relative-symlink-on-thread", "out-dir/secret.txt",
           FOLLOW);
  try_create("dangling-symlink-creat-on-thread", "dangling", FOLLOW);
  (void)arg;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    say("FAIL usage: sandbox.wasm ABS_OUTSIDE\n");
    return 2;
  }
  dir = first_preopen();
  __wasi_fdstat_t stat;
  if (__wasi_fd_fdstat_get(dir, &stat) != 0) {
    say("FAIL fd_fdstat_get of the preopen\n");
    return 2;
  }
  ALL = stat.fs_rights_inheriting;
  inside();
  reads(argv[1]);
  on_thread(from_thread, NULL);
  writes();
  planted();
  say("escapes %d\n", escapes);
  return finish() || escapes ? 1 : 0;
}
