/*
 * link.c — JIT linking through the driver: cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy. A link collects PTX units; completing it loads them together as
 * one module, as nvlink would (wv_module_load_units), to report link errors, and returns an image
 * that this driver's cuModuleLoadData / cuLibraryLoadData load the same way. This is how
 * numba-cuda and cuda-python (cuda.core's Linker) hand warpvm their code when nvJitLink declines
 * (src/nvjitlink).
 *
 * What a link takes:
 *  - PTX (CU_JIT_INPUT_PTX): one unit.
 *  - A fatbin, a host object (.o: its .nv_fatbin / __nv_relfatbin) or a static library (.a of such
 *    objects): the PTX each carries, the newest target warpvm runs (one unit per object).
 *  - NVIDIA's device runtime, libcudadevrt.a (an archive with cuda_device_runtime.o), whose PTX
 *    calls into the driver: replaced by warpvm's own cooperative-groups functions (devrt.c).
 *  - Machine code (a cubin, or a fatbin / object with SASS only) and LTO-IR are refused: the
 *    error log and stderr say why.
 * Options: the info and error log buffers (CU_JIT_INFO/ERROR_LOG_BUFFER[_SIZE_BYTES]) are filled,
 * and their SIZE_BYTES values set to the bytes written, as NVIDIA's driver does; the rest (code
 * generation) mean nothing to warpvm and are accepted.
 *
 * The image cuLinkComplete returns (a "cubin" in CUDA's words, valid until cuLinkDestroy) is text
 * that only this driver loads:
 *   //warpvm-linked-ptx\n
 *   //unit BYTES NAME\n   then BYTES bytes of PTX, for each unit in the order added
 * ending with a NUL (the size returned counts it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cu.h"
#include "fatbin/elf.h"
#include "fatbin/fatbin.h"

#define LINKED_MAGIC "//warpvm-linked-ptx\n"

enum { CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, CU_JIT_ERROR_LOG_BUFFER = 5,
       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1, CU_JIT_INPUT_FATBINARY = 2, CU_JIT_INPUT_OBJECT = 3,
       CU_JIT_INPUT_LIBRARY = 4, CU_JIT_INPUT_NVVM = 5 };

/* A log buffer the program gave (CU_JIT_*_LOG_BUFFER): filled from the start, NUL-terminated; the
 * bytes used go back into the program's SIZE_BYTES option value. */
typedef struct link_log { char *buf; size_t cap, used; void **size_slot; } link_log;

typedef struct cu_link {
  char **texts; size_t *lens; char **names;
  uint32_t n, cap;
  int devrt;              /* warpvm's device runtime is in already */
  link_log info, err;
  char *image;            /* cuLinkComplete's result */
} cu_link;

/* ---- logs ---- */
static void log_put(link_log *l, const char *msg) {
  if (!l->buf || !l->cap) return;
  size_t n = strlen(msg);
  if (l->used + 1 >= l->cap) return;
  if (n > l->cap - 1 - l->used) n = l->cap - 1 - l->used;
  memcpy(l->buf + l->used, msg, n);
  l->used += n;
  l->buf[l->used] = 0;
  if (l->size_slot) *l->size_slot = (void *)(uintptr_t)l->used;
}

/* A refused input or failed link: the message goes to the error log and, once, to stderr. */
static CUresult fail(cu_driver *d, cu_link *lk, CUresult e, const char *msg) {
  log_put(&lk->err, msg);
  log_put(&lk->err, "\n");
  if (cu_first_time(d, msg)) fprintf(stderr, "warpvm: cuLink: %s\n", msg);
  return e;
}

static void set_logs(cu_link *lk, unsigned n, const int *opts, void **vals) {
  for (unsigned i = 0; opts && vals && i < n; i++) {
    switch (opts[i]) {
    case CU_JIT_INFO_LOG_BUFFER: lk->info.buf = vals[i]; break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: lk->info.cap = (uintptr_t)vals[i], lk->info.size_slot = &vals[i]; break;
    case CU_JIT_ERROR_LOG_BUFFER: lk->err.buf = vals[i]; break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: lk->err.cap = (uintptr_t)vals[i], lk->err.size_slot = &vals[i]; break;
    default: break;
    }
  }
  link_log *logs[2] = {&lk->info, &lk->err};
  for (int i = 0; i < 2; i++) {
    if (logs[i]->buf && logs[i]->cap) logs[i]->buf[0] = 0;
    else logs[i]->buf = NULL;
    if (logs[i]->size_slot) *logs[i]->size_slot = (void *)0;
  }
}

/* ---- units ---- */
static CUresult add_unit(cu_link *lk, const char *text, size_t len, const char *name) {
  if (lk->n == lk->cap) {
    uint32_t cap = lk->cap ? 2 * lk->cap : 4;
    char **t = realloc(lk->texts, cap * sizeof *t);
    if (t) lk->texts = t;
    size_t *l = realloc(lk->lens, cap * sizeof *l);
    if (l) lk->lens = l;
    char **nm = realloc(lk->names, cap * sizeof *nm);
    if (nm) lk->names = nm;
    if (!t || !l || !nm) return CUDA_ERROR_OUT_OF_MEMORY;
    lk->cap = cap;
  }
  char *copy = malloc(len + 1);
  char *ncopy = strdup(name && *name ? name : "ptx");
  if (!copy || !ncopy) {
    free(copy);
    free(ncopy);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memcpy(copy, text, len);
  copy[len] = 0;
  for (char *c = ncopy; *c; c++)
    if (*c == '\n') *c = ' ';
  lk->texts[lk->n] = copy, lk->lens[lk->n] = len, lk->names[lk->n] = ncopy;
  lk->n++;
  return CUDA_SUCCESS;
}

/* The PTX of a fatbin image (the newest target warpvm runs, per unit). */
static CUresult add_fatbin(cu_driver *d, cu_link *lk, const void *image, size_t size, const char *name) {
  wv_fatbin fb;
  char err[512], msg[768];
  if (wv_fatbin_parse(image, size, &fb, err, sizeof err)) {
    snprintf(msg, sizeof msg, "%s: %s", name, err);
    return fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
  }
  CUresult e = CUDA_SUCCESS;
  int found = 0;
  for (uint32_t u = 0; u < fb.units && !e; u++) {
    int i = wv_fatbin_best_ptx_unit(&fb, u, WV_FATBIN_MAX_PTX_ARCH);
    if (i < 0) continue;
    size_t len;
    char *ptx = wv_fatbin_extract(&fb, (uint32_t)i, &len, err, sizeof err);
    if (!ptx) {
      snprintf(msg, sizeof msg, "%s: %s", name, err);
      e = fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
      break;
    }
    e = add_unit(lk, ptx, len, name);
    free(ptx);
    found = 1;
  }
  if (!e && !found) {
    char archs[256];
    wv_fatbin_describe(&fb, archs, sizeof archs);
    snprintf(msg, sizeof msg, "%s holds no PTX, only machine code (%s), which warpvm cannot run: build it with PTX "
             "(nvcc -gencode arch=compute_XX,code=compute_XX, or -arch=sm_XX which embeds both)", name,
             *archs ? archs : "none");
    e = fail(d, lk, CUDA_ERROR_NO_BINARY_FOR_GPU, msg);
  }
  wv_fatbin_free(&fb);
  return e;
}

/* A host object file: the fatbin nvcc embedded in it. */
static CUresult add_object(cu_driver *d, cu_link *lk, const void *data, size_t size, const char *name) {
  wv_elf e;
  char err[256], msg[512];
  if (wv_elf_open_mem(data, size, &e, err, sizeof err)) {
    snprintf(msg, sizeof msg, "%s: not an object file (%s)", name, err);
    return fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
  }
  size_t n = 0;
  const uint8_t *fb = wv_elf_section(&e, ".nv_fatbin", &n);
  if (!fb) fb = wv_elf_section(&e, "__nv_relfatbin", &n);
  CUresult r;
  if (!fb) {
    snprintf(msg, sizeof msg, "%s: an object file with no GPU code (no .nv_fatbin section)", name);
    r = fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
  } else {
    r = add_fatbin(d, lk, fb, n, name);
  }
  wv_elf_close(&e);
  return r;
}

static size_t ar_num(const char *s, size_t n) {
  size_t v = 0;
  for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + (size_t)(s[i] - '0');
  return v;
}

/* A static library ("!<arch>\n" then 60-byte member headers; GNU long names in the "//" member):
 * every object's PTX, or warpvm's device runtime for NVIDIA's libcudadevrt.a. */
static CUresult add_library(cu_driver *d, cu_link *lk, const uint8_t *data, size_t size, const char *name) {
  char msg[512];
  if (size < 8 || memcmp(data, "!<arch>\n", 8)) {
    snprintf(msg, sizeof msg, "%s: not a static library (ar archive)", name);
    return fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
  }
  const char *longnames = NULL;
  size_t nlong = 0;
  for (size_t off = 8; off + 60 <= size;) {
    const char *h = (const char *)data + off;
    size_t len = ar_num(h + 48, 10);
    if (len > size - off - 60) {
      snprintf(msg, sizeof msg, "%s: corrupt archive (member at offset %zu overruns the file)", name, off);
      return fail(d, lk, CUDA_ERROR_INVALID_IMAGE, msg);
    }
    const uint8_t *body = data + off + 60;
    char member[256];
    size_t ml = 0;
    if (h[0] == '/' && h[1] >= '0' && h[1] <= '9' && longnames) { /* "/123": offset into the long names */
      size_t at = ar_num(h + 1, 15);
      while (at + ml < nlong && longnames[at + ml] != '/' && longnames[at + ml] != '\n' && ml < sizeof member - 1)
        member[ml] = longnames[at + ml], ml++;
    } else {
      while (ml < 16 && h[ml] != '/' && h[ml] != ' ') member[ml] = h[ml], ml++;
    }
    member[ml] = 0;
    CUresult e = CUDA_SUCCESS;
    if (!memcmp(h, "//              ", 16)) {
      longnames = (const char *)body, nlong = len;
    } else if (h[0] == '/' && (h[1] == ' ' || !memcmp(h, "/SYM64/", 7))) {
      /* the symbol table */
    } else if (!strcmp(member, "cuda_device_runtime.o")) {
      if (!lk->devrt) {
        size_t n;
        const char *ptx = cu_devrt_ptx(&n);
        e = add_unit(lk, ptx, n, "warpvm-cudadevrt.ptx");
        lk->devrt = 1;
      }
    } else {
      char full[600];
      snprintf(full, sizeof full, "%s(%s)", name, member);
      e = add_object(d, lk, body, len, full);
    }
    if (e) return e;
    off += 60 + len + (len & 1);
  }
  return CUDA_SUCCESS;
}

static CUresult add_input(cu_driver *d, cu_link *lk, int type, const void *data, size_t size, const char *name) {
  char msg[512];
  const char *what = NULL;
  switch (type) {
  case CU_JIT_INPUT_PTX: {
    const char *t = data;
    size_t n = size ? strnlen(t, size) : strlen(t); /* the size may count a NUL */
    return add_unit(lk, t, n, name);
  }
  case CU_JIT_INPUT_FATBINARY: return add_fatbin(d, lk, data, size ? size : (size_t)1 << 30, name);
  case CU_JIT_INPUT_OBJECT: return add_object(d, lk, data, size, name);
  case CU_JIT_INPUT_LIBRARY: return add_library(d, lk, data, size, name);
  case CU_JIT_INPUT_CUBIN: what = "a cubin (machine code), which warpvm cannot run: link PTX instead"; break;
  case CU_JIT_INPUT_NVVM: what = "LTO-IR (NVVM), which warpvm cannot link: link PTX instead"; break;
  default:
    snprintf(msg, sizeof msg, "%s: unknown input type %d", name, type);
    return fail(d, lk, CUDA_ERROR_INVALID_VALUE, msg);
  }
  snprintf(msg, sizeof msg, "%s is %s", name, what);
  return fail(d, lk, type == CU_JIT_INPUT_CUBIN ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_NOT_SUPPORTED, msg);
}

/* ---- the linked image ---- */
int cu_linked_image(const void *image) {
  return image && !strncmp(image, LINKED_MAGIC, sizeof LINKED_MAGIC - 1);
}

/* The units of a linked image: their count, and with texts/lens given, where each lies. */
static uint32_t image_units(const char *image, const char **texts, size_t *lens, const char **end) {
  const char *p = image + sizeof LINKED_MAGIC - 1;
  uint32_t n = 0;
  while (!strncmp(p, "//unit ", 7)) {
    char *num_end;
    unsigned long long len = strtoull(p + 7, &num_end, 10);
    const char *nl = strchr(num_end, '\n');
    if (!nl || strnlen(nl + 1, len) < len) break;
    if (texts) texts[n] = nl + 1, lens[n] = len;
    n++;
    p = nl + 1 + len;
  }
  *end = p;
  return n;
}

wv_status cu_link_load(wv_vm *vm, const void *image, wv_module **out, char *why, size_t cap) {
  const char *end;
  uint32_t n = image_units(image, NULL, NULL, &end);
  if (!n || *end) {
    snprintf(why, cap, "a damaged warpvm linked-PTX image (%s)", n ? "bad unit header" : "no units");
    return WV_ERR_INVALID;
  }
  /* One unit is linked too (wv_module_load_units treats n == 1 as a plain module, whose undefined
   * functions fail only when called): an empty second unit makes undefined references errors here. */
  static const char EMPTY[] = ".version 8.0\n.target sm_90\n.address_size 64\n";
  const char **texts = malloc((n + 1) * sizeof *texts);
  size_t *lens = malloc((n + 1) * sizeof *lens);
  wv_status st = WV_ERR_NOMEM;
  if (texts && lens) {
    image_units(image, texts, lens, &end);
    if (n == 1) texts[n] = EMPTY, lens[n] = sizeof EMPTY - 1, n++;
    st = wv_module_load_units(vm, texts, lens, n, "linked", out);
    if (st != WV_OK) snprintf(why, cap, "%s", wv_last_error(vm));
  } else {
    snprintf(why, cap, "out of memory");
  }
  free(texts);
  free(lens);
  return st;
}

static CUresult complete(cu_driver *d, cu_link *lk, void **cubin, size_t *size) {
  if (!lk->n) return fail(d, lk, CUDA_ERROR_INVALID_VALUE, "nothing to link: no PTX was added");
  size_t total = sizeof LINKED_MAGIC;
  for (uint32_t i = 0; i < lk->n; i++) total += 48 + strlen(lk->names[i]) + lk->lens[i];
  free(lk->image);
  lk->image = malloc(total);
  if (!lk->image) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t at = (size_t)sprintf(lk->image, "%s", LINKED_MAGIC);
  for (uint32_t i = 0; i < lk->n; i++) {
    at += (size_t)sprintf(lk->image + at, "//unit %zu %s\n", lk->lens[i], lk->names[i]);
    memcpy(lk->image + at, lk->texts[i], lk->lens[i]);
    at += lk->lens[i];
  }
  lk->image[at++] = 0;
  /* Load it once, so that parse and link errors come back here, as they do from NVIDIA's driver. */
  char why[1024];
  wv_module *m = NULL;
  if (cu_link_load(d->vm, lk->image, &m, why, sizeof why) != WV_OK) return fail(d, lk, CUDA_ERROR_INVALID_PTX, why);
  wv_module_unload(m);
  log_put(&lk->info, "warpvm: linked PTX (run by warpvm, not compiled to machine code)\n");
  *cubin = lk->image;
  *size = at;
  return CUDA_SUCCESS;
}

static void link_free(cu_link *lk) {
  for (uint32_t i = 0; i < lk->n; i++) free(lk->texts[i]), free(lk->names[i]);
  free(lk->texts), free(lk->lens), free(lk->names), free(lk->image);
  free(lk);
}

/* ---- the API ---- */
CU_EXPORT CUresult cuLinkCreate_v2(unsigned n, int *opts, void **vals, void **state) {
  cu_driver *d = cu_lock();
  if (!state) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  cu_link *lk = calloc(1, sizeof *lk);
  if (!lk || cu_obj_add(d, lk, CU_K_LINK)) {
    free(lk);
    return cu_ret(CUDA_ERROR_OUT_OF_MEMORY);
  }
  set_logs(lk, n, opts, vals);
  *state = lk;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuLinkCreate(unsigned n, int *opts, void **vals, void **state) {
  return cuLinkCreate_v2(n, opts, vals, state);
}

CU_EXPORT CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n,
                                    int *opts, void **vals) {
  (void)n, (void)opts, (void)vals;
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, state, CU_K_LINK)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if (!data) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  return cu_ret(add_input(d, state, type, data, size, name ? name : "data"));
}

CU_EXPORT CUresult cuLinkAddData(void *state, int type, void *data, size_t size, const char *name, unsigned n,
                                 int *opts, void **vals) {
  return cuLinkAddData_v2(state, type, data, size, name, n, opts, vals);
}

CU_EXPORT CUresult cuLinkAddFile_v2(void *state, int type, const char *path, unsigned n, int *opts, void **vals) {
  (void)n, (void)opts, (void)vals;
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, state, CU_K_LINK)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if (!path) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  FILE *f = fopen(path, "rb");
  char msg[600];
  if (!f) {
    snprintf(msg, sizeof msg, "%s: cannot open the file", path);
    return cu_ret(fail(d, state, CUDA_ERROR_FILE_NOT_FOUND, msg));
  }
  char *buf = NULL;
  size_t len = 0, got;
  CUresult e = CUDA_SUCCESS;
  for (size_t cap = 0;;) {
    if (len + 65537 > cap) {
      cap = 2 * cap + 65537;
      char *b = realloc(buf, cap);
      if (!b) {
        e = CUDA_ERROR_OUT_OF_MEMORY;
        break;
      }
      buf = b;
    }
    if ((got = fread(buf + len, 1, 65536, f)) == 0) break;
    len += got;
  }
  fclose(f);
  if (!e) {
    buf[len] = 0;
    e = add_input(d, state, type, buf, len, path);
  }
  free(buf);
  return cu_ret(e);
}

CU_EXPORT CUresult cuLinkAddFile(void *state, int type, const char *path, unsigned n, int *opts, void **vals) {
  return cuLinkAddFile_v2(state, type, path, n, opts, vals);
}

CU_EXPORT CUresult cuLinkComplete(void *state, void **cubin, size_t *size) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, state, CU_K_LINK)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if (!cubin || !size) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = cu_check(d);
  if (e) return cu_ret(e);
  return cu_ret(complete(d, state, cubin, size));
}

CU_EXPORT CUresult cuLinkDestroy(void *state) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, state, CU_K_LINK)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_obj_del(d, state);
  link_free(state);
  return cu_ret(CUDA_SUCCESS);
}
