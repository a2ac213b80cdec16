/*
 * replay.c — runs a libFuzzer harness without libFuzzer: every file named on the command line (or
 * found in a directory named there) is passed once to LLVMFuzzerTestOneInput. The normal build uses
 * it to replay tests/fuzz/regressions/TARGET/ (inputs that once crashed) as CTest tests, with gcc and
 * under the ASan/UBSan build as well; a crash is the test failing.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "replay: cannot open %s\n", path); return -1; }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1); /* exactly n bytes: ASan sees any read past the input */
  size_t got = b ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!b || got != (size_t)n) { free(b); fprintf(stderr, "replay: cannot read %s\n", path); return -1; }
  LLVMFuzzerTestOneInput(b, got);
  free(b);
  return 0;
}

static int compare(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of a directory, in name order (not recursive). */
static int run_dir(const char *dir, unsigned *count) {
  DIR *d = opendir(dir);
  if (!d) { fprintf(stderr, "replay: cannot open directory %s\n", dir); return -1; }
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
    if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names))) return -1;
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, compare);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (!stat(path, &st) && S_ISREG(st.st_mode)) {
      printf("replay: %s\n", path);
      fflush(stdout);
      rc |= run_file(path);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  unsigned count = 0;
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) rc |= run_dir(argv[i], &count);
    else { rc |= run_file(argv[i]); count++; }
  }
  printf("replay: %u inputs, no crash\n", count);
  return rc ? 1 : 0;
}
