// check.h — the few helpers the self-checking test programs share.
//
// Every check prints one line "WHAT: PASS" or "WHAT: FAIL (...)"; finish() prints the summary line and returns
// the exit status (0 when every check passed). Nothing printed here may depend on the hardware: no pointers,
// timings, SM counts or device names — only the checks and values the program computed itself.
#pragma once
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

static int g_checks, g_failed;

// Line-buffered stdout, so the program's own lines and the device's printf lines (written when the host
// synchronises) come out in program order also when stdout is a pipe or a file.
static inline void begin(void) { setvbuf(stdout, nullptr, _IOLBF, 0); }

// "WHAT: PASS" when ok, else "WHAT: FAIL"; WHAT is a printf format.
static inline bool check(bool ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(": %s\n", ok ? "PASS" : "FAIL");
  g_checks++;
  g_failed += !ok;
  return ok;
}

// "WHAT: PASS" when the call returned cudaSuccess, else "WHAT: FAIL (cudaErrorX)".
static inline bool check_cuda(cudaError_t e, const char *what) {
  g_checks++;
  if (e == cudaSuccess) {
    printf("%s: PASS\n", what);
    return true;
  }
  g_failed++;
  printf("%s: FAIL (%s)\n", what, cudaGetErrorName(e));
  return false;
}
#define CK(call) check_cuda((call), #call)

// "WHAT -> cudaErrorX: PASS" when the call returned the expected code, else "... FAIL (got cudaErrorY)".
static inline bool check_err(cudaError_t got, cudaError_t want, const char *what) {
  g_checks++;
  if (got == want) {
    printf("%s -> %s: PASS\n", what, cudaGetErrorName(want));
    return true;
  }
  g_failed++;
  printf("%s -> %s: FAIL (got %s)\n", what, cudaGetErrorName(want), cudaGetErrorName(got));
  return false;
}

// Counts the mismatches of n values against a reference; prints one check line.
template <class T, class F>
static inline bool check_all(const T *got, size_t n, F expected, const char *what) {
  size_t bad = 0, first = n;
  for (size_t i = 0; i < n; i++)
    if (!(got[i] == expected(i))) {
      if (!bad) first = i;
      bad++;
    }
  if (bad) return check(false, "%s (%zu of %zu wrong, first at %zu)", what, bad, n, first);
  return check(true, "%s (%zu values)", what, n);
}

// The summary line; returns the exit status.
static inline int finish(const char *program) {
  printf("%s: %d checks, %d failed: %s\n", program, g_checks, g_failed, g_failed ? "FAIL" : "PASS");
  return g_failed ? 1 : 0;
}
