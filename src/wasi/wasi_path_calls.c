/* wasi_path_calls.c: the path_* calls and fd_readdir, the guest's side, on
 * every OS. Each copies its guest paths and checks its result ranges first
 * (EFAULT: nothing happened), takes its directory descriptors' references
 * and checks their rights, resolves beneath them (wasi_path.h: the
 * sandbox), and makes one host operation on the resolved directory
 * (wasi_path_host.h: wasi_path_host_posix.c, wasi_path_host_windows.c) that
 * never follows the final component itself. */
#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_internal.h"
#include "wasi_path.h"
#include "wasi_path_host.h"

/* A guest path, copied. */
typedef char guest_path[WTP__WASI_PATH_MAX + 1];

static int ends_in_slash(const char *path) {
  size_t len = strlen(path);
  return len && path[len - 1] == '/';
}

/* Takes fd's reference if it is a directory (ENOTDIR otherwise) that holds
 * the rights `needed` (ENOTCAPABLE otherwise: wasi_table.c, "Rights"). */
static uint32_t get_dir(wtp_wasi *wasi, uint32_t fd, uint64_t needed,
                        wtp__wasi_entry **out) {
  uint32_t err = wtp__wasi_fd_get(wasi, fd, out);
  if (err) return err;
  if (wtp__wasi_entry_filetype(*out) != WASI_FILETYPE_DIRECTORY) {
    err = WASI_ENOTDIR;
  } else {
    err = wtp__wasi_entry_need(*out, needed);
  }
  if (err) wtp__wasi_fd_put(*out);
  return err;
}

/* Takes fd's reference (a directory holding `needed`) and resolves path
 * beneath it; on success the caller closes *at and puts *entry. */
static uint32_t resolve(wtp_wasi *wasi, uint32_t fd, uint64_t needed,
                        const char *path, int follow, wtp__wasi_entry **entry,
                        wtp__wasi_at *at) {
  uint32_t err = get_dir(wasi, fd, needed, entry);
  if (err) return err;
  err = wtp__wasi_beneath_resolve(wtp__wasi_entry_host_fd(*entry), path, follow,
                                  at);
  if (err) wtp__wasi_fd_put(*entry);
  return err;
}

/* The guest's path at [ptr, ptr + len) copied into path (EFAULT, EINVAL,
 * EILSEQ: wtp__wasi_path_copy), then resolved beneath fd as resolve(). */
static uint32_t resolve_guest(wtp_wasi *wasi, const wtp_wasi_memory *memory,
                              uint64_t fd, uint64_t needed, uint64_t ptr,
                              uint64_t len, int follow, guest_path path,
                              wtp__wasi_entry **entry, wtp__wasi_at *at) {
  uint32_t err =
      wtp__wasi_path_copy(memory, ptr, len, path, sizeof(guest_path));
  if (err) return err;
  return resolve(wasi, (uint32_t)fd, needed, path, follow, entry, at);
}

static void release(wtp__wasi_entry *entry, wtp__wasi_at *at) {
  wtp__wasi_at_close(at);
  wtp__wasi_fd_put(entry);
}

/* The WASI filetype of at's entry (never followed), or a WASI errno. */
static uint32_t stat_type(const wtp__wasi_at *at, uint8_t *type) {
  uint8_t filestat[WTP__WASI_FILESTAT_SIZE];
  uint32_t err = wtp__wasi_host_stat_at(at, filestat);
  if (!err) *type = filestat[16];
  return err;
}

/* A path that ended in '/' names a directory: ENOTDIR if at's entry is not
 * one (not followed), its stat errno if it does not exist. */
static uint32_t not_a_directory(const wtp__wasi_at *at) {
  uint8_t type;
  uint32_t err = stat_type(at, &type);
  if (err) return err;
  return type == WASI_FILETYPE_DIRECTORY ? WASI_ESUCCESS : WASI_ENOTDIR;
}

/* path_open(fd, dirflags, path, path_len, oflags, rights_base,
 * rights_inheriting, fdflags, fd_out) */
WTP__WASI_CALL(path_open) {
  uint32_t dirfd = (uint32_t)args[0], oflags = (uint32_t)args[4];
  int follow = (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) != 0;
  uint64_t rights_base = args[5], rights_inheriting = args[6], fd_out = args[8];
  uint32_t fdflags = (uint32_t)args[7];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, fd_out, 4)) return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  if (oflags & ~0xfu || fdflags & ~WASI_FDFLAGS_ALL) return WASI_EINVAL;
  if ((oflags & WASI_OFLAGS_DIRECTORY) &&
      (oflags & (WASI_OFLAGS_CREAT | WASI_OFLAGS_EXCL | WASI_OFLAGS_TRUNC)))
    return WASI_EINVAL; /* wasmtime's answer: a directory is never made here */
  /* Rights (wasi_table.c, "Rights"): the directory must hold PATH_OPEN and
   * what the oflags do; the new fd gets what it asked within the
   * directory's inheriting rights (the rest is dropped, as wasi-common
   * drops it), so its access mode never exceeds what they allow. */
  uint64_t needed =
      WASI_RIGHTS_PATH_OPEN |
      (oflags & WASI_OFLAGS_CREAT ? WASI_RIGHTS_PATH_CREATE_FILE : 0) |
      (oflags & WASI_OFLAGS_TRUNC ? WASI_RIGHTS_PATH_FILESTAT_SET_SIZE : 0);
  wtp__wasi_entry *dir;
  if ((err = get_dir(wasi, dirfd, needed, &dir))) return err;
  uint64_t granted = wtp__wasi_entry_inheriting(dir);
  rights_base &= granted;
  rights_inheriting &= granted;
  int host_fd = -1;
  uint8_t filetype = WASI_FILETYPE_UNKNOWN;
  err = wtp__wasi_host_open(wasi, wtp__wasi_entry_host_fd(dir), path, oflags,
                            (uint16_t)fdflags, rights_base, follow, &host_fd,
                            &filetype);
  wtp__wasi_fd_put(dir);
  if (err) return err;
  uint32_t fd;
  /* Within what its kind can hold: a directory no seek, tell or set-size.
   * Any other kind keeps the seek and tell it asked for, as wasmtime
   * reports them on what a program opens: a character device opened by
   * path (/dev/null) is then no terminal for wasi-libc's isatty(), and a
   * seek on a stream still answers ESPIPE (wasi_fd.c). */
  uint64_t kind = wtp__wasi_kind_rights(filetype);
  if (filetype != WASI_FILETYPE_DIRECTORY)
    kind |= WASI_RIGHTS_FD_SEEK | WASI_RIGHTS_FD_TELL;
  err = wtp__wasi_fd_add(wasi, host_fd, filetype, (uint16_t)fdflags,
                         rights_base & kind, rights_inheriting, &fd);
  if (err) return err;
  wtp__wasi_store32(memory, fd_out, fd);
  return WASI_ESUCCESS;
}

/* ---- directories, files, links ---- */

/* path_create_directory(fd, path, path_len) */
WTP__WASI_CALL(path_create_directory) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_CREATE_DIRECTORY,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  err = wtp__wasi_host_mkdir_at(&at);
  release(dir, &at);
  return err;
}

/* path_remove_directory(fd, path, path_len) */
WTP__WASI_CALL(path_remove_directory) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_REMOVE_DIRECTORY,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  err = wtp__wasi_host_rmdir_at(&at);
  release(dir, &at);
  return err;
}

/* path_unlink_file(fd, path, path_len) */
WTP__WASI_CALL(path_unlink_file) {
  guest_path path;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  uint32_t err =
      resolve_guest(wasi, memory, args[0], WASI_RIGHTS_PATH_UNLINK_FILE,
                    args[1], args[2], 0, path, &dir, &at);
  if (err) return err;
  /* "name/" must be a directory (ENOTDIR otherwise), which the host then
   * refuses with the platform's errno (Linux EISDIR, macOS EPERM, as
   * wasmtime reports them). */
  err = at.trailing_slash ? not_a_directory(&at) : WASI_ESUCCESS;
  if (!err) err = wtp__wasi_host_unlink_at(&at);
  release(dir, &at);
  return err;
}

/* path_rename(fd, old_path, old_path_len, new_fd, new_path, new_path_len) */
WTP__WASI_CALL(path_rename) {
  guest_path old_path, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[1], args[2], old_path, sizeof old_path);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[4], args[5], new_path,
                              sizeof new_path);
  if (err) return err;
  wtp__wasi_entry *old_dir, *new_dir;
  wtp__wasi_at old_at, new_at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_RENAME_SOURCE,
                     old_path, 0, &old_dir, &old_at)))
    return err;
  if ((err = resolve(wasi, (uint32_t)args[3], WASI_RIGHTS_PATH_RENAME_TARGET,
                     new_path, 0, &new_dir, &new_at))) {
    release(old_dir, &old_at);
    return err;
  }
  if (old_at.trailing_slash || new_at.trailing_slash)
    err = not_a_directory(&old_at);
  if (!err) err = wtp__wasi_host_rename_at(&old_at, &new_at);
  release(new_dir, &new_at);
  release(old_dir, &old_at);
  return err;
}

/* What a new name ending in '/' answers (path_link, path_symlink: nothing
 * is made): EEXIST over a directory, ENOTDIR over anything else, ENOENT
 * over nothing, as Linux and wasmtime. */
static uint32_t trailing_new_name(const wtp__wasi_at *at) {
  uint8_t type;
  if (stat_type(at, &type)) return WASI_ENOENT;
  return type == WASI_FILETYPE_DIRECTORY ? WASI_EEXIST : WASI_ENOTDIR;
}

/* path_link(old_fd, old_flags, old_path, old_path_len, new_fd, new_path,
 * new_path_len). SYMLINK_FOLLOW is refused with EINVAL, as wasmtime does:
 * the old path's final link is linked itself, never followed (linkat
 * without AT_SYMLINK_FOLLOW). */
WTP__WASI_CALL(path_link) {
  guest_path old_path, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], old_path, sizeof old_path);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[5], args[6], new_path,
                              sizeof new_path);
  if (err) return err;
  if (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) return WASI_EINVAL;
  wtp__wasi_entry *old_dir, *new_dir;
  wtp__wasi_at old_at, new_at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_LINK_SOURCE,
                     old_path, 0, &old_dir, &old_at)))
    return err;
  if ((err = resolve(wasi, (uint32_t)args[4], WASI_RIGHTS_PATH_LINK_TARGET,
                     new_path, 0, &new_dir, &new_at))) {
    release(old_dir, &old_at);
    return err;
  }
  err = old_at.trailing_slash ? not_a_directory(&old_at) : WASI_ESUCCESS;
  if (!err && new_at.trailing_slash) err = trailing_new_name(&new_at);
  if (!err) err = wtp__wasi_host_link_at(&old_at, &new_at);
  release(new_dir, &new_at);
  release(old_dir, &old_at);
  return err;
}

/* path_symlink(old_path, old_path_len, fd, new_path, new_path_len): the
 * link's text is stored as given, except an absolute target, which is
 * refused with EPERM as wasmtime refuses it (no link to the host's root is
 * ever made); a relative one that climbs out can be made, and following it
 * is the sandbox's business. */
WTP__WASI_CALL(path_symlink) {
  guest_path target, new_path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[0], args[1], target, sizeof target);
  if (!err)
    err = wtp__wasi_path_copy(memory, args[3], args[4], new_path,
                              sizeof new_path);
  if (err) return err;
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[2], WASI_RIGHTS_PATH_SYMLINK,
                     new_path, 0, &dir, &at)))
    return err;
  if (target[0] == '/') {
    release(dir, &at);
    return WASI_EPERM;
  }
  err = at.trailing_slash ? trailing_new_name(&at) : WASI_ESUCCESS;
  if (!err) err = wtp__wasi_host_symlink_at(target, &at);
  release(dir, &at);
  return err;
}

/* path_readlink(fd, path, path_len, buf, buf_len, bufused_out): a link
 * longer than buf_len is cut to buf_len bytes (no NUL is written). */
WTP__WASI_CALL(path_readlink) {
  uint64_t buf = args[3], buf_len = args[4], bufused_out = args[5];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, buf, buf_len) ||
      !wtp__wasi_range_ok(memory, bufused_out, 4))
    return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[1], args[2], path, sizeof path);
  if (err) return err;
  int trailing = ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_READLINK, path,
                     trailing, &dir, &at)))
    return err;
  char text[WTP__WASI_PATH_MAX + 1];
  size_t n = 0;
  if (trailing) {
    /* "name/" names what the link points at, never a link. */
    err = not_a_directory(&at);
    if (err == WASI_ESUCCESS) err = WASI_EINVAL;
  } else {
    err = wtp__wasi_host_readlink_at(&at, text, sizeof text, &n);
  }
  release(dir, &at);
  if (err) return err;
  size_t used = (uint64_t)n < buf_len ? n : (size_t)buf_len;
  memcpy(memory->base + buf, text, used);
  wtp__wasi_store32(memory, bufused_out, (uint32_t)used);
  return WASI_ESUCCESS;
}

/* ---- filestat ---- */

/* path_filestat_get(fd, flags, path, path_len, filestat_out) */
WTP__WASI_CALL(path_filestat_get) {
  uint64_t out = args[4];
  guest_path path;
  if (!wtp__wasi_range_ok(memory, out, 64)) return WASI_EFAULT;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  int follow =
      (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) || ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err = resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_FILESTAT_GET,
                     path, follow, &dir, &at)))
    return err;
  uint8_t filestat[WTP__WASI_FILESTAT_SIZE];
  err = wtp__wasi_host_stat_at(&at, filestat);
  if (!err && at.trailing_slash && filestat[16] != WASI_FILETYPE_DIRECTORY)
    err = WASI_ENOTDIR;
  release(dir, &at);
  if (err) return err;
  memcpy(memory->base + out, filestat, sizeof filestat);
  return WASI_ESUCCESS;
}

/* A time both given and NOW: EINVAL. */
static int time_conflict(uint32_t fstflags, uint32_t given, uint32_t now) {
  return (fstflags & given) && (fstflags & now);
}

/* path_filestat_set_times(fd, flags, path, path_len, atim, mtim, fstflags) */
WTP__WASI_CALL(path_filestat_set_times) {
  guest_path path;
  uint32_t err =
      wtp__wasi_path_copy(memory, args[2], args[3], path, sizeof path);
  if (err) return err;
  uint32_t fstflags = (uint32_t)args[6];
  if (fstflags & ~0xfu ||
      time_conflict(fstflags, WASI_FSTFLAGS_ATIM, WASI_FSTFLAGS_ATIM_NOW) ||
      time_conflict(fstflags, WASI_FSTFLAGS_MTIM, WASI_FSTFLAGS_MTIM_NOW))
    return WASI_EINVAL;
  int follow =
      (args[1] & WASI_LOOKUPFLAGS_SYMLINK_FOLLOW) || ends_in_slash(path);
  wtp__wasi_entry *dir;
  wtp__wasi_at at;
  if ((err =
           resolve(wasi, (uint32_t)args[0], WASI_RIGHTS_PATH_FILESTAT_SET_TIMES,
                   path, follow, &dir, &at)))
    return err;
  err = at.trailing_slash ? not_a_directory(&at) : WASI_ESUCCESS;
  if (!err) err = wtp__wasi_host_set_times_at(&at, args[4], args[5], fstflags);
  release(dir, &at);
  return err;
}

/* ---- fd_readdir ---- */

/* A directory descriptor's listing between fd_readdir calls (in the entry's
 * readdir slot, under the entry's lock). Cookies are positions: the entry
 * at index i has cookie i (0 is the start) and d_next i + 1. The entry that
 * did not fit last time (wasi-libc asks for it again with a larger buffer)
 * is kept, so that reading a directory in order never rewinds. */
typedef struct readdir_state {
  wtp__wasi_host_dir *dir;
  uint64_t position; /* the index the next host entry has */
  int have_last;     /* last holds the entry at index position - 1 */
  wtp__wasi_dirent last;
} readdir_state;

static void readdir_state_free(void *state) {
  readdir_state *s = state;
  if (s->dir) wtp__wasi_host_dir_close(s->dir);
  free(s);
}

/* Reads the next entry into s->last; 0 at the end, minus a WASI errno. */
static int readdir_next(readdir_state *s) {
  int r = wtp__wasi_host_dir_next(s->dir, &s->last);
  if (r <= 0) return r;
  s->position++;
  s->have_last = 1;
  return 1;
}

/* Positions s so that the next entry it hands out is the one at cookie.
 * Returns 1 if s->last holds it already (to be emitted first), 0 if the next
 * readdir_next reads it, minus a WASI errno. */
static int readdir_seek(readdir_state *s, uint64_t cookie) {
  if (s->have_last && cookie == s->position - 1) return 1;
  if (cookie < s->position) {
    uint32_t err = wtp__wasi_host_dir_rewind(s->dir);
    if (err) return -(int)err;
    s->position = 0;
    s->have_last = 0;
  }
  while (s->position < cookie) {
    int r = readdir_next(s);
    if (r <= 0) return r; /* past the end: nothing more to emit */
  }
  return 0;
}

/* Appends the dirent of s->last (24-byte header, then the name), cut at
 * buf_len; returns the bytes written. */
static uint32_t emit(const wtp_wasi_memory *memory, uint64_t buf, uint32_t used,
                     uint32_t buf_len, const readdir_state *s) {
  uint8_t record[24 + sizeof s->last.name];
  memset(record, 0, 24);
  uint64_t next = s->position, ino = s->last.ino;
  for (int i = 0; i < 8; i++)
    record[i] = (uint8_t)(next >> (8 * i)),
    record[8 + i] = (uint8_t)(ino >> (8 * i));
  for (int i = 0; i < 4; i++)
    record[16 + i] = (uint8_t)(s->last.name_len >> (8 * i));
  record[20] = s->last.type;
  memcpy(record + 24, s->last.name, s->last.name_len);
  uint32_t size = 24 + s->last.name_len, room = buf_len - used;
  uint32_t n = size < room ? size : room;
  memcpy(memory->base + buf + used, record, n);
  return n;
}

static uint32_t open_listing(wtp__wasi_entry *entry, readdir_state **out) {
  readdir_state *s = calloc(1, sizeof *s);
  if (!s) return WASI_ENOMEM;
  uint32_t err =
      wtp__wasi_host_dir_open(wtp__wasi_entry_host_fd(entry), &s->dir);
  if (err) {
    free(s);
    return err;
  }
  *out = s;
  return WASI_ESUCCESS;
}

/* fd_readdir(fd, buf, buf_len, cookie, bufused_out) */
WTP__WASI_CALL(fd_readdir) {
  uint64_t buf = args[1], cookie = args[3], bufused_out = args[4];
  uint32_t buf_len = (uint32_t)args[2];
  if (!wtp__wasi_range_ok(memory, buf, buf_len) ||
      !wtp__wasi_range_ok(memory, bufused_out, 4))
    return WASI_EFAULT;
  wtp__wasi_entry *entry;
  uint32_t err =
      get_dir(wasi, (uint32_t)args[0], WASI_RIGHTS_FD_READDIR, &entry);
  if (err) return err;
  wtp__wasi_entry_lock(entry);
  void (*free_state)(void *) = readdir_state_free;
  void **slot = wtp__wasi_entry_readdir_state(entry, &free_state);
  if (!*slot) err = open_listing(entry, (readdir_state **)slot);
  uint32_t used = 0;
  if (!err) {
    readdir_state *s = *slot;
    int r = readdir_seek(s, cookie);
    if (r == 1) used += emit(memory, buf, used, buf_len, s);
    while (r >= 0 && used < buf_len && (r = readdir_next(s)) > 0)
      used += emit(memory, buf, used, buf_len, s);
    if (r < 0) err = (uint32_t)-r;
  }
  wtp__wasi_entry_unlock(entry);
  wtp__wasi_fd_put(entry);
  if (err) return err;
  wtp__wasi_store32(memory, bufused_out, used);
  return WASI_ESUCCESS;
}
