// A search of one long line: reads all of stdin into one buffer that grows
// as a line reader's does (realloc, doubling: the program's memory grows to
// hundreds of MiB for a 400 MB line), then counts a needle in it with N
// threads, each over its share of the line, and prints the count. The
// memory behaviour of ripgrep over one huge line, in a few lines of C.
// Built for wasm32-wasi-threads (with a 2 GiB maximum memory) by
// bench/lib/run-spread.js.
//
//   long-line [needle=needle] [threads=2]

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 64

static char *line;
static size_t length;
static const char *needle;
static size_t needle_length;
static int threads;
static size_t counts[MAX_THREADS];

static void *search(void *arg) {
  long i = (long)arg;
  size_t share = length / threads;
  size_t from = i * share, to = i == threads - 1 ? length : from + share;
  size_t count = 0;
  for (size_t at = from; at < to && at + needle_length <= length; at++)
    count +=
        line[at] == needle[0] && memcmp(line + at, needle, needle_length) == 0;
  counts[i] = count;
  return NULL;
}

int main(int argc, char **argv) {
  needle = argc > 1 ? argv[1] : "needle";
  needle_length = strlen(needle);
  threads = argc > 2 ? atoi(argv[2]) : 2;
  if (needle_length == 0 || threads < 1 || threads > MAX_THREADS) {
    fprintf(stderr, "usage: long-line [needle] [threads 1-%d]\n", MAX_THREADS);
    return 2;
  }
  size_t capacity = 8192;
  line = malloc(capacity);
  for (;;) {
    if (line == NULL) {
      perror("long-line: realloc");
      return 1;
    }
    if (length == capacity) {
      capacity *= 2;
      line = realloc(line, capacity);
      continue;
    }
    ssize_t got = read(0, line + length, capacity - length);
    if (got < 0) {
      perror("long-line: read");
      return 1;
    }
    if (got == 0) break;
    length += got;
  }
  pthread_t ids[MAX_THREADS];
  for (long i = 0; i < threads; i++)
    pthread_create(&ids[i], NULL, search, (void *)i);
  size_t total = 0;
  for (long i = 0; i < threads; i++) {
    pthread_join(ids[i], NULL);
    total += counts[i];
  }
  printf("%zu bytes, %zu matches\n", length, total);
  return 0;
}
