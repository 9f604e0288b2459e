/* wasi_table.c: the program's WASI object (create, references, stop) and its
 * fd table.
 *
 * The table
 * ---------
 * One table per program, shared by all of its threads. A slot holds a
 * pointer to a reference-counted entry (struct wtp__wasi_entry,
 * wasi_table.h); slots live in chunks of WASI_FD_CHUNK, allocated on first
 * use and never freed before the WASI, so a slot's address is stable.
 *
 *   Readers (every call on an fd: wtp__wasi_fd_get) take NO lock: they
 *   acquire-load the slot, take a reference with a compare-and-swap that
 *   never moves a count up from zero, and acquire-load the slot again; if it
 *   no longer holds the entry they drop the reference and start over. The
 *   entry's fields are read only after that second load, which pairs with
 *   the release store that published the entry (so the fields written
 *   before the publish are visible).
 *
 *   Writers (fd_add, fd_close, fd_renumber, create, release) hold
 *   table_lock (a mutex) to change slots: store the new pointer with
 *   release, and drop the slot's reference AFTER the store and after the
 *   lock is released. table_lock also guards the free list and the list of
 *   all entries. No I/O is ever done under table_lock.
 *
 *   Entries are type-stable: the put that takes refs to zero closes the
 *   entry's descriptors and pushes it on the free list (never free()d
 *   before the WASI), so a reader's compare-and-swap on a stale pointer
 *   touches live memory. A count of zero means "being recycled": the CAS
 *   refuses it and the reader reloads the slot (which no longer holds it:
 *   the slot is cleared before its reference is dropped).
 *
 * Why no lost update or use after close: a slot change is one release store
 * under table_lock, so two closes or renumbers of one fd are ordered and
 * only the one that found the entry in the slot drops the slot's reference.
 * A call in flight holds its own reference, so a close on another thread
 * drops the table's reference only: the host descriptor stays open until
 * that call's put, and the I/O never reaches a descriptor number the OS has
 * reused. A number reused after a close gets a new (or recycled) entry; a
 * reader that raced the close sees the slot change in its second load and
 * retries, so it uses either the old entry (still open: it holds a
 * reference) or the new one, never the old one's fields for the new number.
 *
 * fd numbers: the lowest free, like POSIX, below WASI_FD_MAX (EMFILE above).
 * 0-2 are dup()s of the host's stdio made at create (closing or renumbering
 * them closes only the dup), then the preopens at 3, 4, ...
 *
 * Rights. The preview1 model the WASI conformance tests check (wasmtime's
 * wasi-common): every descriptor has base and inheriting rights.
 *   - What a descriptor starts with: stdio the rights of its kind
 *     (WASI_RIGHTS_REGULAR_FILE or _STREAM in wasi_errno.h; no seek or tell
 *     on a pipe, terminal or socket, so that wasi-libc's isatty() works)
 *     less FD_READ/FD_WRITE by its access mode; a preopen
 *     WASI_RIGHTS_DIRECTORY (no seek, tell or set-size) inheriting directory
 *     and file rights; a path_open'ed fd what it asked for, within the
 *     directory's inheriting rights and its own kind, a non-directory
 *     keeping the seek and tell it asked for (wasi_path_calls.c).
 *   - fd_fdstat_set_rights narrows them; a right never comes back
 *     (asking for one it does not hold: ENOTCAPABLE).
 *   - Each call needs its right (wtp__wasi_entry_need): a missing
 *     access-mode right (FD_READ, FD_WRITE, FD_FILESTAT_SET_SIZE,
 *     FD_ALLOCATE) answers EBADF, as POSIX and wasmtime answer for a
 *     descriptor not open for it; any other missing right ENOTCAPABLE.
 *     Only rights the descriptor's kind can hold are checked: a call the
 *     kind never had a right for (fsync on a pipe) gets the OS's answer,
 *     as before. FD_DATASYNC is not checked: wasi-libc never asks it for
 *     a read-only open, and POSIX lets fdatasync run on one.
 * The OS still enforces the access mode underneath.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasi_errno.h"
#include "wasi_host.h"
#include "wasi_table.h"

/* ---- entries ---- */

static void entry_dispose(wtp__wasi_entry *entry) {
  wtp_wasi *wasi = entry->wasi;
  if (entry->io_fd >= 0 && entry->io_fd != entry->host_fd)
    wtp__wasi_host_close(entry->io_fd);
  if (entry->host_fd >= 0) wtp__wasi_host_close(entry->host_fd);
  if (entry->free_readdir_state != NULL && entry->readdir_state != NULL)
    entry->free_readdir_state(entry->readdir_state);
  entry->readdir_state = NULL;
  entry->free_readdir_state = NULL;
  free(entry->preopen);
  entry->preopen = NULL;
  entry->host_fd = entry->io_fd = -1;
  wtp__mutex_lock(&wasi->table_lock);
  entry->next_free = wasi->free_entries;
  wasi->free_entries = entry;
  wtp__mutex_unlock(&wasi->table_lock);
}

void wtp__wasi_fd_put(wtp__wasi_entry *entry) {
  /* acq_rel: every holder's use happens before the last put's dispose. */
  if (atomic_fetch_sub_explicit(&entry->refs, 1, memory_order_acq_rel) == 1)
    entry_dispose(entry);
}

static wasi_slot *slot_of(wtp_wasi *wasi, uint32_t fd) {
  if (fd >= WASI_FD_MAX) return NULL;
  wasi_slot *chunk = atomic_load_explicit(&wasi->chunks[fd / WASI_FD_CHUNK],
                                          memory_order_acquire);
  return chunk == NULL ? NULL : &chunk[fd % WASI_FD_CHUNK];
}

uint32_t wtp__wasi_fd_get(wtp_wasi *wasi, uint32_t fd, wtp__wasi_entry **out) {
  wasi_slot *slot = slot_of(wasi, fd);
  if (slot == NULL) return WASI_EBADF;
  for (;;) {
    wtp__wasi_entry *entry = atomic_load_explicit(slot, memory_order_acquire);
    if (entry == NULL) return WASI_EBADF;
    unsigned refs = atomic_load_explicit(&entry->refs, memory_order_relaxed);
    while (refs != 0 && !atomic_compare_exchange_weak_explicit(
                            &entry->refs, &refs, refs + 1, memory_order_acquire,
                            memory_order_relaxed)) {
    }
    if (refs == 0) continue; /* being recycled: the slot has changed */
    if (atomic_load_explicit(slot, memory_order_acquire) == entry) {
      *out = entry;
      return WASI_ESUCCESS;
    }
    wtp__wasi_fd_put(entry);
  }
}

/* Under table_lock: a recycled or new entry with one reference (the slot's). */
static wtp__wasi_entry *entry_alloc_locked(wtp_wasi *wasi) {
  wtp__wasi_entry *entry = wasi->free_entries;
  if (entry != NULL) {
    wasi->free_entries = entry->next_free;
  } else {
    entry = calloc(1, sizeof *entry);
    if (entry == NULL) return NULL;
    if (wtp__mutex_init(&entry->lock) != 0) {
      free(entry);
      return NULL;
    }
    entry->wasi = wasi;
    entry->next_entry = wasi->all_entries;
    wasi->all_entries = entry;
  }
  entry->next_free = NULL;
  atomic_store_explicit(&entry->refs, 1, memory_order_relaxed);
  return entry;
}

/* Under table_lock: the slot of fd, its chunk allocated if need be. */
static wasi_slot *slot_make_locked(wtp_wasi *wasi, uint32_t fd) {
  _Atomic(wasi_slot *) *chunk_ref = &wasi->chunks[fd / WASI_FD_CHUNK];
  wasi_slot *chunk = atomic_load_explicit(chunk_ref, memory_order_relaxed);
  if (chunk == NULL) {
    chunk = calloc(WASI_FD_CHUNK, sizeof *chunk);
    if (chunk == NULL) return NULL;
    for (uint32_t i = 0; i < WASI_FD_CHUNK; i++) atomic_init(&chunk[i], NULL);
    atomic_store_explicit(chunk_ref, chunk,
                          memory_order_release); /* pairs with slot_of */
  }
  return &chunk[fd % WASI_FD_CHUNK];
}

/* Under table_lock: the lowest free fd number, or WASI_FD_MAX. */
static uint32_t lowest_free_locked(wtp_wasi *wasi) {
  for (uint32_t c = 0; c < WASI_FD_CHUNKS; c++) {
    wasi_slot *chunk =
        atomic_load_explicit(&wasi->chunks[c], memory_order_relaxed);
    if (chunk == NULL) return c * WASI_FD_CHUNK;
    for (uint32_t i = 0; i < WASI_FD_CHUNK; i++) {
      if (atomic_load_explicit(&chunk[i], memory_order_relaxed) == NULL)
        return c * WASI_FD_CHUNK + i;
    }
  }
  return WASI_FD_MAX;
}

/* Publishes a new entry at want (or the lowest free number if want is
 * UINT32_MAX; want must be free). Takes ownership of init's descriptors and
 * preopen name: on failure they are closed and freed. */
static uint32_t table_insert(wtp_wasi *wasi, const wtp__wasi_entry_init *init,
                             uint32_t want, uint32_t *fd_out) {
  wtp__mutex_lock(&wasi->table_lock);
  uint32_t fd = want == UINT32_MAX ? lowest_free_locked(wasi) : want;
  uint32_t err = WASI_ESUCCESS;
  wasi_slot *slot = fd < WASI_FD_MAX ? slot_make_locked(wasi, fd) : NULL;
  wtp__wasi_entry *entry = slot != NULL ? entry_alloc_locked(wasi) : NULL;
  if (fd >= WASI_FD_MAX) {
    err = WASI_EMFILE;
  } else if (entry == NULL) {
    err = WASI_ENOMEM;
  } else {
    entry->host_fd = init->host_fd;
    entry->io_fd = init->io_fd;
    entry->filetype = init->filetype;
    entry->io_kind = init->io_kind;
    atomic_store_explicit(&entry->rights_base, init->rights_base,
                          memory_order_relaxed);
    atomic_store_explicit(&entry->rights_inheriting, init->rights_inheriting,
                          memory_order_relaxed);
    entry->preopen = init->preopen;
    atomic_store_explicit(&entry->fdflags, init->fdflags, memory_order_relaxed);
    atomic_store_explicit(
        slot, entry, memory_order_release); /* pairs with wtp__wasi_fd_get */
    *fd_out = fd;
  }
  wtp__mutex_unlock(&wasi->table_lock);
  if (err != WASI_ESUCCESS) {
    if (init->io_fd >= 0 && init->io_fd != init->host_fd)
      wtp__wasi_host_close(init->io_fd);
    if (init->host_fd >= 0) wtp__wasi_host_close(init->host_fd);
    free(init->preopen);
  }
  return err;
}

uint64_t wtp__wasi_kind_rights(uint8_t filetype) {
  switch (filetype) {
    case WASI_FILETYPE_DIRECTORY:
      return WASI_RIGHTS_DIRECTORY;
    case WASI_FILETYPE_REGULAR_FILE:
    case WASI_FILETYPE_BLOCK_DEVICE:
      return WASI_RIGHTS_REGULAR_FILE;
    default:
      return WASI_RIGHTS_STREAM;
  }
}

#define ACCESS_RIGHTS                                                     \
  (WASI_RIGHTS_FD_READ | WASI_RIGHTS_FD_WRITE | WASI_RIGHTS_FD_ALLOCATE | \
   WASI_RIGHTS_FD_FILESTAT_SET_SIZE)

uint32_t wtp__wasi_entry_need(const wtp__wasi_entry *entry, uint64_t needed) {
  uint64_t base = atomic_load_explicit(&((wtp__wasi_entry *)entry)->rights_base,
                                       memory_order_relaxed);
  uint64_t missing = needed & wtp__wasi_kind_rights(entry->filetype) & ~base &
                     ~WASI_RIGHTS_FD_DATASYNC;
  if (missing == 0) return WASI_ESUCCESS;
  return missing & ACCESS_RIGHTS ? WASI_EBADF : WASI_ENOTCAPABLE;
}

uint64_t wtp__wasi_entry_inheriting(const wtp__wasi_entry *entry) {
  return atomic_load_explicit(&((wtp__wasi_entry *)entry)->rights_inheriting,
                              memory_order_relaxed);
}

/* Narrows *word to want: ENOTCAPABLE if want holds a right *word does not. */
static uint32_t narrow(_Atomic uint64_t *word, uint64_t want) {
  uint64_t now = atomic_load_explicit(word, memory_order_relaxed);
  do {
    if (want & ~now) return WASI_ENOTCAPABLE;
  } while (!atomic_compare_exchange_weak_explicit(
      word, &now, want, memory_order_relaxed, memory_order_relaxed));
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_entry_narrow(wtp__wasi_entry *entry, uint64_t base,
                                uint64_t inheriting) {
  /* Both checked before either changes, then each narrowed on its own. */
  if ((base &
       ~atomic_load_explicit(&entry->rights_base, memory_order_relaxed)) ||
      (inheriting &
       ~atomic_load_explicit(&entry->rights_inheriting, memory_order_relaxed)))
    return WASI_ENOTCAPABLE;
  uint32_t err = narrow(&entry->rights_base, base);
  if (err == WASI_ESUCCESS) err = narrow(&entry->rights_inheriting, inheriting);
  return err;
}

uint32_t wtp__wasi_fd_add(wtp_wasi *wasi, int host_fd, uint8_t filetype,
                          uint16_t fdflags, uint64_t rights_base,
                          uint64_t rights_inheriting, uint32_t *fd_out) {
  wtp__wasi_entry_init init = {host_fd,           host_fd, filetype,
                               WASI_IO_FILE,      fdflags, rights_base,
                               rights_inheriting, NULL};
  wtp__wasi_host_classify(&init);
  return table_insert(wasi, &init, UINT32_MAX, fd_out);
}

/* ---- the WASI object ---- */

static int copy_strings(const char *const *strings, uint32_t count,
                        char **blob_out, uint32_t **offsets_out,
                        uint32_t *size_out) {
  uint64_t size = 0;
  for (uint32_t i = 0; i < count; i++) size += strlen(strings[i]) + 1;
  if (size > UINT32_MAX) return E2BIG;
  char *blob = malloc(size ? size : 1);
  uint32_t *offsets = malloc((count ? count : 1) * sizeof *offsets);
  if (blob == NULL || offsets == NULL) {
    free(blob);
    free(offsets);
    return ENOMEM;
  }
  uint32_t at = 0;
  for (uint32_t i = 0; i < count; i++) {
    size_t n = strlen(strings[i]) + 1;
    memcpy(blob + at, strings[i], n);
    offsets[i] = at;
    at += (uint32_t)n;
  }
  *blob_out = blob;
  *offsets_out = offsets;
  *size_out = (uint32_t)size;
  return 0;
}

static int add_stdio(wtp_wasi *wasi, const wtp_wasi_config *config, char *error,
                     size_t error_size) {
  for (uint32_t i = 0; i < 3; i++) {
    if (config->stdio[i] < 0) continue;
    wtp__wasi_entry_init init = {0};
    int err = wtp__wasi_host_stdio((int)i, config->stdio[i], &init, error,
                                   error_size);
    if (err != 0) return err;
    uint32_t fd;
    if (table_insert(wasi, &init, i, &fd) != WASI_ESUCCESS) {
      snprintf(error, error_size, "stdio %u: out of memory", i);
      return ENOMEM;
    }
  }
  return 0;
}

static int add_preopens(wtp_wasi *wasi, const wtp_wasi_config *config,
                        char *error, size_t error_size) {
  for (uint32_t i = 0; i < config->preopen_count; i++) {
    const wtp_wasi_preopen *preopen = &config->preopens[i];
    int dir = -1;
    int err =
        wtp__wasi_host_open_dir(preopen->host_path, &dir, error, error_size);
    if (err != 0) return err;
    char *name = strdup(preopen->guest_path);
    if (name == NULL) {
      wtp__wasi_host_close(dir);
      snprintf(error, error_size, "preopen %s: out of memory",
               preopen->host_path);
      return ENOMEM;
    }
    wtp__wasi_entry_init init = {
        dir,
        dir,
        WASI_FILETYPE_DIRECTORY,
        WASI_IO_FILE,
        0,
        WASI_RIGHTS_DIRECTORY,
        WASI_RIGHTS_DIRECTORY | WASI_RIGHTS_REGULAR_FILE,
        name};
    uint32_t fd;
    if (table_insert(wasi, &init, 3 + i, &fd) != WASI_ESUCCESS) {
      snprintf(error, error_size,
               "preopen %s: too many preopens or out of memory",
               preopen->host_path);
      return ENOMEM;
    }
  }
  return 0;
}

static void wasi_destroy(wtp_wasi *wasi) {
  /* No call is in flight (each holds a reference to wasi): drop every slot's
   * reference, which closes the descriptors, then free the entries. */
  for (uint32_t c = 0; c < WASI_FD_CHUNKS; c++) {
    wasi_slot *chunk =
        atomic_load_explicit(&wasi->chunks[c], memory_order_acquire);
    if (chunk == NULL) continue;
    for (uint32_t i = 0; i < WASI_FD_CHUNK; i++) {
      wtp__wasi_entry *entry =
          atomic_exchange_explicit(&chunk[i], NULL, memory_order_acq_rel);
      if (entry != NULL) wtp__wasi_fd_put(entry);
    }
    free(chunk);
  }
  for (wtp__wasi_entry *entry = wasi->all_entries, *next; entry != NULL;
       entry = next) {
    next = entry->next_entry;
    wtp__mutex_destroy(&entry->lock);
    free(entry);
  }
  wtp__wasi_host_stop_free(wasi);
  wtp__mutex_destroy(&wasi->table_lock);
  free(wasi->args_blob);
  free(wasi->env_blob);
  free(wasi->args_offsets);
  free(wasi->env_offsets);
  free(wasi);
}

int wtp_wasi_create(const wtp_wasi_config *config, wtp_wasi **out, char *error,
                    size_t error_size) {
  if (error_size > 0) error[0] = '\0';
  wtp_wasi *wasi = calloc(1, sizeof *wasi);
  if (wasi == NULL) {
    snprintf(error, error_size, "out of memory");
    return ENOMEM;
  }
  atomic_init(&wasi->refs, 1);
  atomic_init(&wasi->stopped, 0);
#ifdef _WIN32
  wasi->stop_event = NULL;
#else
  wasi->wake_fd = wasi->wake_write_fd = -1;
#endif
  for (uint32_t c = 0; c < WASI_FD_CHUNKS; c++)
    atomic_init(&wasi->chunks[c], NULL);
  if (wtp__mutex_init(&wasi->table_lock) != 0) {
    free(wasi);
    snprintf(error, error_size, "cannot make the table's lock");
    return ENOMEM;
  }
  int err = copy_strings(config->args, config->args_count, &wasi->args_blob,
                         &wasi->args_offsets, &wasi->args_size);
  if (err == 0) {
    wasi->args_count = config->args_count;
    err = copy_strings(config->env, config->env_count, &wasi->env_blob,
                       &wasi->env_offsets, &wasi->env_size);
    if (err == 0) wasi->env_count = config->env_count;
    if (err != 0)
      snprintf(error, error_size, "arguments and environment: %s",
               strerror(err));
  } else {
    snprintf(error, error_size, "arguments: %s", strerror(err));
  }
  if (err == 0) {
    err = wtp__wasi_host_stop_make(wasi, error, error_size);
  }
  if (err == 0) err = add_stdio(wasi, config, error, error_size);
  if (err == 0) err = add_preopens(wasi, config, error, error_size);
  if (err != 0) {
    wasi_destroy(wasi);
    return err;
  }
  *out = wasi;
  return 0;
}

void wtp_wasi_retain(wtp_wasi *wasi) {
  atomic_fetch_add_explicit(&wasi->refs, 1, memory_order_relaxed);
}

void wtp_wasi_release(wtp_wasi *wasi) {
  if (atomic_fetch_sub_explicit(&wasi->refs, 1, memory_order_acq_rel) == 1)
    wasi_destroy(wasi);
}

void wtp_wasi_stop(wtp_wasi *wasi) {
  /* seq_cst exchange: a waiter checks stopped after it has decided to wait
   * and before its wait; if it missed the flag, the signal below (after the
   * flag) makes the wake-up object ready before or during its wait, for
   * good. */
  if (atomic_exchange(&wasi->stopped, 1) != 0) return;
  wtp__wasi_host_stop_signal(wasi);
}

int wtp_wasi_stopped(const wtp_wasi *wasi) {
  return atomic_load(&((wtp_wasi *)wasi)->stopped) != 0;
}

/* ---- accessors for the path layer ---- */

int wtp__wasi_entry_host_fd(const wtp__wasi_entry *entry) {
  return entry->host_fd;
}
uint8_t wtp__wasi_entry_filetype(const wtp__wasi_entry *entry) {
  return entry->filetype;
}
const char *wtp__wasi_entry_preopen(const wtp__wasi_entry *entry) {
  return entry->preopen;
}
void **wtp__wasi_entry_readdir_state(wtp__wasi_entry *entry,
                                     void (**free_state)(void *)) {
  if (free_state != NULL && *free_state != NULL)
    entry->free_readdir_state = *free_state;
  return &entry->readdir_state;
}
void wtp__wasi_entry_lock(wtp__wasi_entry *entry) {
  wtp__mutex_lock(&entry->lock);
}
void wtp__wasi_entry_unlock(wtp__wasi_entry *entry) {
  wtp__mutex_unlock(&entry->lock);
}

/* ---- conversions ---- */

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void wtp__wasi_put_filestat(uint8_t *dst, const wtp__wasi_filestat *st) {
  /* filestat: dev @0, ino @8, filetype @16 (u8, padded), nlink @24, size
   * @32, atim @40, mtim @48, ctim @56. */
  memset(dst, 0, 64);
  put64(dst + 0, st->dev);
  put64(dst + 8, st->ino);
  dst[16] = st->filetype;
  put64(dst + 24, st->nlink);
  put64(dst + 32, st->size);
  put64(dst + 40, st->atim);
  put64(dst + 48, st->mtim);
  put64(dst + 56, st->ctim);
}

/* ---- close and renumber (wasi_fd.c) ---- */

uint32_t wtp__wasi_table_remove(wtp_wasi *wasi, uint32_t fd) {
  wtp__mutex_lock(&wasi->table_lock);
  wasi_slot *slot = slot_of(wasi, fd);
  wtp__wasi_entry *entry =
      slot != NULL ? atomic_load_explicit(slot, memory_order_relaxed) : NULL;
  if (entry != NULL) atomic_store_explicit(slot, NULL, memory_order_release);
  wtp__mutex_unlock(&wasi->table_lock);
  if (entry == NULL) return WASI_EBADF;
  /* The slot's reference: calls in flight keep theirs. */
  wtp__wasi_fd_put(entry);
  return WASI_ESUCCESS;
}

uint32_t wtp__wasi_table_renumber(wtp_wasi *wasi, uint32_t from, uint32_t to) {
  wtp__mutex_lock(&wasi->table_lock);
  wasi_slot *from_slot = slot_of(wasi, from), *to_slot = slot_of(wasi, to);
  wtp__wasi_entry *moved =
      from_slot != NULL ? atomic_load_explicit(from_slot, memory_order_relaxed)
                        : NULL;
  wtp__wasi_entry *replaced =
      to_slot != NULL ? atomic_load_explicit(to_slot, memory_order_relaxed)
                      : NULL;
  if (moved == NULL || replaced == NULL || from == to) {
    wtp__mutex_unlock(&wasi->table_lock);
    return moved == NULL || replaced == NULL ? WASI_EBADF : WASI_ESUCCESS;
  }
  /* One critical section: no call sees `to` empty, and no call sees the
   * entry under both numbers after the unlock. The moved entry keeps its
   * slot reference (it changes slot). */
  atomic_store_explicit(to_slot, moved, memory_order_release);
  atomic_store_explicit(from_slot, NULL, memory_order_release);
  wtp__mutex_unlock(&wasi->table_lock);
  wtp__wasi_fd_put(replaced);
  return WASI_ESUCCESS;
}
