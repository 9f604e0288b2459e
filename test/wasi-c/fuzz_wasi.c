/* fuzz_wasi.c: libFuzzer over the WASI's imports. Each input makes a WASI
 * over a fresh temp dir (preopen "/") with /dev/null as stdio, fills a 64
 * KiB guest memory with the input, then calls imports chosen and fed by the
 * input: small values, pointers into memory, pointers at its end and raw
 * words. Every answer must be a WASI errno or WTP_WASI_STOPPED; ASan and
 * UBSan watch the rest. Some inputs stop the WASI first.
 *
 * Paths (the sandbox, wasi_path.c): beside the temp dirs, one per process
 * holds secret (out); each temp dir holds links that escape (to "..", to
 * out by an absolute and a relative path, a loop), and a path call's path
 * argument is now and then replaced by one of a list of hostile paths.
 * After every input out must hold secret alone, unchanged: nothing escaped.
 *
 * Kept from blocking or filling the disk: /dev/null never waits, a clock
 * subscription's timeout is cut to under 1 ms, and fd_allocate's length to
 * under 1 MiB (file sizes set by seek or set_size stay sparse). */
#include <dirent.h>
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

/* Paths that try the sandbox (see the top), written at the end of memory. */
static const char *const hostile_paths[] = {
    "..",         "up/x",    "/",      "up/../x",   "abs/secret",
    "rel/secret", "rel/new", "loop/x", "d/../../x", "d/./../abs",
    "rel",        "abs",     "d/",     "d/../up",   ""};
#define HOSTILE_COUNT (sizeof hostile_paths / sizeof hostile_paths[0])
#define HOSTILE_AT (FUZZ_MEM - 64 * HOSTILE_COUNT)

/* Where a path call's paths are: the index of each (pointer, length) pair
 * (the length follows) and of the directory fd it is resolved beneath (-1:
 * none, a symlink's text). */
static const struct {
  const char *name;
  int ptr[2], fd[2];
} path_args[] = {
    {"path_create_directory", {1, -1}, {0, -1}},
    {"path_filestat_get", {2, -1}, {0, -1}},
    {"path_filestat_set_times", {2, -1}, {0, -1}},
    {"path_link", {2, 5}, {0, 4}},
    {"path_open", {2, -1}, {0, -1}},
    {"path_readlink", {1, -1}, {0, -1}},
    {"path_remove_directory", {1, -1}, {0, -1}},
    {"path_rename", {1, 4}, {0, 3}},
    {"path_symlink", {0, 3}, {-1, 2}},
    {"path_unlink_file", {1, -1}, {0, -1}},
};

/* A path argument whose pointer is a multiple of 3 becomes a hostile path,
 * resolved beneath the preopen (fd 3). */
static void hostile(const wtp_wasi_import *import, uint64_t *args,
                    wtp_wasi_memory *m) {
  for (size_t i = 0; i < sizeof path_args / sizeof path_args[0]; i++) {
    if (strcmp(import->name, path_args[i].name) != 0) continue;
    for (int k = 0; k < 2 && path_args[i].ptr[k] >= 0; k++) {
      uint64_t *ptr = &args[path_args[i].ptr[k]];
      if (*ptr % 3 != 0) continue;
      size_t which = (size_t)(*ptr / 3 % HOSTILE_COUNT);
      size_t len = strlen(hostile_paths[which]);
      memcpy(m->base + HOSTILE_AT + 64 * which, hostile_paths[which], len);
      *ptr = HOSTILE_AT + 64 * which;
      ptr[1] = len;
      if (path_args[i].fd[k] >= 0) args[path_args[i].fd[k]] = 3;
    }
  }
}

/* out/secret, made once per process beside the inputs' temp dirs, and
 * removed at exit. */
static char out[64];

static void remove_outside(void) {
  nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *outside(void) {
  if (out[0] != '\0') return out;
  temp_dir(out, sizeof out);
  atexit(remove_outside);
  char path[96];
  snprintf(path, sizeof path, "%s/secret", out);
  FILE *f = fopen(path, "w");
  if (f == NULL || fputs("secret", f) < 0 || fclose(f) != 0) abort();
  return out;
}

/* The input's temp dir (the preopen): links that escape, and d/. */
static void make_tree(const char *dir) {
  char path[128], rel[96];
  const char *out = outside();
  snprintf(rel, sizeof rel, "..%s", strrchr(out, '/'));
  const char *const links[][2] = {
      {"..", "up"}, {out, "abs"}, {rel, "rel"}, {"loop", "loop"}};
  for (size_t i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, links[i][1]);
    if (symlink(links[i][0], path) != 0) abort();
  }
  snprintf(path, sizeof path, "%s/d", dir);
  if (mkdir(path, 0700) != 0) abort();
}

/* out/ holds secret alone, unchanged. */
static void check_outside(void) {
  char path[96], bytes[16] = {0};
  snprintf(path, sizeof path, "%s/secret", outside());
  FILE *f = fopen(path, "r");
  if (f == NULL) abort();
  size_t n = fread(bytes, 1, sizeof bytes - 1, f);
  fclose(f);
  if (n != 6 || memcmp(bytes, "secret", 6) != 0) abort();
  DIR *d = opendir(outside());
  struct dirent *e;
  int entries = 0;
  while (d != NULL && (e = readdir(d)) != NULL) entries++;
  if (d != NULL) closedir(d);
  if (entries != 3) abort(); /* ".", ".." and secret */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int count;
  if (count == 0) {
    signal(SIGPIPE, SIG_IGN);
    count = import_count();
  }
  char dir[64];
  temp_dir(dir, sizeof dir);
  make_tree(dir);
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
    hostile(import, args, &m);
    uint32_t err = import->call(wasi, &m, args);
    if (err > WASI_ENOTCAPABLE && err != WTP_WASI_STOPPED) {
      fprintf(stderr, "%s answered %u\n", import->name, err);
      abort();
    }
  }
  free(m.base);
  wtp_wasi_release(wasi);
  check_outside();
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
