/* wasi_path_windows.h: what the Windows sandbox (wasi_path_windows.c) and
 * the Windows path calls' host operations (wasi_path_host_windows.c) share:
 * NT opens relative to a directory handle, reparse points, NTSTATUS errors.
 * A host descriptor is HandleToLong(HANDLE) (w30.md's convention: 64-bit
 * Windows handles are 32-bit values by design). */
#ifndef WTP_WASI_PATH_WINDOWS_H
#define WTP_WASI_PATH_WINDOWS_H
#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winternl.h>
#include <stddef.h>
#include <stdint.h>

#include "wasi_path.h"

#define WTP__WASI_HANDLE(fd) LongToHandle(fd)
#define WTP__WASI_FD(handle) HandleToLong(handle)

/* Reparse tags and the symbolic link's relative flag (ntifs.h, which
 * MinGW-w64 lacks). */
#define WTP__TAG_SYMLINK 0xA000000CUL
#define WTP__TAG_MOUNT_POINT 0xA0000003UL
#define WTP__SYMLINK_FLAG_RELATIVE 1UL

/* An NTSTATUS of the path layer as a WASI errno: the statuses whose Win32
 * translation loses the POSIX meaning directly (a directory where a file
 * was asked: EISDIR, and so on), the others as wtp__wasi_nt_errno. */
uint32_t wtp__wasi_path_nt_errno(NTSTATUS status);
/* wasi_errno_windows.c (wasi_internal.h): a Win32 error, an NTSTATUS, as
 * WASI errnos through libuv. */
uint32_t wtp__wasi_win_errno(unsigned long win32_error);
uint32_t wtp__wasi_nt_errno(long ntstatus);

/* NtCreateFile of name (UTF-8, one component; "" reopens dir itself)
 * relative to the directory handle dir, never following a reparse point
 * (FILE_OPEN_REPARSE_POINT is always added, with
 * FILE_SYNCHRONOUS_IO_NONALERT), shared for read, write and delete.
 * Returns 0 and the handle, or a WASI errno. */
uint32_t wtp__wasi_nt_open(HANDLE dir, const char *name, ACCESS_MASK access,
                           ULONG disposition, ULONG options, ULONG attributes,
                           HANDLE *out);
/* The attributes and reparse tag (0 if none) of an open handle. */
uint32_t wtp__wasi_nt_tag(HANDLE h, ULONG *attributes, ULONG *tag);
/* 1 if a handle with these attributes and tag names another entry (a
 * symbolic link, a junction, any name-surrogate reparse point). */
int wtp__wasi_nt_is_link(ULONG attributes, ULONG tag);
/* The text of the symbolic link h (opened with FILE_OPEN_REPARSE_POINT):
 * UTF-8 with '/' separators, at most size - 1 bytes and a NUL, its length
 * in *len; *relative says whether Windows marks it relative. A junction
 * gives its print name, not relative. Anything else: EINVAL. */
uint32_t wtp__wasi_nt_readlink(HANDLE h, char *buf, size_t size, size_t *len,
                               int *relative);

/* Wine (the only Windows the tests run on) follows Unix symbolic links
 * inside NtCreateFile, FILE_OPEN_REPARSE_POINT or not, and shows nothing of
 * the link on the handle (test/wasi-c/WINE.md: measured on Wine 8); the
 * handle's name (FileNameInformation) is a string Wine stored when it
 * opened it, which a rename makes stale and a concurrent swap makes wrong.
 * So under Wine, and only there (detected once: ntdll's wine_get_version),
 * every open of a name relative to a directory is checked after the fact
 * by identity, on the Unix side (wasi_path_wine.c): the entry `name` of the
 * directory the walk holds, not followed, must be no link and be the very
 * file the handle is open on (same device and inode). A handle that is to
 * be renamed, linked or deleted (Wine does those by the name it stored)
 * must also have the stored name of the directory followed by `name`.
 *
 * wtp__wasi_wine_check answers 0 if h (opened as name relative to dir) is
 * that entry; WASI ELOOP if the entry is a symbolic link (whatever h is:
 * Wine followed it); EPERM if it is not what h is open on (it changed
 * meanwhile) or, with names, if Wine's stored names disagree; ENOTSUP where
 * Wine runs on a host these checks do not know (not Linux x86-64); another
 * errno if the entry cannot be looked at. Not under Wine: 0. */
int wtp__wasi_under_wine(void);
uint32_t wtp__wasi_wine_check(HANDLE dir, const char *name, HANDLE h,
                              int names);

/* wasi_path_wine.c: the Unix side under Wine on Linux x86-64 (WASI ENOTSUP
 * elsewhere). An entry's identity: its device and inode. */
typedef struct wtp__wasi_wine_id {
  uint64_t dev, ino;
} wtp__wasi_wine_id;
/* fstatat(dir's descriptor, name, AT_SYMLINK_NOFOLLOW): *link says whether
 * the entry is a symbolic link (then *id is the link's own). */
uint32_t wtp__wasi_wine_lstat_at(HANDLE dir, const char *name,
                                 wtp__wasi_wine_id *id, int *link);
/* fstat of the file h is open on. */
uint32_t wtp__wasi_wine_fstat(HANDLE h, wtp__wasi_wine_id *id);
/* readlinkat(dir's descriptor, name): the link's text, NUL-terminated, at
 * most size - 1 bytes (ENAMETOOLONG if longer); EINVAL if no link. */
uint32_t wtp__wasi_wine_readlink_at(HANDLE dir, const char *name, char *buf,
                                    size_t size, size_t *len);

#endif /* _WIN32 */
#endif /* WTP_WASI_PATH_WINDOWS_H */
