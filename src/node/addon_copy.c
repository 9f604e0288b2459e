/* addon_copy.c: one copy of the native addon per process.
 *
 * The parked-waiter counters (wtp_park.c), the running count and the wait
 * token registry (wtp_interrupt.c) are static data of the shared object. A
 * second copy of the addon loaded from another path (two versions of the
 * package, a bundler's copy of the .node file) gets its own, yet writes the
 * same H_IMPL tag, so a pool shared between the copies would skip wakes
 * that the other copy's waiters need (a wake-up lost to the slice end, or
 * for good for an untimed serve loop). So a copy refuses to load when
 * another one is already in the process: the binding's init throws,
 * lib/native/binding.js reports that as the reason the addon is unavailable, and a
 * native pool handed to that package's API fails with that reason instead
 * of losing wake-ups.
 *
 * Detection: every copy exports one data symbol, wtp_addon_marker (the only
 * symbol with default visibility besides the Node-API entry point). At its
 * first call, a copy lists the shared objects loaded in the process (ELF:
 * dl_iterate_phdr; macOS: the dyld image list; Windows: the module list) and
 * looks the symbol up in each; an address other than its own is another
 * copy. The same path loaded again (by every worker thread) is the same
 * object, with the same marker, so it is never mistaken for a copy.
 *
 * No Node-API here: test/c/test_copy.c loads this file, built as a shared
 * object, from two paths and checks that the second finds the first.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NOLOAD */
#endif
#include "addon_copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/wtp.h"

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <psapi.h>
#else
#include <dlfcn.h>
#include <pthread.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#elif defined(__linux__) || defined(__FreeBSD__)
#include <link.h>
#endif
#endif

typedef struct wtp_addon_marker {
  uint32_t magic;   /* WTP_IMPL_NATIVE */
  uint32_t version; /* of this detection scheme */
} wtp_addon_marker_t;

#if defined(_WIN32)
__declspec(dllexport)
#else
__attribute__((visibility("default"), used))
#endif
    const wtp_addon_marker_t wtp_addon_marker = {WTP_IMPL_NATIVE, 1};

static char other_copy[1024]; /* path of another copy; "" if none */

static int is_other_marker(const void* sym) {
  return sym != NULL && sym != (const void*)&wtp_addon_marker;
}

#if defined(_WIN32)
static void find_other_copy(void) {
  HMODULE mods[1024];
  DWORD needed = 0;
  if (!K32EnumProcessModules(GetCurrentProcess(), mods, sizeof(mods), &needed))
    return;
  DWORD n = needed / sizeof(HMODULE);
  if (n > 1024) n = 1024;
  for (DWORD i = 0; i < n; i++) {
    FARPROC sym = GetProcAddress(mods[i], "wtp_addon_marker");
    if (is_other_marker((const void*)sym)) {
      if (GetModuleFileNameA(mods[i], other_copy, sizeof(other_copy)) == 0)
        snprintf(other_copy, sizeof(other_copy), "(unknown path)");
      return;
    }
  }
}
#else
/* Looks the marker up in the object at path (already loaded: RTLD_NOLOAD
 * never loads anything). */
static int check_object(const char* path) {
  if (path == NULL || path[0] == '\0') return 0;
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == NULL) return 0;
  int found = is_other_marker(dlsym(handle, "wtp_addon_marker"));
  dlclose(handle);
  if (found) snprintf(other_copy, sizeof(other_copy), "%s", path);
  return found;
}

#if defined(__APPLE__)
static void find_other_copy(void) {
  uint32_t n = _dyld_image_count();
  for (uint32_t i = 0; i < n; i++)
    if (check_object(_dyld_get_image_name(i))) return;
}
#elif defined(__linux__) || defined(__FreeBSD__)
typedef struct object_list {
  char** names;
  size_t count, cap;
} object_list_t;

/* Only collects names: dlopen is not called under dl_iterate_phdr's lock. */
static int collect_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  object_list_t* list = data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') return 0;
  if (list->count == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 64;
    char** grown = realloc(list->names, cap * sizeof(char*));
    if (grown == NULL) return 1;
    list->names = grown;
    list->cap = cap;
  }
  char* copy = strdup(info->dlpi_name);
  if (copy != NULL) list->names[list->count++] = copy;
  return 0;
}

static void find_other_copy(void) {
  object_list_t list = {NULL, 0, 0};
  dl_iterate_phdr(collect_object, &list);
  int found = 0;
  for (size_t i = 0; i < list.count; i++) {
    if (!found) found = check_object(list.names[i]);
    free(list.names[i]);
  }
  free(list.names);
}
#else
static void find_other_copy(void) {} /* no way to list objects: no check */
#endif
#endif

/* Runs the detection once per copy; any thread may call. */
#if defined(_WIN32)
static INIT_ONCE find_once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK find_once_cb(PINIT_ONCE once, PVOID param, PVOID* ctx) {
  (void)once;
  (void)param;
  (void)ctx;
  find_other_copy();
  return TRUE;
}
const char* wtp__other_addon_copy(void) {
  InitOnceExecuteOnce(&find_once, find_once_cb, NULL, NULL);
  return other_copy[0] != '\0' ? other_copy : NULL;
}
#else
static pthread_once_t find_once = PTHREAD_ONCE_INIT;
const char* wtp__other_addon_copy(void) {
  pthread_once(&find_once, find_other_copy);
  return other_copy[0] != '\0' ? other_copy : NULL;
}
#endif
