/* wasi_imports.c: the import table the binding builds a thread's
 * wasi_snapshot_preview1 object from (wtp_wasi.h). Parameter letters follow
 * the preview1 witx signatures: 'i' i32, 'I' i64. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>

#include "wasi_internal.h"

#define ENTRY(name, params) \
  { #name, params, wtp__wasi_##name }

const wtp_wasi_import wtp_wasi_imports[] = {
    ENTRY(args_get, "ii"),
    ENTRY(args_sizes_get, "ii"),
    ENTRY(environ_get, "ii"),
    ENTRY(environ_sizes_get, "ii"),
    ENTRY(clock_res_get, "ii"),
    ENTRY(clock_time_get, "iIi"),
    ENTRY(fd_advise, "iIIi"),
    ENTRY(fd_allocate, "iII"),
    ENTRY(fd_close, "i"),
    ENTRY(fd_datasync, "i"),
    ENTRY(fd_fdstat_get, "ii"),
    ENTRY(fd_fdstat_set_flags, "ii"),
    ENTRY(fd_fdstat_set_rights, "iII"),
    ENTRY(fd_filestat_get, "ii"),
    ENTRY(fd_filestat_set_size, "iI"),
    ENTRY(fd_filestat_set_times, "iIIi"),
    ENTRY(fd_pread, "iiiIi"),
    ENTRY(fd_prestat_get, "ii"),
    ENTRY(fd_prestat_dir_name, "iii"),
    ENTRY(fd_pwrite, "iiiIi"),
    ENTRY(fd_read, "iiii"),
    ENTRY(fd_readdir, "iiiIi"),
    ENTRY(fd_renumber, "ii"),
    ENTRY(fd_seek, "iIii"),
    ENTRY(fd_sync, "i"),
    ENTRY(fd_tell, "ii"),
    ENTRY(fd_write, "iiii"),
    ENTRY(path_create_directory, "iii"),
    ENTRY(path_filestat_get, "iiiii"),
    ENTRY(path_filestat_set_times, "iiiiIIi"),
    ENTRY(path_link, "iiiiiii"),
    ENTRY(path_open, "iiiiiIIii"),
    ENTRY(path_readlink, "iiiiii"),
    ENTRY(path_remove_directory, "iii"),
    ENTRY(path_rename, "iiiiii"),
    ENTRY(path_symlink, "iiiii"),
    ENTRY(path_unlink_file, "iii"),
    ENTRY(poll_oneoff, "iiii"),
    ENTRY(proc_raise, "i"),
    ENTRY(random_get, "ii"),
    ENTRY(sched_yield, ""),
    ENTRY(sock_accept, "iii"),
    ENTRY(sock_recv, "iiiiii"),
    ENTRY(sock_send, "iiiii"),
    ENTRY(sock_shutdown, "ii"),
    {NULL, NULL, NULL},
};

const wtp_wasi_import *wtp_wasi_find_import(const char *name) {
  for (const wtp_wasi_import *import = wtp_wasi_imports; import->name != NULL;
       import++) {
    if (strcmp(import->name, name) == 0) return import;
  }
  return NULL;
}
