/* test_wasi_rights.c: where the program's WASI answers as wasmtime does
 * (issue 27): stdio whose host description stays the host's, APPEND per
 * descriptor, stdio that is a character device but no terminal, and the
 * rights model (narrowing, enforcement, what path_open grants), plus the
 * robustness items (paths copied before they are checked). Each runs over
 * openat2 and over the forced component walk where a path is resolved. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "wasi_harness.h"
#include "wasi_path.h"

#define MEM 65536
#define IOV 0
#define RESULT 64
#define PATH 256
#define DATA 8192

/* TSan builds: no fork, no racing guest threads (TSan reports the
 * guest's own race, which is the point of those tests). */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

static char dir[64];

static void put_path(wtp_wasi_memory *m, const char *path) {
  memcpy(m->base + PATH, path, strlen(path));
}

/* path_open(3, path, oflags, rights, inheriting, fdflags): the errno; the
 * new fd at *fd_out. */
static uint32_t g_open(wtp_wasi *wasi, wtp_wasi_memory *m, const char *path,
                       uint32_t oflags, uint64_t rights, uint64_t inheriting,
                       uint32_t fdflags, uint32_t *fd_out) {
  put_path(m, path);
  uint32_t err = CALL(wasi, m, "path_open", 3, 0, PATH, strlen(path), oflags,
                      rights, inheriting, fdflags, RESULT);
  if (err == 0 && fd_out) *fd_out = wtp__wasi_load32(m, RESULT);
  return err;
}

static uint32_t g_write(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd,
                        const char *text) {
  memcpy(m->base + DATA, text, strlen(text));
  put_iovec(m, IOV, DATA, (uint32_t)strlen(text));
  return CALL(wasi, m, "fd_write", fd, IOV, 1, RESULT);
}

static uint32_t g_pwrite(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd,
                         const char *text, uint64_t offset) {
  memcpy(m->base + DATA, text, strlen(text));
  put_iovec(m, IOV, DATA, (uint32_t)strlen(text));
  return CALL(wasi, m, "fd_pwrite", fd, IOV, 1, offset, RESULT);
}

static void host_text(const char *path, char *buf, size_t size) {
  memset(buf, 0, size);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, size - 1);
  (void)n;
  close(fd);
}

static void in_dir(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

/* ---- the host's stdio description stays the host's ---- */

static void test_stdio_flags_stay_in_program(void) {
  char log[128], text[64];
  in_dir(log, sizeof log, "log");
  /* stdout is `>>log`: a description shared with the shell. */
  int host = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  CHECK(host >= 0);
  wtp_wasi *wasi = make_wasi(-1, host, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 1, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2] & WASI_FDFLAGS_APPEND, WASI_FDFLAGS_APPEND);
  /* fcntl(1, F_SETFL, 0) in the program. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 1, 0), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 1, RESULT), 0);
  CHECK_EQ(m.base[RESULT + 2] & WASI_FDFLAGS_APPEND, 0);
  CHECK(fcntl(host, F_GETFL) & O_APPEND); /* the shell's flag is still on */
  /* Another writer appends; the shell appends again after the program:
   * nothing is overwritten. */
  CHECK_EQ(g_write(wasi, &m, 1, "prog\n"), 0);
  int other = open(log, O_WRONLY | O_APPEND);
  CHECK_EQ(write(other, "other\n", 6), 6);
  close(other);
  CHECK_EQ(write(host, "shell\n", 6), 6);
  host_text(log, text, sizeof text);
  CHECK(strcmp(text, "prog\nother\nshell\n") == 0);
  wtp_wasi_release(wasi);
  close(host);

  /* stdout is `>file` (no O_APPEND): the program's APPEND is its own. */
  host = open(log, O_WRONLY | O_TRUNC);
  CHECK(host >= 0);
  wasi = make_wasi(-1, host, -1, NULL);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", 1, WASI_FDFLAGS_APPEND), 0);
  CHECK_EQ(fcntl(host, F_GETFL) & O_APPEND, 0);
  CHECK_EQ(write(host, "0123456789", 10), 10);
  CHECK_EQ(lseek(host, 2, SEEK_SET), 2);
  CHECK_EQ(g_write(wasi, &m, 1, "XY"), 0); /* at the end, not at 2 */
  host_text(log, text, sizeof text);
  CHECK(strcmp(text, "0123456789XY") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
  close(host);
  unlink(log);
}

/* ---- APPEND per descriptor: pwrite at its offset ---- */

static void test_append_per_descriptor(void) {
  char path[128], text[64];
  in_dir(path, sizeof path, "append");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = 0;
  CHECK_EQ(g_open(wasi, &m, "append", WASI_OFLAGS_CREAT | WASI_OFLAGS_TRUNC,
                  WASI_RIGHTS_REGULAR_FILE, 0, WASI_FDFLAGS_APPEND, &fd),
           0);
  CHECK_EQ(g_write(wasi, &m, fd, "abc"), 0);
  /* Another process appends between two of the program's writes. */
  int other = open(path, O_WRONLY | O_APPEND);
  CHECK_EQ(write(other, "123", 3), 3);
  CHECK_EQ(g_write(wasi, &m, fd, "def"), 0);
  host_text(path, text, sizeof text);
  CHECK(strcmp(text, "abc123def") == 0);
  /* pwrite(fd, "XY", 2, 0) writes at 0 on an APPEND fd (wasmtime). */
  CHECK_EQ(g_pwrite(wasi, &m, fd, "XY", 0), 0);
  host_text(path, text, sizeof text);
  CHECK(strcmp(text, "XYc123def") == 0);
  /* The offset is at the end after an append, as with O_APPEND. */
  CHECK_EQ(CALL(wasi, &m, "fd_tell", fd, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 9);
  /* Cleared: writes go to the offset. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", fd, 0), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 1, WASI_WHENCE_SET, RESULT), 0);
  CHECK_EQ(g_write(wasi, &m, fd, "Q"), 0);
  host_text(path, text, sizeof text);
  CHECK(strcmp(text, "XQc123def") == 0);
  /* Set again: the end. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_flags", fd, WASI_FDFLAGS_APPEND), 0);
  CHECK_EQ(g_write(wasi, &m, fd, "!"), 0);
  host_text(path, text, sizeof text);
  CHECK(strcmp(text, "XQc123def!") == 0);
  close(other);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
}

/* An APPEND write where a seccomp filter refuses pwritev2 with EPERM (a
 * container profile that predates the call, whose default answer is
 * EPERM) still appends, by the seek-and-write path, as it does where the
 * kernel says ENOSYS. Run in a child process: the filter stays for life. */
#if defined(__linux__) && defined(__NR_pwritev2) && !defined(UNDER_TSAN)
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int refuse_pwritev2(void) {
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pwritev2, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof code / sizeof code[0], code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
#endif

static void test_append_without_pwritev2(void) {
#if defined(__linux__) && defined(__NR_pwritev2) && !defined(UNDER_TSAN)
  char path[128], text[64];
  in_dir(path, sizeof path, "append_eperm");
  int host = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(host >= 0);
  CHECK_EQ(write(host, "0123456789", 10), 10);
  close(host);
  pid_t child = fork();
  if (child == 0) {
    if (refuse_pwritev2() != 0) _exit(2); /* no seccomp here: not tested */
    wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
    wtp_wasi_memory m = guest_memory(MEM);
    uint32_t fd = 0;
    int bad = g_open(wasi, &m, "append_eperm", 0, WASI_RIGHTS_REGULAR_FILE, 0,
                     WASI_FDFLAGS_APPEND, &fd) != 0;
    bad |= CALL(wasi, &m, "fd_seek", fd, 2, WASI_WHENCE_SET, RESULT) != 0;
    bad |= g_write(wasi, &m, fd, "XY") != 0;
    _exit(bad);
  }
  int status = -1;
  CHECK(waitpid(child, &status, 0) == child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    fprintf(stderr, "  (no seccomp filter allowed: skipped)\n");
  } else {
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    host_text(path, text, sizeof text);
    CHECK(strcmp(text, "0123456789XY") == 0);
  }
  unlink(path);
#endif
}

/* An append-only file (chattr +a) opens for writing only with O_APPEND:
 * the program's APPEND open of it (a log) works and appends. Needs the
 * right to set the flag (root): skipped otherwise. */
#ifdef __linux__
#include <linux/fs.h>
#include <sys/ioctl.h>

static int set_append_only(const char *path, int on) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  int flags = 0, rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
  if (rc == 0) {
    flags = on ? flags | FS_APPEND_FL : flags & ~FS_APPEND_FL;
    rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
  close(fd);
  return rc;
}
#endif

static void test_append_only_file(void) {
#ifdef __linux__
  char path[128], text[64];
  in_dir(path, sizeof path, "append_only");
  int host = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(host >= 0);
  CHECK_EQ(write(host, "log\n", 4), 4);
  close(host);
  if (set_append_only(path, 1) != 0) {
    fprintf(stderr, "  (cannot make a file append-only here: skipped)\n");
    unlink(path);
    return;
  }
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = 0;
  CHECK_EQ(g_open(wasi, &m, "append_only", WASI_OFLAGS_CREAT,
                  WASI_RIGHTS_FD_WRITE, 0, WASI_FDFLAGS_APPEND, &fd),
           0);
  CHECK_EQ(g_write(wasi, &m, fd, "more\n"), 0);
  /* Without APPEND the kernel refuses the write open, as natively. */
  CHECK_EQ(g_open(wasi, &m, "append_only", 0, WASI_RIGHTS_FD_WRITE, 0, 0, NULL),
           WASI_EPERM);
  host_text(path, text, sizeof text);
  CHECK(strcmp(text, "log\nmore\n") == 0);
  free(m.base);
  wtp_wasi_release(wasi);
  set_append_only(path, 0);
  unlink(path);
#endif
}

/* ---- isatty: a character device that is no terminal ---- */

static void test_dev_null_is_no_terminal(void) {
  int null_fd = open("/dev/null", O_RDWR);
  int master = posix_openpt(O_RDWR | O_NOCTTY), slave = -1;
  if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
    slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  int have_pty = slave >= 0;
  wtp_wasi *wasi =
      make_wasi(null_fd, null_fd, have_pty ? slave : null_fd, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (uint32_t fd = 0; fd < 2; fd++) {
    CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", fd, RESULT), 0);
    /* wasmtime reports UNKNOWN: wasi-libc's isatty() then says no. */
    CHECK_EQ(m.base[RESULT], WASI_FILETYPE_UNKNOWN);
    CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), 0);
    CHECK_EQ(m.base[RESULT + 16], WASI_FILETYPE_UNKNOWN);
  }
  /* Reads and writes work as before. */
  CHECK_EQ(g_write(wasi, &m, 1, "gone"), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 4);
  put_iovec(&m, IOV, DATA, 16);
  CHECK_EQ(CALL(wasi, &m, "fd_read", 0, IOV, 1, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 0);
  if (have_pty) {
    /* A terminal stays a character device without seek or tell. */
    CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", 2, RESULT), 0);
    CHECK_EQ(m.base[RESULT], WASI_FILETYPE_CHARACTER_DEVICE);
    uint64_t rights = wtp__wasi_load32(&m, RESULT + 8);
    CHECK_EQ(rights & (WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL), 0);
  }
  free(m.base);
  wtp_wasi_release(wasi);
  close(null_fd);
  if (slave >= 0) close(slave);
  if (master >= 0) close(master);
}

/* A character device the program opens by path (/dev/null through a
 * preopen of /dev) keeps the seek and tell rights it asked for, as
 * wasmtime reports them: wasi-libc's isatty() takes CHARACTER_DEVICE
 * without them for a terminal, and /dev/null is none. */
static void test_dev_null_by_path_is_no_terminal(void) {
  wtp_wasi *wasi = make_wasi(-1, -1, -1, "/dev");
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = 0;
  memcpy(m.base + PATH, "null", 4);
  CHECK_EQ(CALL(wasi, &m, "path_open", 3, 0, PATH, 4, 0,
                WASI_RIGHTS_REGULAR_FILE, WASI_RIGHTS_REGULAR_FILE, 0, RESULT),
           0);
  fd = wtp__wasi_load32(&m, RESULT);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_get", fd, RESULT), 0);
  CHECK_EQ(m.base[RESULT], WASI_FILETYPE_CHARACTER_DEVICE);
  uint64_t rights = wtp__wasi_load32(&m, RESULT + 8);
  /* isatty(fd) in wasi-libc: a character device holding seek or tell is
   * no terminal. */
  CHECK(rights & (WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL));
  CHECK_EQ(g_write(wasi, &m, fd, "gone"), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), 0);
  free(m.base);
  wtp_wasi_release(wasi);
}

/* ---- rights ---- */

static uint64_t fdstat_base(wtp_wasi *wasi, wtp_wasi_memory *m, uint32_t fd) {
  if (CALL(wasi, m, "fd_fdstat_get", fd, RESULT) != 0) return UINT64_MAX;
  return wtp__wasi_load32(m, RESULT + 8) |
         (uint64_t)wtp__wasi_load32(m, RESULT + 12) << 32;
}

static uint64_t fdstat_inheriting(wtp_wasi *wasi, wtp_wasi_memory *m,
                                  uint32_t fd) {
  if (CALL(wasi, m, "fd_fdstat_get", fd, RESULT) != 0) return UINT64_MAX;
  return wtp__wasi_load32(m, RESULT + 16) |
         (uint64_t)wtp__wasi_load32(m, RESULT + 20) << 32;
}

#define NO_POSITION \
  (WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL | WASI_RIGHTS_FD_FILESTAT_SET_SIZE)

/* A directory: no seek, tell or set-size; O_DIRECTORY with write rights
 * refused; read rights fine (Rust's read_dir asks for FD_READ). */
static void test_directory_rights(void) {
  char sub[128];
  in_dir(sub, sizeof sub, "sub");
  mkdir(sub, 0777);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint64_t base = fdstat_base(wasi, &m, 3);
  CHECK_EQ(base & NO_POSITION, 0);
  CHECK(base & WASI_RIGHTS_PATH_FILESTAT_SET_SIZE);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", 3, 0, WASI_WHENCE_SET, RESULT),
           WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", 3, 0), WASI_EBADF);
  uint32_t fd = 0;
  CHECK_EQ(g_open(wasi, &m, "sub", WASI_OFLAGS_DIRECTORY,
                  WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_WRITE, 0, 0, NULL),
           WASI_EISDIR);
  CHECK_EQ(g_open(wasi, &m, "sub", WASI_OFLAGS_DIRECTORY | WASI_OFLAGS_CREAT,
                  WASI_RIGHTS_FD_READDIR, 0, 0, NULL),
           WASI_EINVAL);
  CHECK_EQ(
      g_open(wasi, &m, "sub", WASI_OFLAGS_DIRECTORY,
             WASI_RIGHTS_ALL &
                 ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_DATASYNC |
                   WASI_RIGHTS_FD_ALLOCATE | WASI_RIGHTS_FD_FILESTAT_SET_SIZE),
             WASI_RIGHTS_ALL, 0, &fd),
      0);
  base = fdstat_base(wasi, &m, fd);
  CHECK_EQ(base & NO_POSITION, 0);
  CHECK(base & WASI_RIGHTS_FD_READDIR);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 0, WASI_WHENCE_CUR, RESULT),
           WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), 0);
  free(m.base);
  wtp_wasi_release(wasi);
  rmdir(sub);
}

/* fd_fdstat_set_rights narrows, never widens; a removed right is refused. */
static void test_narrowing(void) {
  char path[128];
  in_dir(path, sizeof path, "narrow");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint32_t fd = 0;
  CHECK_EQ(g_open(wasi, &m, "narrow", WASI_OFLAGS_CREAT | WASI_OFLAGS_TRUNC,
                  WASI_RIGHTS_REGULAR_FILE, 0, 0, &fd),
           0);
  CHECK_EQ(fdstat_base(wasi, &m, fd), WASI_RIGHTS_REGULAR_FILE);
  CHECK_EQ(g_write(wasi, &m, fd, "0123456789"), 0);
  uint64_t less = WASI_RIGHTS_REGULAR_FILE & ~WASI_RIGHTS_FD_SEEK;
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", fd, less, 0), 0);
  CHECK_EQ(fdstat_base(wasi, &m, fd), less);
  CHECK_EQ(CALL(wasi, &m, "fd_seek", fd, 1, WASI_WHENCE_SET, RESULT),
           WASI_ENOTCAPABLE);
  CHECK_EQ(CALL(wasi, &m, "fd_tell", fd, RESULT), 0); /* TELL is still held */
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 10);
  /* Never widens. */
  CHECK_EQ(
      CALL(wasi, &m, "fd_fdstat_set_rights", fd, WASI_RIGHTS_REGULAR_FILE, 0),
      WASI_ENOTCAPABLE);
  CHECK_EQ(
      CALL(wasi, &m, "fd_fdstat_set_rights", fd, less, WASI_RIGHTS_FD_READ),
      WASI_ENOTCAPABLE);
  CHECK_EQ(fdstat_base(wasi, &m, fd), less);
  /* Without FD_WRITE: EBADF, as a descriptor not open for writing. */
  less &= ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_FILESTAT_SET_SIZE);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", fd, less, 0), 0);
  CHECK_EQ(g_write(wasi, &m, fd, "more"), WASI_EBADF);
  CHECK_EQ(g_pwrite(wasi, &m, fd, "more", 0), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", fd, 0), WASI_EBADF);
  put_iovec(&m, IOV, DATA, 4);
  CHECK_EQ(CALL(wasi, &m, "fd_pread", fd, IOV, 1, 0, RESULT), 0);
  CHECK_EQ(wtp__wasi_load32(&m, RESULT), 4);
  /* Without FD_FILESTAT_GET: ENOTCAPABLE. */
  less &= ~WASI_RIGHTS_FD_FILESTAT_GET;
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", fd, less, 0), 0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_get", fd, RESULT), WASI_ENOTCAPABLE);
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", 999, 0, 0), WASI_EBADF);
  struct stat st;
  CHECK(stat(path, &st) == 0 && st.st_size == 10); /* nothing was written */
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
}

/* ftruncate on a read-only fd: EBADF (wasmtime), not Linux's EINVAL. */
static void test_truncate_read_only(void) {
  char path[128];
  in_dir(path, sizeof path, "ro");
  int host = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK_EQ(write(host, "keep", 4), 4);
  close(host);
  int ro = open(path, O_RDONLY);
  wtp_wasi *wasi = make_wasi(ro, -1, -1, dir); /* stdin: a read-only file */
  wtp_wasi_memory m = guest_memory(MEM);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", 0, 0), WASI_EBADF);
  /* As wasi-libc opens O_RDONLY: no write rights asked. */
  uint32_t fd = 0;
  CHECK_EQ(
      g_open(wasi, &m, "ro", 0,
             WASI_RIGHTS_REGULAR_FILE &
                 ~(WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_DATASYNC |
                   WASI_RIGHTS_FD_ALLOCATE | WASI_RIGHTS_FD_FILESTAT_SET_SIZE),
             0, 0, &fd),
      0);
  CHECK_EQ(CALL(wasi, &m, "fd_filestat_set_size", fd, 0), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_datasync", fd), 0); /* POSIX allows it */
  struct stat st;
  CHECK(stat(path, &st) == 0 && st.st_size == 4);
  free(m.base);
  wtp_wasi_release(wasi);
  close(ro);
  unlink(path);
}

/* The directory's rights govern path calls and what path_open grants. */
static void test_inheriting_governs_open(void) {
  char path[128], made[128];
  in_dir(path, sizeof path, "inherit");
  in_dir(made, sizeof made, "made");
  int host = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK_EQ(write(host, "data", 4), 4);
  close(host);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  uint64_t base = fdstat_base(wasi, &m, 3),
           inheriting = fdstat_inheriting(wasi, &m, 3);
  /* No write rights to hand out: a write open gets a read-only fd. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", 3, base,
                inheriting & ~WASI_RIGHTS_FD_WRITE),
           0);
  uint32_t fd = 0;
  CHECK_EQ(g_open(wasi, &m, "inherit", 0,
                  WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_WRITE, 0, 0, &fd),
           0);
  CHECK_EQ(fdstat_base(wasi, &m, fd) & WASI_RIGHTS_FD_WRITE, 0);
  CHECK_EQ(g_write(wasi, &m, fd, "XX"), WASI_EBADF);
  CHECK_EQ(CALL(wasi, &m, "fd_close", fd), 0);
  /* Truncation needs PATH_FILESTAT_SET_SIZE, creation PATH_CREATE_FILE. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", 3,
                base & ~(WASI_RIGHTS_PATH_FILESTAT_SET_SIZE |
                         WASI_RIGHTS_PATH_CREATE_FILE |
                         WASI_RIGHTS_PATH_CREATE_DIRECTORY),
                0),
           0);
  CHECK_EQ(g_open(wasi, &m, "inherit", WASI_OFLAGS_TRUNC, 0, 0, 0, NULL),
           WASI_ENOTCAPABLE);
  CHECK_EQ(g_open(wasi, &m, "made", WASI_OFLAGS_CREAT, 0, 0, 0, NULL),
           WASI_ENOTCAPABLE);
  put_path(&m, "made");
  CHECK_EQ(CALL(wasi, &m, "path_create_directory", 3, PATH, 4),
           WASI_ENOTCAPABLE);
  struct stat st;
  CHECK(stat(path, &st) == 0 && st.st_size == 4);
  CHECK(stat(made, &st) != 0 && errno == ENOENT);
  /* Inheriting is now empty: an open still works, with no rights. */
  CHECK_EQ(g_open(wasi, &m, "inherit", 0, WASI_RIGHTS_FD_READ, 0, 0, &fd), 0);
  CHECK_EQ(fdstat_base(wasi, &m, fd), 0);
  put_iovec(&m, IOV, DATA, 4);
  CHECK_EQ(CALL(wasi, &m, "fd_read", fd, IOV, 1, RESULT), WASI_EBADF);
  /* Without PATH_OPEN nothing opens; without FD_READDIR nothing lists. */
  CHECK_EQ(CALL(wasi, &m, "fd_fdstat_set_rights", 3,
                base & ~(WASI_RIGHTS_PATH_OPEN | WASI_RIGHTS_FD_READDIR |
                         WASI_RIGHTS_PATH_FILESTAT_SET_SIZE |
                         WASI_RIGHTS_PATH_CREATE_FILE |
                         WASI_RIGHTS_PATH_CREATE_DIRECTORY),
                0),
           0);
  CHECK_EQ(g_open(wasi, &m, "inherit", 0, 0, 0, 0, NULL), WASI_ENOTCAPABLE);
  CHECK_EQ(CALL(wasi, &m, "fd_readdir", 3, DATA, 256, 0, RESULT),
           WASI_ENOTCAPABLE);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(path);
}

/* ---- robustness ---- */

static int walk_pass;

/* The walk holds one descriptor per level: a path deeper than its bound
 * answers ENAMETOOLONG instead of taking every descriptor of the process
 * (EMFILE, which other threads' opens would meet too). */
static void test_walk_depth_bounded(void) {
  if (!walk_pass) return; /* openat2 holds no descriptor per level */
  enum { LEVELS = 200 };
  char host[64 + 2 * LEVELS + 8], guest[2 * LEVELS + 8];
  size_t at = (size_t)snprintf(host, sizeof host, "%s", dir), g = 0;
  for (int i = 0; i < LEVELS; i++) {
    at += (size_t)snprintf(host + at, sizeof host - at, "/d");
    mkdir(host, 0777);
    g += (size_t)snprintf(guest + g, sizeof guest - g, "%sd", i ? "/" : "");
  }
  snprintf(guest + g, sizeof guest - g, "/f");
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  /* Room for 150 more descriptors: fewer than the path's levels. */
  struct rlimit saved, low;
  getrlimit(RLIMIT_NOFILE, &saved);
  int probe = open("/dev/null", O_RDONLY);
  close(probe);
  low = saved;
  low.rlim_cur = (rlim_t)probe + 150;
  CHECK_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  CHECK_EQ(g_open(wasi, &m, guest, WASI_OFLAGS_CREAT, WASI_RIGHTS_FD_WRITE, 0,
                  0, NULL),
           WASI_ENAMETOOLONG);
  int after = open("/dev/null", O_RDONLY); /* nothing left held */
  CHECK_EQ(after, probe);
  close(after);
  setrlimit(RLIMIT_NOFILE, &saved);
  free(m.base);
  wtp_wasi_release(wasi);
  for (int i = LEVELS; i > 0; i--) {
    rmdir(host);
    *strrchr(host, '/') = '\0';
  }
}

/* A path is copied out of shared memory before it is checked: another
 * guest thread flipping its last byte between 'b' and NUL can make the
 * call see "...ab" (ENOENT here) or a NUL (EINVAL), never the path cut at
 * the NUL ("...a", a file that exists). Not under TSan: the guest's racing
 * write is the point, and TSan would report it. */

#ifndef UNDER_TSAN
typedef struct flipper {
  volatile uint8_t *byte;
  atomic_int stop;
} flipper;

static void *flip(void *arg) {
  flipper *f = arg;
  while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
    *f->byte = 'b';
    *f->byte = '\0';
  }
  return NULL;
}
#endif

static void test_path_copied_before_check(void) {
#ifdef UNDER_TSAN
  return;
#else
  char cut[128];
  in_dir(cut, sizeof cut, "a");
  int host = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(host);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  size_t len = 0;
  while (len + 2 < 4000) memcpy(m.base + PATH + len, "./", 2), len += 2;
  memcpy(m.base + PATH + len, "ab", 2), len += 2;
  flipper f = {m.base + PATH + len - 1, 0};
  pthread_t thread;
  pthread_create(&thread, NULL, flip, &f);
  int opened = 0, other = 0;
  double until = now_ms() + 1500;
  for (int i = 0; i < 20000 && now_ms() < until; i++) {
    uint32_t err = CALL(wasi, &m, "path_open", 3, 0, PATH, len, 0,
                        WASI_RIGHTS_FD_READ, 0, 0, RESULT);
    if (err == 0) {
      opened++;
      CALL(wasi, &m, "fd_close", wtp__wasi_load32(&m, RESULT));
    } else if (err != WASI_ENOENT && err != WASI_EINVAL) {
      other++;
    }
  }
  atomic_store(&f.stop, 1);
  pthread_join(thread, NULL);
  CHECK_EQ(opened, 0);
  CHECK_EQ(other, 0);
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(cut);
#endif
}

/* A FIFO reader's open waits for a writer on a wake-up: a writer that opens
 * and closes at once is not missed (it was, between two looks 10 ms apart).
 * The reader's open then returns and its read sees the end of file. */
typedef struct fifo_reader {
  wtp_wasi *wasi;
  wtp_wasi_memory *m;
  uint32_t err;
  atomic_int done;
} fifo_reader;

static void *fifo_open_reader(void *arg) {
  fifo_reader *r = arg;
  r->err = g_open(r->wasi, r->m, "fifo", 0, WASI_RIGHTS_FD_READ, 0, 0, NULL);
  atomic_store(&r->done, 1);
  return NULL;
}

static void test_fifo_writer_in_and_out(void) {
#ifdef __linux__
  char fifo[128];
  in_dir(fifo, sizeof fifo, "fifo");
  CHECK_EQ(mkfifo(fifo, 0600), 0);
  wtp_wasi *wasi = make_wasi(-1, -1, -1, dir);
  wtp_wasi_memory m = guest_memory(MEM);
  fifo_reader r = {wasi, &m, UINT32_MAX, 0};
  pthread_t thread;
  pthread_create(&thread, NULL, fifo_open_reader, &r);
  /* Until the reader is waiting in its open: a non-blocking writer's open
   * succeeds once the reader's description is there. */
  int writer = -1;
  double until = now_ms() + 10000;
  while (writer < 0 && now_ms() < until) {
    writer = open(fifo, O_WRONLY | O_NONBLOCK);
    if (writer < 0) sleep_ms(1);
  }
  CHECK(writer >= 0);
  if (writer >= 0) close(writer); /* in and out at once */
  until = now_ms() + 5000;
  while (!atomic_load(&r.done) && now_ms() < until) sleep_ms(5);
  CHECK(atomic_load(&r.done));
  wtp_wasi_stop(wasi); /* ends the open if it is still waiting */
  pthread_join(thread, NULL);
  CHECK_EQ(r.err, 0);
  if (r.err == 0) {
    uint32_t fd = wtp__wasi_load32(&m, RESULT);
    put_iovec(&m, IOV, DATA, 8);
    CHECK_EQ(CALL(wasi, &m, "fd_read", fd, IOV, 1, RESULT), 0);
    CHECK_EQ(wtp__wasi_load32(&m, RESULT), 0); /* the end of file */
  }
  free(m.base);
  wtp_wasi_release(wasi);
  unlink(fifo);
#endif
}

/* poll_oneoff reads each subscription's tag once: a guest thread flipping
 * one between CLOCK (0) and an invalid 7 gets EINVAL or a clock event,
 * never an event of type 7 (a tag checked, then read again). */
#ifndef UNDER_TSAN
typedef struct tag_flipper {
  volatile uint8_t *tag;
  atomic_int stop;
} tag_flipper;

static void *flip_tag(void *arg) {
  tag_flipper *f = arg;
  while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
    *f->tag = 7;
    *f->tag = WASI_EVENTTYPE_CLOCK;
  }
  return NULL;
}
#endif

static void test_poll_tag_read_once(void) {
#ifdef UNDER_TSAN
  return;
#else
  enum { SUBS = 64, SUB = 48, EVENTS = 4096, NEVENTS = 8000 };
  wtp_wasi *wasi = make_wasi(-1, -1, -1, NULL);
  wtp_wasi_memory m = guest_memory(MEM);
  for (int i = 0; i < SUBS; i++) {
    uint64_t at = (uint64_t)i * SUB;
    memset(m.base + at, 0, SUB);
    wtp__wasi_store64(&m, at, (uint64_t)i); /* userdata */
    m.base[at + 8] = WASI_EVENTTYPE_CLOCK;
    wtp__wasi_store32(&m, at + 16, WASI_CLOCK_MONOTONIC);
    wtp__wasi_store64(&m, at + 24, 0); /* due at once */
  }
  tag_flipper f = {m.base + (uint64_t)(SUBS - 1) * SUB + 8, 0};
  pthread_t thread;
  pthread_create(&thread, NULL, flip_tag, &f);
  int strange = 0;
  double until = now_ms() + 1500;
  for (int i = 0; i < 20000 && now_ms() < until; i++) {
    uint32_t err = CALL(wasi, &m, "poll_oneoff", 0, EVENTS, SUBS, NEVENTS);
    if (err == WASI_EINVAL) continue;
    if (err != 0) {
      strange++;
      continue;
    }
    uint32_t n = wtp__wasi_load32(&m, NEVENTS);
    for (uint32_t e = 0; e < n; e++)
      if (m.base[EVENTS + e * 32 + 10] != WASI_EVENTTYPE_CLOCK) strange++;
  }
  atomic_store(&f.stop, 1);
  pthread_join(thread, NULL);
  CHECK_EQ(strange, 0);
  free(m.base);
  wtp_wasi_release(wasi);
#endif
}

static void run_all(void) {
  RUN(test_stdio_flags_stay_in_program);
  RUN(test_append_per_descriptor);
  RUN(test_append_without_pwritev2);
  RUN(test_append_only_file);
  RUN(test_dev_null_is_no_terminal);
  RUN(test_dev_null_by_path_is_no_terminal);
  RUN(test_directory_rights);
  RUN(test_narrowing);
  RUN(test_truncate_read_only);
  RUN(test_inheriting_governs_open);
  RUN(test_walk_depth_bounded);
  RUN(test_path_copied_before_check);
  RUN(test_fifo_writer_in_and_out);
  RUN(test_poll_tag_read_once);
}

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  signal(SIGPIPE, SIG_IGN); /* as Node does */
  temp_dir(dir, sizeof dir);
  if (wtp__wasi_path_force_walk(0)) {
    fprintf(stderr, "-- resolver: openat2\n");
    run_all();
  }
  wtp__wasi_path_force_walk(1);
  walk_pass = 1;
  fprintf(stderr, "-- resolver: walk\n");
  run_all();
  rmdir(dir);
  return harness_summary("test_wasi_rights");
}
