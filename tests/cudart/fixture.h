/*
 * fixture.h — what the tests of warpvm's libcudart share: a PTX file of the source tree wrapped in a
 * fatbin as nvcc lays it out (one container, one uncompressed PTX entry) for __cudaRegisterFatBinary,
 * and running this test program again as a child process (a fresh runtime, its own environment) with
 * its stdout and stderr captured.
 */
#ifndef WV_TESTS_CUDART_FIXTURE_H
#define WV_TESTS_CUDART_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A file of the source tree (WV_SRC), NUL-terminated; NULL if it cannot be read. */
static char *wv_test_read_text(const char *rel, size_t *len) {
  const char *src = getenv("WV_SRC");
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = calloc(1, (size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* A fatbin as nvcc lays it out (see src/fatbin/fatbin.h): one container, one uncompressed PTX entry. */
static uint64_t *wv_test_make_fatbin(const char *ptx, size_t len) {
  size_t payload = (len + 1 + 7) & ~(size_t)7;
  size_t total = 16 + 64 + payload;
  uint64_t *img = calloc(1, total);
  uint8_t *b = (uint8_t *)img;
  uint32_t magic = 0xBA55ED50u;
  uint16_t v1 = 1, h16 = 16, kind = 1, x0101 = 0x0101, minor = 0, major = 8;
  uint64_t body = 64 + payload, stored = payload, flags = 0x11;
  uint32_t hdr = 64, arch = 80;
  memcpy(b, &magic, 4), memcpy(b + 4, &v1, 2), memcpy(b + 6, &h16, 2), memcpy(b + 8, &body, 8);
  uint8_t *e = b + 16;
  memcpy(e, &kind, 2), memcpy(e + 2, &x0101, 2), memcpy(e + 4, &hdr, 4), memcpy(e + 8, &stored, 8);
  memcpy(e + 24, &minor, 2), memcpy(e + 26, &major, 2), memcpy(e + 28, &arch, 4), memcpy(e + 40, &flags, 8);
  memcpy(e + 64, ptx, len);
  return img;
}

/* Runs this program again as `PROGRAM mode` with env_name=env_value set (env_name NULL: WARPVM_CHECK
 * unset); its exit status (128 if killed), and its stdout and stderr in the buffers. */
static int wv_test_run_child(const char *mode, const char *env_name, const char *env_value, char *out, size_t outcap,
                             char *err, size_t errcap) {
  char fo[] = "/tmp/wv_cudart_outXXXXXX", fe[] = "/tmp/wv_cudart_errXXXXXX";
  int o = mkstemp(fo), e = mkstemp(fe);
  if (o < 0 || e < 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(o, 1), dup2(e, 2);
    if (env_name) setenv(env_name, env_value, 1);
    else unsetenv("WARPVM_CHECK");
    execl("/proc/self/exe", "test_cudart", mode, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ssize_t n = pread(o, out, outcap - 1, 0), m = pread(e, err, errcap - 1, 0);
  out[n > 0 ? n : 0] = 0, err[m > 0 ? m : 0] = 0;
  close(o), close(e), unlink(fo), unlink(fe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#endif
