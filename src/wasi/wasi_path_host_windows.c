/* wasi_path_host_windows.c: the path calls' host operations on Windows
 * (wasi_path_host.h). Each opens the resolved entry relative to the handle
 * of its directory (wasi_path_windows.c: the sandbox) with
 * FILE_OPEN_REPARSE_POINT, so a final link is acted on itself and never
 * followed, and acts through the handle: NtSetInformationFile for delete,
 * rename and hard link, FSCTL_*_REPARSE_POINT for symbolic links,
 * NtQueryDirectoryFile for fd_readdir. No call here takes a path name of
 * the host.
 *
 * Where Windows gives no POSIX answer, the answer is wasmtime's on Windows
 * (docs/runner.md, "The sandbox on Windows"):
 *   - filestat: dev is the volume serial number, ino the file index, nlink
 *     the link count; ctim is the change time; times are ns since 1970;
 *   - path_symlink without the privilege to make symbolic links
 *     (SeCreateSymbolicLinkPrivilege): EPERM. The developer mode's
 *     unprivileged creation (CreateSymbolicLinkW) is not used: it takes a
 *     path name, which a concurrent rename could send outside the sandbox.
 *     A link to a directory is made as a directory link (Windows needs the
 *     kind): the target is resolved beneath the link's directory when it
 *     is made; one that does not exist yet, or that only a ".." above that
 *     directory reaches, becomes a file link;
 *   - unlink and rmdir use POSIX semantics where Windows has them (the name
 *     goes at once, also while the file is open elsewhere), else the
 *     classic delete-on-close (the name stays until the last handle goes);
 *   - rename replaces an existing target (POSIX semantics where Windows has
 *     them); replacing a directory is refused by Windows (EACCES).
 *   - path_open: no permission bits (a new file is a normal file); a
 *     directory asked with write rights answers EISDIR. */
#ifdef _WIN32

#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_internal.h"
#include "wasi_path_host.h"
#include "wasi_path_windows.h"

#ifndef FSCTL_SET_REPARSE_POINT
#define FSCTL_SET_REPARSE_POINT 0x000900A4
#endif
/* FILE_INFORMATION_CLASS values and flags newer than MinGW-w64's headers. */
#define CLASS_DISPOSITION_EX ((FILE_INFORMATION_CLASS)64)
#define CLASS_RENAME_EX ((FILE_INFORMATION_CLASS)65)
#define CLASS_RENAME ((FILE_INFORMATION_CLASS)10)
#define CLASS_LINK ((FILE_INFORMATION_CLASS)11)
#define CLASS_DISPOSITION ((FILE_INFORMATION_CLASS)13)
#define CLASS_ID_BOTH_DIR ((FILE_INFORMATION_CLASS)37)
#define DISPOSITION_DELETE 0x1
#define DISPOSITION_POSIX 0x2
#define RENAME_REPLACE 0x1
#define RENAME_POSIX 0x2
#define STATUS_NO_MORE_FILES_ ((NTSTATUS)0x80000006L)

NTSTATUS NTAPI NtQueryDirectoryFile(HANDLE file, HANDLE event,
                                    PIO_APC_ROUTINE apc, PVOID apc_context,
                                    PIO_STATUS_BLOCK io, PVOID info,
                                    ULONG length, FILE_INFORMATION_CLASS cls,
                                    BOOLEAN single, PUNICODE_STRING name,
                                    BOOLEAN restart);

static HANDLE dir_of(const wtp__wasi_at *at) {
  return WTP__WASI_HANDLE(at->dir);
}

/* The name to open: "." is the directory itself (an empty name). */
static const char *name_of(const wtp__wasi_at *at) {
  return strcmp(at->name, ".") == 0 ? "" : at->name;
}

static int is_dot(const wtp__wasi_at *at) { return strcmp(at->name, ".") == 0; }

/* Opens at's entry itself with access (never followed). */
static uint32_t open_at(const wtp__wasi_at *at, ACCESS_MASK access,
                        ULONG options, HANDLE *h) {
  uint32_t err = wtp__wasi_nt_open(dir_of(at), name_of(at), access, FILE_OPEN,
                                   options, 0, h);
  /* Under Wine, a Unix link was followed by the open (or the entry is not
   * what was opened, or Wine, which renames, links and deletes by the name
   * it stored, stored another): act on nothing. */
  if (!err && (err = wtp__wasi_wine_check(dir_of(at), name_of(at), *h, 1))) {
    CloseHandle(*h);
    if (err == WASI_ELOOP) err = WASI_EPERM;
  }
  return err;
}

/* What an open handle is: 1 if a link, and whether a directory. */
static uint32_t kind_of(HANDLE h, int *link, int *dir) {
  ULONG attributes, tag;
  uint32_t err = wtp__wasi_nt_tag(h, &attributes, &tag);
  if (err) return err;
  *link = wtp__wasi_nt_is_link(attributes, tag);
  *dir = (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
  return WASI_ESUCCESS;
}

static uint8_t filetype_of(HANDLE h, int link, int dir) {
  if (link) return WASI_FILETYPE_SYMBOLIC_LINK;
  if (dir) return WASI_FILETYPE_DIRECTORY;
  switch (GetFileType(h)) {
    case FILE_TYPE_DISK:
      return WASI_FILETYPE_REGULAR_FILE;
    case FILE_TYPE_CHAR:
      return WASI_FILETYPE_CHARACTER_DEVICE;
    default:
      return WASI_FILETYPE_UNKNOWN;
  }
}

/* ---- filestat ---- */

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* 100 ns units since 1601 (FILETIME, LARGE_INTEGER times) to ns since 1970;
 * 0 for a time before 1970. */
#define EPOCH_DIFF_100NS 116444736000000000ULL
static uint64_t unix_ns(int64_t t) {
  uint64_t u = (uint64_t)t;
  return t <= 0 || u <= EPOCH_DIFF_100NS ? 0 : (u - EPOCH_DIFF_100NS) * 100u;
}

uint32_t wtp__wasi_host_stat_at(const wtp__wasi_at *at,
                                uint8_t filestat[WTP__WASI_FILESTAT_SIZE]) {
  HANDLE h;
  uint32_t err = open_at(at, FILE_READ_ATTRIBUTES, 0, &h);
  if (err) return err;
  BY_HANDLE_FILE_INFORMATION info;
  FILE_BASIC_INFO basic;
  int link = 0, dir = 0;
  if (!GetFileInformationByHandle(h, &info) ||
      !GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof basic))
    err = wtp__wasi_win_errno(GetLastError());
  else
    err = kind_of(h, &link, &dir);
  if (!err) {
    memset(filestat, 0, WTP__WASI_FILESTAT_SIZE);
    put64(filestat + 0, info.dwVolumeSerialNumber);
    put64(filestat + 8,
          (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow);
    filestat[16] = filetype_of(h, link, dir);
    put64(filestat + 24, info.nNumberOfLinks);
    put64(filestat + 32,
          (uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow);
    put64(filestat + 40, unix_ns(basic.LastAccessTime.QuadPart));
    put64(filestat + 48, unix_ns(basic.LastWriteTime.QuadPart));
    put64(filestat + 56, unix_ns(basic.ChangeTime.QuadPart));
  }
  CloseHandle(h);
  return err;
}

uint32_t wtp__wasi_host_set_times_at(const wtp__wasi_at *at, uint64_t atim,
                                     uint64_t mtim, uint32_t fstflags) {
  HANDLE h;
  uint32_t err = open_at(at, FILE_WRITE_ATTRIBUTES, 0, &h);
  if (err) return err;
  FILETIME now;
  GetSystemTimeAsFileTime(&now);
  int64_t now_100ns =
      (int64_t)((uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime);
  FILE_BASIC_INFO basic;
  memset(&basic, 0, sizeof basic); /* 0: leave that time alone */
  if (fstflags & WASI_FSTFLAGS_ATIM_NOW)
    basic.LastAccessTime.QuadPart = now_100ns;
  else if (fstflags & WASI_FSTFLAGS_ATIM)
    basic.LastAccessTime.QuadPart = (int64_t)(atim / 100u + EPOCH_DIFF_100NS);
  if (fstflags & WASI_FSTFLAGS_MTIM_NOW)
    basic.LastWriteTime.QuadPart = now_100ns;
  else if (fstflags & WASI_FSTFLAGS_MTIM)
    basic.LastWriteTime.QuadPart = (int64_t)(mtim / 100u + EPOCH_DIFF_100NS);
  if (!SetFileInformationByHandle(h, FileBasicInfo, &basic, sizeof basic))
    err = wtp__wasi_win_errno(GetLastError());
  CloseHandle(h);
  return err;
}

/* ---- directories, files, links ---- */

uint32_t wtp__wasi_host_mkdir_at(const wtp__wasi_at *at) {
  if (is_dot(at)) return WASI_EEXIST;
  HANDLE h;
  uint32_t err =
      wtp__wasi_nt_open(dir_of(at), at->name, FILE_LIST_DIRECTORY, FILE_CREATE,
                        FILE_DIRECTORY_FILE, FILE_ATTRIBUTE_NORMAL, &h);
  if (!err) CloseHandle(h);
  return err;
}

/* Deletes the entry h is open on (with DELETE access). */
static uint32_t delete_handle(HANDLE h) {
  IO_STATUS_BLOCK io;
  ULONG flags = DISPOSITION_DELETE | DISPOSITION_POSIX;
  NTSTATUS st =
      NtSetInformationFile(h, &io, &flags, sizeof flags, CLASS_DISPOSITION_EX);
  if (st >= 0) return WASI_ESUCCESS;
  /* Before Windows 10 1709 (and Wine where it lacks the class): the
   * classic disposition. */
  if ((ULONG)st == 0xC0000003UL /* STATUS_INVALID_INFO_CLASS */ ||
      (ULONG)st == 0xC000000DUL /* STATUS_INVALID_PARAMETER */ ||
      (ULONG)st == 0xC00000BBUL /* STATUS_NOT_SUPPORTED */ ||
      (ULONG)st == 0xC0000002UL /* STATUS_NOT_IMPLEMENTED */) {
    BOOLEAN delete_file = TRUE; /* FILE_DISPOSITION_INFORMATION */
    st = NtSetInformationFile(h, &io, &delete_file, sizeof delete_file,
                              CLASS_DISPOSITION);
  }
  return st < 0 ? wtp__wasi_path_nt_errno(st) : WASI_ESUCCESS;
}

/* Opens at's entry for deletion and removes it if it is (want_dir) or is
 * not a directory; a link is never a directory here. */
static uint32_t remove_at(const wtp__wasi_at *at, int want_dir) {
  HANDLE h;
  uint32_t err = open_at(at, DELETE | FILE_READ_ATTRIBUTES, 0, &h);
  if (err) return err;
  int link = 0, dir = 0;
  err = kind_of(h, &link, &dir);
  if (!err && want_dir && (link || !dir)) err = WASI_ENOTDIR;
  if (!err && !want_dir && dir && !link) err = WASI_EISDIR;
  if (!err) err = delete_handle(h);
  CloseHandle(h);
  return err;
}

uint32_t wtp__wasi_host_rmdir_at(const wtp__wasi_at *at) {
  if (is_dot(at)) return WASI_EINVAL; /* as rmdir(".") */
  return remove_at(at, 1);
}

uint32_t wtp__wasi_host_unlink_at(const wtp__wasi_at *at) {
  if (is_dot(at)) return WASI_EISDIR;
  return remove_at(at, 0);
}

/* FILE_RENAME_INFORMATION and FILE_LINK_INFORMATION share this layout (the
 * first word: ReplaceIfExists, or the Ex classes' flags). */
typedef struct rename_info {
  ULONG flags;
  HANDLE root;
  ULONG length;
  WCHAR name[256];
} rename_info;

static uint32_t fill_rename(rename_info *info, const wtp__wasi_at *to,
                            ULONG flags) {
  info->flags = flags;
  info->root = dir_of(to);
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, to->name, -1,
                              info->name, 256);
  if (n <= 1) return WASI_ENAMETOOLONG;
  info->length = (ULONG)((n - 1) * sizeof(WCHAR));
  return WASI_ESUCCESS;
}

/* 1 if the directory has an entry besides "." and "..". */
static int dir_has_entries(HANDLE dir) {
  unsigned char buf[1024];
  IO_STATUS_BLOCK io;
  for (BOOLEAN restart = TRUE;; restart = FALSE) {
    NTSTATUS st =
        NtQueryDirectoryFile(dir, NULL, NULL, NULL, &io, buf, sizeof buf,
                             CLASS_ID_BOTH_DIR, FALSE, NULL, restart);
    /* An error: 0, and the rename gets Windows' answer. */
    if (st < 0 || st == STATUS_NO_MORE_FILES_) return 0;
    for (size_t pos = 0;;) {
      const FILE_ID_BOTH_DIR_INFO *e = (const void *)(buf + pos);
      size_t n = e->FileNameLength / sizeof(WCHAR);
      int dots = (n == 1 && e->FileName[0] == L'.') ||
                 (n == 2 && e->FileName[0] == L'.' && e->FileName[1] == L'.');
      if (!dots) return 1;
      if (e->NextEntryOffset == 0) break;
      pos += e->NextEntryOffset;
    }
  }
}

/* rename(2)'s answers where Windows has others (wasmtime gives the POSIX
 * ones on Windows too): a file onto a directory EISDIR, a directory onto a
 * non-directory ENOTDIR, onto a directory with entries ENOTEMPTY. Windows
 * itself would replace a file by a directory, and answers EACCES for the
 * others. A missing target: nothing to check. The check and the rename are
 * two steps: a target changed between them by another thread or process
 * gets Windows' answer. */
static uint32_t rename_target_check(const wtp__wasi_at *to, int from_dir) {
  HANDLE h;
  if (open_at(to, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, 0, &h) &&
      open_at(to, FILE_READ_ATTRIBUTES, 0, &h))
    return WASI_ESUCCESS;
  int link = 0, dir = 0;
  uint32_t err = kind_of(h, &link, &dir);
  if (!err) {
    dir = dir && !link;
    if (!from_dir && dir)
      err = WASI_EISDIR;
    else if (from_dir && !dir)
      err = WASI_ENOTDIR;
    else if (from_dir && dir_has_entries(h))
      err = WASI_ENOTEMPTY;
  }
  CloseHandle(h);
  return err;
}

uint32_t wtp__wasi_host_rename_at(const wtp__wasi_at *from,
                                  const wtp__wasi_at *to) {
  if (is_dot(from) || is_dot(to)) return WASI_EBUSY;
  HANDLE h;
  uint32_t err = open_at(from, DELETE | FILE_READ_ATTRIBUTES, 0, &h);
  if (err) return err;
  int link = 0, dir = 0;
  err = kind_of(h, &link, &dir);
  if (!err) err = rename_target_check(to, dir && !link);
  rename_info info;
  if (!err) err = fill_rename(&info, to, RENAME_REPLACE | RENAME_POSIX);
  if (!err) {
    IO_STATUS_BLOCK io;
    ULONG size = (ULONG)(offsetof(rename_info, name) + info.length);
    NTSTATUS st = NtSetInformationFile(h, &io, &info, size, CLASS_RENAME_EX);
    if ((ULONG)st == 0xC0000003UL || (ULONG)st == 0xC000000DUL ||
        (ULONG)st == 0xC00000BBUL || (ULONG)st == 0xC0000002UL) {
      info.flags = TRUE; /* ReplaceIfExists */
      st = NtSetInformationFile(h, &io, &info, size, CLASS_RENAME);
    }
    if (st < 0) err = wtp__wasi_path_nt_errno(st);
  }
  CloseHandle(h);
  return err;
}

uint32_t wtp__wasi_host_link_at(const wtp__wasi_at *from,
                                const wtp__wasi_at *to) {
  HANDLE h;
  uint32_t err =
      open_at(from, FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, 0, &h);
  if (err) return err;
  int link = 0, dir = 0;
  err = kind_of(h, &link, &dir);
  if (!err && dir && !link) err = WASI_EPERM; /* as link(2) on a directory */
  rename_info info;
  if (!err) err = fill_rename(&info, to, FALSE);
  if (!err) {
    IO_STATUS_BLOCK io;
    NTSTATUS st = NtSetInformationFile(
        h, &io, &info, (ULONG)(offsetof(rename_info, name) + info.length),
        CLASS_LINK);
    if (st < 0) err = wtp__wasi_path_nt_errno(st);
  }
  CloseHandle(h);
  return err;
}

/* 1 if target (relative to at's directory, inside the sandbox) names a
 * directory now. */
static int target_is_dir(const wtp__wasi_at *at, const char *target) {
  size_t len = strlen(target);
  if (len && target[len - 1] == '/') return 1;
  wtp__wasi_at t;
  if (wtp__wasi_beneath_resolve(at->dir, target, 1, &t)) return 0;
  uint8_t filestat[WTP__WASI_FILESTAT_SIZE];
  int dir = wtp__wasi_host_stat_at(&t, filestat) == 0 &&
            filestat[16] == WASI_FILETYPE_DIRECTORY;
  wtp__wasi_at_close(&t);
  return dir;
}

uint32_t wtp__wasi_host_symlink_at(const char *target, const wtp__wasi_at *at) {
  if (is_dot(at)) return WASI_EEXIST;
  WCHAR wide[WTP__WASI_PATH_MAX + 1];
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, target, -1, wide,
                              WTP__WASI_PATH_MAX + 1);
  if (n <= 1) return n == 1 ? WASI_ENOENT : WASI_ENAMETOOLONG;
  n--;
  for (int i = 0; i < n; i++)
    if (wide[i] == L'/') wide[i] = L'\\'; /* Windows' separator */
  int dir = target_is_dir(at, target);
  HANDLE h;
  uint32_t err = wtp__wasi_nt_open(
      dir_of(at), at->name, FILE_WRITE_ATTRIBUTES | DELETE, FILE_CREATE,
      dir ? FILE_DIRECTORY_FILE : FILE_NON_DIRECTORY_FILE,
      FILE_ATTRIBUTE_NORMAL, &h);
  if (err) return err;
  /* The reparse point: header, then the symbolic link's fields, then the
   * substitute name and the print name (the same text). */
  size_t text = (size_t)n * sizeof(WCHAR);
  size_t fields = 12; /* four USHORT offsets and lengths, ULONG flags */
  size_t size = 8 + fields + 2 * text;
  unsigned char *buf = calloc(1, size);
  if (!buf) {
    delete_handle(h);
    CloseHandle(h);
    return WASI_ENOMEM;
  }
  ULONG tag = WTP__TAG_SYMLINK, flags = WTP__SYMLINK_FLAG_RELATIVE;
  USHORT data_length = (USHORT)(fields + 2 * text);
  USHORT offsets[4] = {0, (USHORT)text, (USHORT)text, (USHORT)text};
  memcpy(buf, &tag, 4);
  memcpy(buf + 4, &data_length, 2);
  memcpy(buf + 8, offsets, sizeof offsets);
  memcpy(buf + 16, &flags, 4);
  memcpy(buf + 20, wide, text);
  memcpy(buf + 20 + text, wide, text);
  DWORD got;
  if (!DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, buf, (DWORD)size, NULL, 0,
                       &got, NULL)) {
    err = wtp__wasi_win_errno(GetLastError());
    delete_handle(h); /* no half-made link stays */
  }
  free(buf);
  CloseHandle(h);
  return err;
}

uint32_t wtp__wasi_host_readlink_at(const wtp__wasi_at *at, char *buf,
                                    size_t size, size_t *len) {
  HANDLE h;
  uint32_t err = open_at(at, FILE_READ_ATTRIBUTES, 0, &h);
  if (err) return err;
  int relative;
  err = wtp__wasi_nt_readlink(h, buf, size, len, &relative);
  CloseHandle(h);
  return err;
}

/* ---- path_open ---- */

static int ends_in_slash(const char *path) {
  size_t len = strlen(path);
  return len && path[len - 1] == '/';
}

/* The access path_open asks of Windows for the rights (as POSIX's
 * open_flags: read rights read, write rights, APPEND or TRUNC write). */
static ACCESS_MASK open_access(uint32_t oflags, uint16_t fdflags,
                               uint64_t rights, int *writes) {
  const uint64_t read_rights = WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_READDIR;
  const uint64_t write_rights = WASI_RIGHTS_FD_DATASYNC | WASI_RIGHTS_FD_WRITE |
                                WASI_RIGHTS_FD_ALLOCATE |
                                WASI_RIGHTS_FD_FILESTAT_SET_SIZE;
  ACCESS_MASK access = FILE_READ_ATTRIBUTES;
  if (rights & WASI_RIGHTS_FD_FILESTAT_SET_TIMES)
    access |= FILE_WRITE_ATTRIBUTES;
  if (rights & read_rights) access |= FILE_GENERIC_READ;
  *writes = (rights & write_rights) != 0 || (fdflags & WASI_FDFLAGS_APPEND) ||
            (oflags & WASI_OFLAGS_TRUNC);
  if (*writes) access |= FILE_GENERIC_WRITE;
  return access;
}

/* Opens at's entry itself; FILE_OPEN_IF is made of FILE_OPEN, then
 * FILE_CREATE if there was nothing, so that a dangling link is never
 * followed to make its target (Wine does that for FILE_OPEN_IF): a name
 * that neither opens nor can be made is such a link, ELOOP as O_NOFOLLOW. */
static uint32_t open_entry(const wtp__wasi_at *at, ACCESS_MASK access,
                           ULONG disposition, ULONG options, HANDLE *h) {
  if (disposition != FILE_OPEN_IF)
    return wtp__wasi_nt_open(dir_of(at), name_of(at), access, disposition,
                             options, FILE_ATTRIBUTE_NORMAL, h);
  for (int tries = 0; tries < 3; tries++) {
    uint32_t err = wtp__wasi_nt_open(dir_of(at), name_of(at), access, FILE_OPEN,
                                     options, 0, h);
    if (err != WASI_ENOENT) return err;
    err = wtp__wasi_nt_open(dir_of(at), name_of(at), access, FILE_CREATE,
                            options, FILE_ATTRIBUTE_NORMAL, h);
    if (err != WASI_EEXIST) return err;
  }
  return WASI_ELOOP;
}

/* One try: resolves, opens the final entry itself, and answers ELOOP (as
 * O_NOFOLLOW) if it is a link; *again if it was a link the walk was asked to
 * follow (swapped in after the walk looked). */
static uint32_t open_once(int base, const char *path, int follow_final,
                          ACCESS_MASK access, ULONG disposition, ULONG options,
                          uint32_t oflags, HANDLE *out, int *again) {
  wtp__wasi_at at;
  *again = 0;
  uint32_t err = wtp__wasi_beneath_resolve(base, path, follow_final, &at);
  if (err) return err;
  if (at.trailing_slash && (oflags & WASI_OFLAGS_CREAT)) {
    wtp__wasi_at_close(&at);
    return WASI_EISDIR;
  }
  if (is_dot(&at) && (oflags & WASI_OFLAGS_EXCL)) {
    wtp__wasi_at_close(&at);
    return WASI_EEXIST;
  }
  if (at.trailing_slash)
    options = (options & ~FILE_NON_DIRECTORY_FILE) | FILE_DIRECTORY_FILE;
  HANDLE h;
  err = open_entry(&at, access, disposition, options, &h);
  int link = 0, dir = 0;
  if (!err) {
    /* Under Wine a Unix link is followed by the open itself: a link. */
    err = wtp__wasi_wine_check(dir_of(&at), name_of(&at), h, 0);
    if (err == WASI_ELOOP) link = 1, err = WASI_ESUCCESS;
    if (!err && !link) err = kind_of(h, &link, &dir);
    if (!err && link) {
      *again = follow_final;
      err = WASI_ELOOP;
    }
    if (err) CloseHandle(h);
  }
  wtp__wasi_at_close(&at);
  if (!err) *out = h;
  return err;
}

uint32_t wtp__wasi_host_open(wtp_wasi *wasi, int base, const char *path,
                             uint32_t oflags, uint16_t fdflags,
                             uint64_t rights_base, int follow, int *host_fd,
                             uint8_t *filetype) {
  (void)wasi; /* no waits: Windows has no FIFOs */
  int writes;
  ACCESS_MASK access = open_access(oflags, fdflags, rights_base, &writes);
  ULONG options = 0, disposition = FILE_OPEN;
  int as_dir = (oflags & WASI_OFLAGS_DIRECTORY) != 0;
  if (as_dir) {
    options |= FILE_DIRECTORY_FILE;
    /* Asked with write rights: the directory's answer is EISDIR (below). */
    access = (access & ~FILE_GENERIC_WRITE) | FILE_LIST_DIRECTORY |
             FILE_TRAVERSE | FILE_READ_ATTRIBUTES;
  } else if (writes) {
    options |= FILE_NON_DIRECTORY_FILE;
  }
  if (fdflags & (WASI_FDFLAGS_DSYNC | WASI_FDFLAGS_SYNC | WASI_FDFLAGS_RSYNC))
    options |= FILE_WRITE_THROUGH;
  int exclusive = (oflags & (WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL)) ==
                  (WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL);
  if (exclusive)
    disposition = FILE_CREATE;
  else if (oflags & WASI_OFLAGS_CREAT)
    disposition = FILE_OPEN_IF;
  /* O_CREAT | O_EXCL never follows a final link (EEXIST). */
  int follow_final = (follow && !exclusive) || ends_in_slash(path);
  HANDLE h = NULL;
  uint32_t err;
  for (int tries = 0;; tries++) {
    int again;
    err = open_once(base, path, follow_final, access, disposition, options,
                    oflags, &h, &again);
    if (!(again && tries < 3)) break;
  }
  if (err) return err;
  int link = 0, dir = 0;
  err = kind_of(h, &link, &dir);
  if (!err && dir && as_dir && writes) err = WASI_EISDIR;
  /* TRUNC after the open, on the file itself (never a link's target). */
  if (!err && (oflags & WASI_OFLAGS_TRUNC) && !dir) {
    FILE_END_OF_FILE_INFO eof;
    eof.EndOfFile.QuadPart = 0;
    if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof eof))
      err = wtp__wasi_win_errno(GetLastError());
  }
  if (err) {
    CloseHandle(h);
    return err;
  }
  *filetype = filetype_of(h, link, dir);
  *host_fd = WTP__WASI_FD(h);
  return WASI_ESUCCESS;
}

/* ---- fd_readdir's listing ---- */

#define LISTING_BUF (64 * 1024)

struct wtp__wasi_host_dir {
  HANDLE h;    /* a handle of its own: the listing's position is its */
  int restart; /* the next query starts from the first entry */
  int end;     /* the last query said there is no more */
  size_t pos, len;
  unsigned char buf[LISTING_BUF];
};

uint32_t wtp__wasi_host_dir_open(int host_fd, wtp__wasi_host_dir **out) {
  wtp__wasi_host_dir *d = calloc(1, sizeof *d);
  if (!d) return WASI_ENOMEM;
  uint32_t err =
      wtp__wasi_nt_open(WTP__WASI_HANDLE(host_fd), "", FILE_LIST_DIRECTORY,
                        FILE_OPEN, FILE_DIRECTORY_FILE, 0, &d->h);
  if (err) {
    free(d);
    return err;
  }
  d->restart = 1;
  *out = d;
  return WASI_ESUCCESS;
}

static int refill(wtp__wasi_host_dir *d) {
  IO_STATUS_BLOCK io;
  NTSTATUS st = NtQueryDirectoryFile(d->h, NULL, NULL, NULL, &io, d->buf,
                                     sizeof d->buf, CLASS_ID_BOTH_DIR, FALSE,
                                     NULL, d->restart ? TRUE : FALSE);
  d->restart = 0;
  d->pos = d->len = 0;
  if (st == STATUS_NO_MORE_FILES_) {
    d->end = 1;
    return 0;
  }
  if (st < 0) return -(int)wtp__wasi_path_nt_errno(st);
  d->len = io.Information;
  return d->len ? 1 : (d->end = 1, 0);
}

int wtp__wasi_host_dir_next(wtp__wasi_host_dir *d, wtp__wasi_dirent *out) {
  if (d->pos >= d->len) {
    if (d->end) return 0;
    int r = refill(d);
    if (r <= 0) return r;
  }
  const FILE_ID_BOTH_DIR_INFORMATION *e =
      (const FILE_ID_BOTH_DIR_INFORMATION *)(d->buf + d->pos);
  d->pos = e->NextEntryOffset ? d->pos + e->NextEntryOffset : d->len;
  int n = WideCharToMultiByte(CP_UTF8, 0, e->FileName,
                              (int)(e->FileNameLength / sizeof(WCHAR)),
                              out->name, (int)sizeof out->name - 1, NULL, NULL);
  if (n < 0) n = 0;
  out->name[n] = '\0';
  out->name_len = (uint32_t)n;
  out->ino = (uint64_t)e->FileId.QuadPart;
  /* With FILE_ATTRIBUTE_REPARSE_POINT, EaSize holds the reparse tag. */
  if (wtp__wasi_nt_is_link(e->FileAttributes, e->EaSize))
    out->type = WASI_FILETYPE_SYMBOLIC_LINK;
  else if (e->FileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    out->type = WASI_FILETYPE_DIRECTORY;
  else
    out->type = WASI_FILETYPE_REGULAR_FILE;
  return 1;
}

uint32_t wtp__wasi_host_dir_rewind(wtp__wasi_host_dir *d) {
  d->restart = 1, d->end = 0, d->pos = d->len = 0;
  return WASI_ESUCCESS;
}

void wtp__wasi_host_dir_close(wtp__wasi_host_dir *d) {
  CloseHandle(d->h);
  free(d);
}

#endif /* _WIN32 */
