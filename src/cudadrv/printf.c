/*
 * printf.c — the device printf FIFO (cudaLimitPrintfFifoSize / CU_LIMIT_PRINTF_FIFO_SIZE), owned by
 * the driver so that warpvm's runtime and NVIDIA's (static) runtime see one. A kernel's printf
 * records (one per printf call of one thread: its formatted text) are kept in order in a buffer of
 * at most the limit's bytes until CUDA's flush points (launch, synchronisation, blocking copies,
 * exit) write them to stdout. When a record does not fit, the oldest records are dropped until it
 * does, and a record larger than the whole FIFO is dropped: an H100 keeps the newest output of an
 * overfull FIFO too ("older output is overwritten", as the CUDA programming guide says). The loss is
 * said once on stderr. The limit is 1 MiB by default (64 KiB per SM of the virtual device's 16, as an
 * H100 reports 64 KiB x 132 SMs), clamped as an H100 does: 512 KiB to 2 GiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cu.h"
#include "cudadrv/wvcu.h"

#define FIFO_DEFAULT ((size_t)1 << 20)
#define FIFO_MIN ((size_t)512 << 10)
#define FIFO_MAX ((size_t)2 << 30)

static void drop_oldest(cu_fifo *f) {
  uint32_t n = f->rec[f->rhead];
  f->head += n;
  f->len -= n;
  f->rhead = (f->rhead + 1) % f->rcap;
  f->nrec--;
  f->dropped++;
}

static int grow_records(cu_fifo *f) {
  uint32_t nc = f->rcap ? 2 * f->rcap : 256;
  uint32_t *n = malloc((size_t)nc * sizeof *n);
  if (!n || nc < f->rcap) {
    free(n);
    return -1;
  }
  for (uint32_t i = 0; i < f->nrec; i++) n[i] = f->rec[(f->rhead + i) % f->rcap];
  free(f->rec);
  f->rec = n, f->rcap = nc, f->rhead = 0;
  return 0;
}

/* Room for len + n bytes from buf[0] (n <= limit - len). */
static int make_room(cu_fifo *f, size_t n) {
  if (f->head + f->len + n <= f->cap) return 0;
  if (f->head) {
    memmove(f->buf, f->buf + f->head, f->len);
    f->head = 0;
  }
  if (f->len + n <= f->cap) return 0;
  size_t nc = f->cap ? f->cap : 4096;
  while (nc < f->len + n) nc = nc > f->limit / 2 ? f->limit : 2 * nc;
  char *b = realloc(f->buf, nc);
  if (!b) return -1;
  f->buf = b, f->cap = nc;
  return 0;
}

/* The vm's printf sink (user: the driver): one call is one printf record. */
void cu_printf_record(void *user, const char *text, size_t n) {
  cu_fifo *f = &((cu_driver *)user)->fifo;
  f->used = 1;
  if (!n) return;
  if (n > f->limit) { /* larger than the whole FIFO */
    f->dropped++;
    return;
  }
  while (f->nrec && f->len + n > f->limit) drop_oldest(f);
  if ((f->nrec == f->rcap && grow_records(f)) || make_room(f, n)) {
    f->dropped++;
    return;
  }
  memcpy(f->buf + f->head + f->len, text, n);
  f->len += n;
  f->rec[(f->rhead + f->nrec++) % f->rcap] = (uint32_t)n;
}

void cu_flush_printf(cu_driver *d) {
  cu_fifo *f = &d->fifo;
  if (f->len) fwrite(f->buf + f->head, 1, f->len, stdout);
  f->head = f->len = 0;
  f->nrec = f->rhead = 0;
  if (f->dropped && cu_first_time(d, "printf FIFO overflow")) {
    fflush(stdout);
    fprintf(stderr,
            "warpvm: %llu device printf records were lost: the printf FIFO holds %zu bytes of output between "
            "flushes (cudaDeviceSetLimit(cudaLimitPrintfFifoSize, BYTES) raises it); the oldest records go first "
            "(not repeated)\n",
            (unsigned long long)f->dropped, f->limit);
  }
  f->dropped = 0;
}

void cu_printf_reset(cu_driver *d) {
  d->fifo.used = 0;
  d->fifo.limit = FIFO_DEFAULT;
}

int cu_printf_limit(cu_driver *d, size_t *get, size_t set) {
  cu_fifo *f = &d->fifo;
  if (set) {
    if (f->used) return -1; /* CUDA: not after a kernel that uses printf has run */
    cu_flush_printf(d);
    f->limit = set < FIFO_MIN ? FIFO_MIN : set > FIFO_MAX ? FIFO_MAX : set;
  }
  if (get) *get = f->limit;
  return 0;
}

CU_EXPORT void wvcu_flush_printf(void) {
  cu_driver *d = cu_lock();
  cu_flush_printf(d);
  cu_ret(CUDA_SUCCESS);
}

CU_EXPORT int wvcu_printf_limit(size_t *get, size_t set) {
  cu_driver *d = cu_lock();
  int r = cu_printf_limit(d, get, set);
  cu_ret(CUDA_SUCCESS);
  return r;
}

CU_EXPORT void wvcu_printf_reset(void) {
  cu_driver *d = cu_lock();
  cu_printf_reset(d);
  cu_ret(CUDA_SUCCESS);
}
