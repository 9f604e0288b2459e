/* wasi_harness_core.h: the OS-neutral part of the WASI C tests' harness:
 * test/c's CHECK harness, a malloc'd guest memory, calls through
 * wtp_wasi_find_import (as the binding makes them), a WASI made from stdio
 * descriptors and one preopen. Included by wasi_harness.h (POSIX tests) and
 * wasi_harness_os.h (tests that also run on Windows). */
#ifndef WTP_WASI_HARNESS_CORE_H
#define WTP_WASI_HARNESS_CORE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c/harness.h"
#include "wasi_errno.h"
#include "wasi_internal.h"
#include "wtp_wasi.h"

/* A guest memory of `size` bytes (zeroed). */
static inline wtp_wasi_memory guest_memory(uint64_t size) {
  wtp_wasi_memory memory = {calloc(1, (size_t)size), size};
  if (memory.base == NULL) abort();
  return memory;
}

/* Calls the import `name` with the given arguments (as uint64_t). */
static inline uint32_t call_import(wtp_wasi *wasi,
                                   const wtp_wasi_memory *memory,
                                   const char *name, const uint64_t *args) {
  const wtp_wasi_import *import = wtp_wasi_find_import(name);
  if (import == NULL) {
    fprintf(stderr, "no import %s\n", name);
    abort();
  }
  return import->call(wasi, memory, args);
}
#define CALL(wasi, memory, name, ...) \
  call_import((wasi), (memory), (name), (const uint64_t[]){__VA_ARGS__, 0})

/* A WASI with the given stdio (-1: closed) and no preopen, or abort. */
static inline wtp_wasi *make_wasi(int in, int out, int err,
                                  const char *preopen_dir) {
  const char *argv[] = {"prog", "arg one"};
  const char *envp[] = {"A=1", "EMPTY="};
  wtp_wasi_preopen preopen = {preopen_dir, "/sandbox"};
  wtp_wasi_config config = {
      argv, 2, envp, 2, &preopen, preopen_dir ? 1 : 0, {in, out, err}};
  wtp_wasi *wasi = NULL;
  char error[256];
  int rc = wtp_wasi_create(&config, &wasi, error, sizeof error);
  if (rc != 0) {
    fprintf(stderr, "wtp_wasi_create: %s\n", error);
    abort();
  }
  return wasi;
}

/* Writes an iovec (one buffer) at iov_ptr pointing at buf_ptr. */
static inline void put_iovec(const wtp_wasi_memory *memory, uint64_t iov_ptr,
                             uint64_t buf_ptr, uint32_t len) {
  wtp__wasi_store32(memory, iov_ptr, (uint32_t)buf_ptr);
  wtp__wasi_store32(memory, iov_ptr + 4, len);
}

#endif /* WTP_WASI_HARNESS_CORE_H */
