/* wasi_path_stub_windows.c: TEMPORARY. The path calls and fd_readdir on
 * Windows answer ENOSYS until helper w30path's sandbox
 * (wasi_path_windows.c and its path calls) lands; the lead deletes this
 * file at the merge (binding.gyp's wasi_windows_sources lists it). */
#include "wasi_errno.h"
#include "wasi_internal.h"

#define STUB_CALL(name)                   \
  WTP__WASI_CALL(name) {                  \
    (void)wasi, (void)memory, (void)args; \
    return WASI_ENOSYS;                   \
  }
STUB_CALL(fd_readdir)
STUB_CALL(path_create_directory)
STUB_CALL(path_filestat_get)
STUB_CALL(path_filestat_set_times)
STUB_CALL(path_link)
STUB_CALL(path_open)
STUB_CALL(path_readlink)
STUB_CALL(path_remove_directory)
STUB_CALL(path_rename)
STUB_CALL(path_symlink)
STUB_CALL(path_unlink_file)
