/* plain.c: an ordinary single-threaded WASI program (no -pthread), for
 * test/program-plain.test.js, built with clang-19 and the wasi-threads
 * sysroot into a module that defines its own, non-shared memory. It prints
 * its arguments and GREETING, grows its memory well past its first size (a
 * non-shared memory's buffer moves when it grows), prints the lines of
 * /data/hello.txt, counts the bytes of stdin, writes a line to stderr, and
 * exits with its first argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  for (int i = 0; i < argc; i++) printf("arg %s\n", argv[i]);
  const char *greeting = getenv("GREETING");
  printf("GREETING %s\n", greeting ? greeting : "(none)");

  size_t size = (size_t)64 << 20;
  char *big = malloc(size);
  if (big == NULL) return 99;
  memset(big, 'x', size);
  printf("grew %zu\n", size);
  free(big);

  FILE *file = fopen("/data/hello.txt", "r");
  if (file != NULL) {
    char line[128];
    while (fgets(line, sizeof line, file) != NULL) printf("file %s", line);
    fclose(file);
  }

  char buffer[256];
  size_t total = 0;
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, stdin)) > 0) total += got;
  printf("stdin %zu\n", total);
  fflush(stdout);
  fprintf(stderr, "to stderr\n");
  return argc > 1 ? atoi(argv[1]) : 0;
}
