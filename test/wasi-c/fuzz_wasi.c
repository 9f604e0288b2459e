/* fuzz_wasi.c: libFuzzer over the WASI's imports. Each input makes a WASI
 * over a fresh temp dir (preopen "/") with /dev/null as stdio, fills a 64
 * KiB guest memory with the input, then calls imports chosen and fed by the
 * input: small values, pointers into memory, pointers at its end and raw
 * words. Every answer must be a WASI errno or WTP_WASI_STOPPED; ASan and
 * UBSan watch the rest. Some inputs stop the WASI first.
 *
 * Kept from blocking or filling the disk: /dev/null never waits, a clock
 * subscription's timeout is cut to under 1 ms, and fd_allocate's length to
 * under 1 MiB (file sizes set by seek or set_size stay sparse). */
#include <ftw.h>

#include "wasi_harness.h"

#define FUZZ_MEM 65536u
#define MAX_CALLS 64

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

typedef struct input {
  const uint8_t *data;
  size_t size, at;
} input;

static uint32_t take32(input *in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v = v << 8 | (in->at < in->size ? in->data[in->at++] : 0);
  return v;
}

static uint8_t take8(input *in) {
  return in->at < in->size ? in->data[in->at++] : 0;
}

static uint64_t take_arg(input *in, char kind) {
  uint8_t selector = take8(in);
  uint32_t v = take32(in);
  switch (selector % 4) {
    case 0:
      return v & 0xff;
    case 1:
      return v % FUZZ_MEM;
    case 2:
      return FUZZ_MEM - (v & 0xff);
    default:
      return kind == 'I' ? (uint64_t)v << 32 | take32(in) : v;
  }
}

static int import_count(void) {
  int n = 0;
  while (wtp_wasi_imports[n].name != NULL) n++;
  return n;
}

/* Keeps a call from sleeping or allocating disk (see the top). */
static void tame(const wtp_wasi_import *import, uint64_t *args,
                 const wtp_wasi_memory *m) {
  if (strcmp(import->name, "fd_allocate") == 0) args[2] %= 1u << 20;
  if (strcmp(import->name, "poll_oneoff") == 0 &&
      wtp__wasi_range_ok(m, args[0], args[2] * 48)) {
    for (uint64_t i = 0; i < args[2]; i++) {
      uint64_t at = args[0] + 48 * i;
      if (m->base[at + 8] == WASI_EVENTTYPE_CLOCK) {
        uint32_t low = wtp__wasi_load32(m, at + 24) % 1000000u;
        wtp__wasi_store64(m, at + 24, low);
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int count;
  if (count == 0) {
    signal(SIGPIPE, SIG_IGN);
    count = import_count();
  }
  char dir[64];
  temp_dir(dir, sizeof dir);
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  wtp_wasi_preopen preopen = {dir, "/"};
  const char *argv[] = {"fuzz"};
  wtp_wasi_config config = {
      argv, 1, argv, 1, &preopen, 1, {null_fd, null_fd, null_fd}};
  wtp_wasi *wasi = NULL;
  char error[256];
  if (wtp_wasi_create(&config, &wasi, error, sizeof error) != 0) abort();
  close(null_fd);
  wtp_wasi_memory m = guest_memory(FUZZ_MEM);
  memcpy(m.base, data, size < FUZZ_MEM ? size : FUZZ_MEM);
  input in = {data, size, 0};
  if (take8(&in) == 0xff) wtp_wasi_stop(wasi);
  for (int call = 0; call < MAX_CALLS && in.at < in.size; call++) {
    const wtp_wasi_import *import = &wtp_wasi_imports[take8(&in) % count];
    uint64_t args[16] = {0};
    for (size_t i = 0; import->params[i] != '\0' && i < 16; i++)
      args[i] = take_arg(&in, import->params[i]);
    tame(import, args, &m);
    uint32_t err = import->call(wasi, &m, args);
    if (err > WASI_ENOTCAPABLE && err != WTP_WASI_STOPPED) {
      fprintf(stderr, "%s answered %u\n", import->name, err);
      abort();
    }
  }
  free(m.base);
  wtp_wasi_release(wasi);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
