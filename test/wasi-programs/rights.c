/* The answers wasmtime gives (issue 27), as a program sees them through
 * wasi-libc, each step on a thread of its own:
 *
 *   rights        in the first preopen: a directory has no seek, tell or
 *                 set-size right and lseek on it is EBADF; ftruncate on a
 *                 read-only fd is EBADF; fd_fdstat_set_rights narrows (a
 *                 removed right: ENOTCAPABLE) and never widens; O_DIRECTORY
 *                 with write access is EISDIR, with read access a listing;
 *                 symlink() to an absolute target is EPERM; without
 *                 PATH_FILESTAT_SET_SIZE an O_TRUNC open is ENOTCAPABLE
 *   append        O_APPEND per descriptor: pwrite() writes at its offset
 *   isatty        prints isatty(0), isatty(1), isatty(2)
 *   stdout-flags  fcntl(1, F_SETFL, 0), then writes "prog\n" to stdout
 *                 (reports on stderr)
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "common.h"

static int dir_fd;

static __wasi_fdstat_t fdstat(int fd) {
  __wasi_fdstat_t st;
  memset(&st, 0, sizeof st);
  if (__wasi_fd_fdstat_get((__wasi_fd_t)fd, &st) != 0) st.fs_filetype = 0xff;
  return st;
}

static void *directory_rights(void *arg) {
  (void)arg;
  __wasi_fdstat_t st = fdstat(dir_fd);
  check((st.fs_rights_base & (__WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL |
                              __WASI_RIGHTS_FD_FILESTAT_SET_SIZE)) == 0,
        "directory-no-seek-rights", "rights %llx",
        (unsigned long long)st.fs_rights_base);
  errno = 0;
  off_t at = lseek(dir_fd, 0, SEEK_CUR);
  check(at == -1 && errno == EBADF, "directory-lseek-ebadf", "%lld errno %d",
        (long long)at, errno);
  return NULL;
}

static void *truncate_read_only(void *arg) {
  (void)arg;
  int fd = openat(dir_fd, "ro.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  (void)write(fd, "keep", 4);
  close(fd);
  fd = openat(dir_fd, "ro.txt", O_RDONLY);
  errno = 0;
  int rc = ftruncate(fd, 0);
  check(rc == -1 && errno == EBADF, "ftruncate-read-only-ebadf",
        "rc %d errno %d", rc, errno);
  struct stat sb;
  check(fstat(fd, &sb) == 0 && sb.st_size == 4, "read-only-file-kept",
        "size %lld", (long long)sb.st_size);
  close(fd);
  return NULL;
}

static void *narrowing(void *arg) {
  (void)arg;
  int fd = openat(dir_fd, "ro.txt", O_RDWR);
  __wasi_fdstat_t st = fdstat(fd);
  __wasi_rights_t less = st.fs_rights_base & ~__WASI_RIGHTS_FD_SEEK;
  check(__wasi_fd_fdstat_set_rights(fd, less, st.fs_rights_inheriting) == 0,
        "set-rights-narrows", "refused");
  check(fdstat(fd).fs_rights_base == less, "set-rights-reported", "%llx",
        (unsigned long long)fdstat(fd).fs_rights_base);
  __wasi_filesize_t pos = 0;
  __wasi_errno_t err = __wasi_fd_seek(fd, 1, __WASI_WHENCE_SET, &pos);
  check(err == __WASI_ERRNO_NOTCAPABLE, "removed-right-refused", "errno %d",
        err);
  /* wasi-libc's lseek turns that ENOTCAPABLE into ESPIPE. */
  errno = 0;
  off_t at = lseek(fd, 1, SEEK_SET);
  check(at == -1 && errno == ESPIPE, "removed-right-lseek-espipe",
        "%lld errno %d", (long long)at, errno);
  check(__wasi_fd_fdstat_set_rights(fd, st.fs_rights_base,
                                    st.fs_rights_inheriting) ==
            __WASI_ERRNO_NOTCAPABLE,
        "set-rights-never-widens", "widened");
  char buf[8] = {0};
  check(read(fd, buf, 4) == 4 && memcmp(buf, "keep", 4) == 0,
        "kept-rights-work", "read %s", buf);
  close(fd);
  return NULL;
}

static void *directory_open(void *arg) {
  (void)arg;
  mkdirat(dir_fd, "sub", 0777);
  int fd = openat(dir_fd, "sub/in.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(fd);
  errno = 0;
  fd = openat(dir_fd, "sub", O_WRONLY | O_DIRECTORY);
  check(fd == -1 && errno == EISDIR, "directory-write-open-eisdir",
        "fd %d errno %d", fd, errno);
  if (fd >= 0) close(fd);
  fd = openat(dir_fd, "sub", O_RDONLY | O_DIRECTORY);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  int found = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    found |= strcmp(e->d_name, "in.txt") == 0;
  check(found, "directory-read-open-lists", "fd %d", fd);
  if (d) closedir(d);
  return NULL;
}

static void *absolute_symlink(void *arg) {
  (void)arg;
  errno = 0;
  int rc = symlinkat("/etc", dir_fd, "abs-link");
  check(rc == -1 && errno == EPERM, "symlink-absolute-eperm", "rc %d errno %d",
        rc, errno);
  char target[64];
  check(readlinkat(dir_fd, "abs-link", target, sizeof target) == -1 &&
            errno == ENOENT,
        "symlink-absolute-not-made", "made");
  rc = symlinkat("sub/in.txt", dir_fd, "rel-link");
  check(rc == 0, "symlink-relative-made", "errno %d", errno);
  return NULL;
}

static void *truncation_rights(void *arg) {
  (void)arg;
  __wasi_fdstat_t st = fdstat(dir_fd);
  int fd = openat(dir_fd, "ro.txt", O_WRONLY | O_TRUNC);
  check(fd >= 0, "truncate-open-with-right", "errno %d", errno);
  if (fd >= 0) close(fd);
  check(__wasi_fd_fdstat_set_rights(
            dir_fd, st.fs_rights_base & ~__WASI_RIGHTS_PATH_FILESTAT_SET_SIZE,
            st.fs_rights_inheriting) == 0,
        "drop-path-set-size", "refused");
  errno = 0;
  fd = openat(dir_fd, "ro.txt", O_WRONLY | O_TRUNC);
  check(fd == -1 && errno == ENOTCAPABLE, "truncate-open-without-right",
        "fd %d errno %d", fd, errno);
  fd = openat(dir_fd, "ro.txt", O_WRONLY);
  check(fd >= 0, "open-without-truncation", "errno %d", errno);
  if (fd >= 0) close(fd);
  return NULL;
}

static void case_rights(void) {
  dir_fd = (int)first_preopen();
  on_thread(directory_rights, NULL);
  on_thread(truncate_read_only, NULL);
  on_thread(narrowing, NULL);
  on_thread(directory_open, NULL);
  on_thread(absolute_symlink, NULL);
  on_thread(truncation_rights, NULL); /* last: narrows the preopen for good */
}

static void *append_write(void *arg) {
  int fd = *(int *)arg;
  check(write(fd, "abc", 3) == 3, "append-write", "errno %d", errno);
  return NULL;
}

static void *append_pwrite(void *arg) {
  int fd = *(int *)arg;
  check(pwrite(fd, "XY", 2, 0) == 2, "append-pwrite", "errno %d", errno);
  return NULL;
}

static void case_append(void) {
  dir_fd = (int)first_preopen();
  int fd = openat(dir_fd, "append.txt", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND,
                  0644);
  on_thread(append_write, &fd);
  on_thread(append_pwrite, &fd);
  check(write(fd, "!", 1) == 1, "append-after-pwrite", "errno %d", errno);
  close(fd);
  char buf[16] = {0};
  fd = openat(dir_fd, "append.txt", O_RDONLY);
  (void)read(fd, buf, sizeof buf - 1);
  close(fd);
  check(strcmp(buf, "XYc!") == 0, "pwrite-at-offset-on-append-fd",
        "file \"%s\"", buf);
}

static void case_isatty(void) {
  say("isatty %d %d %d\n", isatty(0), isatty(1), isatty(2));
}

static void *clear_stdout_flags(void *arg) {
  (void)arg;
  check(fcntl(1, F_SETFL, 0) == 0, "setfl-stdout", "errno %d", errno);
  check((fcntl(1, F_GETFL) & O_APPEND) == 0, "stdout-append-cleared-in-program",
        "flags %x", fcntl(1, F_GETFL));
  return NULL;
}

static void case_stdout_flags(void) {
  report_fd = 2;
  on_thread(clear_stdout_flags, NULL);
  check(write(1, "prog\n", 5) == 5, "stdout-write", "errno %d", errno);
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (!strcmp(which, "rights"))
    case_rights();
  else if (!strcmp(which, "append"))
    case_append();
  else if (!strcmp(which, "isatty"))
    case_isatty();
  else if (!strcmp(which, "stdout-flags"))
    case_stdout_flags();
  else
    say("FAIL unknown case \"%s\"\n", which);
  return finish();
}
