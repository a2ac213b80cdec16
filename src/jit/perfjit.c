/*
 * perfjit.c — what Linux perf learns of the JIT's code when WARPVM_JIT_PERFMAP=1 (README "Engines"): each
 * region's name, "FUNCTION:PTXLINE", in /tmp/perf-PID.map (perf report names samples by it), and its name and
 * bytes in a jitdump, $TMPDIR/jit-PID.dump (perf's own format, tools/perf/Documentation/jitdump-specification.txt),
 * from which `perf inject --jit` makes an ELF image of each region so that `perf annotate` shows its hot
 * instructions:
 *
 *   WARPVM_JIT_PERFMAP=1 perf record -k mono -o p.data warpvm ...
 *   perf inject --jit -i p.data -o pj.data && perf annotate -i pj.data
 *
 * The jitdump is written when an object is linked: its symbols' names and sizes come from the object file, their
 * addresses from the JIT. The file is opened once per JIT and mapped executable for one page, which perf records
 * (that mapping is how `perf inject` finds the file); several JITs of one process append to it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "jit/perfjit.h"

#if WV_HAVE_LLVM
#include <llvm-c/Object.h>

#define JITDUMP_MAGIC 0x4A695444u
#define JIT_CODE_LOAD 0u
#if defined(__x86_64__)
#define ELF_MACH 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define ELF_MACH 183 /* EM_AARCH64 */
#else
#define ELF_MACH 0
#endif

int wv_perfjit_on(void) {
  const char *on = getenv("WARPVM_JIT_PERFMAP");
  return on && !strcmp(on, "1");
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* (perf record -k mono: the samples' clock) */
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The jitdump's file, opened (and its header written, by the first JIT of the process) at the first record. */
static int dump_open(wv_perfjit *p) {
  if (p->state) return p->state > 0 ? 0 : -1;
  p->state = -1;
  char path[4096];
  const char *dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/jit-%ld.dump", dir && *dir ? dir : "/tmp", (long)getpid());
  int fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_APPEND | O_CLOEXEC, 0644), first = fd >= 0;
  if (!first) fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) return -1;
  p->fd = fd;
  if (first) {
    struct {
      uint32_t magic, version, total_size, elf_mach, pad1, pid;
      uint64_t timestamp, flags;
    } h = {JITDUMP_MAGIC, 1, sizeof h, ELF_MACH, 0, (uint32_t)getpid(), mono_ns(), 0};
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h) return -1;
  }
  long page = sysconf(_SC_PAGESIZE);
  p->mark = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  if (p->mark == MAP_FAILED) p->mark = NULL;
  p->state = 1;
  return 0;
}

/* One JIT_CODE_LOAD record: name, and the size bytes of code at addr, in one write (appends do not interleave). */
static void dump_code(wv_perfjit *p, const char *name, uint64_t addr, uint64_t size) {
  if (dump_open(p) || !size || size > (64u << 20)) return;
  size_t nlen = strlen(name) + 1;
  struct {
    uint32_t id, total_size;
    uint64_t timestamp;
    uint32_t pid, tid;
    uint64_t vma, code_addr, code_size, code_index;
  } r = {JIT_CODE_LOAD, 0, mono_ns(), (uint32_t)getpid(), (uint32_t)gettid(), addr, addr, size, p->index++};
  size_t total = sizeof r + nlen + size;
  r.total_size = (uint32_t)total;
  char *buf = malloc(total);
  if (!buf) return;
  memcpy(buf, &r, sizeof r);
  memcpy(buf + sizeof r, name, nlen);
  memcpy(buf + sizeof r + nlen, (const void *)(uintptr_t)addr, size);
  if (write(p->fd, buf, total) != (ssize_t)total) { /* (a profile without this region's bytes) */ }
  free(buf);
}

int wv_perfjit_symbols(LLVMMemoryBufferRef obj, wv_perfjit_sym **syms, uint32_t *nsyms) {
  char *msg = NULL;
  LLVMBinaryRef bin = LLVMCreateBinary(obj, NULL, &msg);
  LLVMDisposeMessage(msg);
  if (!bin) return -1;
  LLVMSymbolIteratorRef it = LLVMObjectFileCopySymbolIterator(bin);
  for (; it && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, it); LLVMMoveToNextSymbol(it)) {
    const char *name = LLVMGetSymbolName(it);
    uint64_t size = LLVMGetSymbolSize(it);
    if (!name || strncmp(name, "wv_", 3) || !size) continue; /* (the regions: sym_name's names) */
    wv_perfjit_sym *nv = realloc(*syms, (*nsyms + 1) * sizeof **syms);
    if (!nv || !(nv[*nsyms].name = strdup(name))) {
      if (nv) *syms = nv;
      break;
    }
    nv[*nsyms].size = size;
    *syms = nv;
    ++*nsyms;
  }
  if (it) LLVMDisposeSymbolIterator(it);
  LLVMDisposeBinary(bin);
  return 0;
}

void wv_perfjit_load(wv_perfjit *p, const wv_func *f, const wv_perfjit_sym *syms, uint32_t nsyms,
                     uint64_t (*address)(void *, const char *), void *arg) {
  for (uint32_t i = 0; i < nsyms; i++) {
    uint64_t a = address(arg, syms[i].name);
    if (!a) continue;
    const char *u = strrchr(syms[i].name, '_'); /* (sym_name: ..._PC) */
    unsigned long pc = u ? strtoul(u + 1, NULL, 10) : 0;
    char name[320];
    snprintf(name, sizeof name, "%s:%u", f->name, pc < f->ncode ? f->code[pc].line : 0);
    dump_code(p, name, a, syms[i].size);
  }
}

void wv_perfjit_free_syms(wv_perfjit_sym *syms, uint32_t nsyms) {
  for (uint32_t i = 0; i < nsyms; i++) free(syms[i].name);
  free(syms);
}

void wv_perfjit_close(wv_perfjit *p) {
  if (p->mark) munmap(p->mark, (size_t)sysconf(_SC_PAGESIZE));
  if (p->state > 0) close(p->fd);
  *p = (wv_perfjit){0};
}

void wv_perfjit_map(const wv_func *f, const uint16_t *len, const wv_jit_entry *entry) {
  if (!wv_perfjit_on()) return;
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  FILE *fp = fopen(path, "a");
  if (!fp) return;
  for (uint32_t pc = 0; pc < f->ncode; pc++) { /* (a region's size: to the next one's start, at most 64 KiB) */
    if (!len[pc]) continue;
    uintptr_t a = (uintptr_t)entry[pc], next = a + 65536;
    for (uint32_t q = 0; q < f->ncode; q++) {
      uintptr_t b = len[q] ? (uintptr_t)entry[q] : 0;
      if (b > a && b < next) next = b;
    }
    fprintf(fp, "%lx %lx %s:%u\n", (unsigned long)a, (unsigned long)(next - a), f->name, f->code[pc].line);
  }
  fclose(fp);
}
#endif
