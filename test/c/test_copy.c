/* test_copy.c: the addon-copy detection (src/node/addon_copy.c). The Makefile
 * builds addon_copy.c alone as a shared object and copies it under a second
 * name; loading both as Node loads addons (RTLD_LOCAL) must make the second
 * one report the first by path, while the first, which looked before the
 * second existed, reports none, and loading the same path again is the
 * same object, not a copy. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef const char* (*other_copy_fn)(void);

static void* load(const char* path, other_copy_fn* fn) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
  CHECK(handle != NULL);
  *fn = handle
            ? (other_copy_fn)(uintptr_t)dlsym(handle, "wtp__other_addon_copy")
            : NULL;
  CHECK(*fn != NULL);
  return handle;
}

static char first[PATH_MAX], second[PATH_MAX];

static void test_second_copy_found(void) {
  other_copy_fn fa = NULL, fb = NULL, fa_again = NULL;
  void* ha = load(first, &fa);
  if (fa == NULL) return;
  CHECK(fa() == NULL); /* alone in the process */
  void* ha_again = load(first, &fa_again);
  CHECK(ha_again == ha); /* the same path is the same object */
  CHECK(fa_again == fa);
  CHECK(fa() == NULL);
  void* hb = load(second, &fb);
  if (fb == NULL) return;
  CHECK(fb != fa);
  const char* found = fb();
  CHECK(found != NULL);
  if (found != NULL) {
    CHECK_EQ(strcmp(found, first), 0);
    if (strcmp(found, first) != 0) fprintf(stderr, "found %s\n", found);
  }
  CHECK(fb() == found); /* looked once */
  CHECK(fa() == NULL);  /* the first looked before the second came */
  dlclose(hb);
  dlclose(ha_again);
  dlclose(ha);
}

int main(int argc, char** argv) {
  (void)argc;
  char self[PATH_MAX];
  if (realpath(argv[0], self) == NULL) return 2;
  const char* dir = dirname(self);
  snprintf(first, sizeof first, "%s/libaddon_copy.so", dir);
  snprintf(second, sizeof second, "%s/libaddon_copy_b.so", dir);
  RUN(test_second_copy_found);
  return harness_summary("test_copy");
}
