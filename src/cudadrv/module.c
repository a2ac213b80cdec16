/*
 * module.c — GPU code through the driver: modules (cuModuleLoad*: PTX text, a fatbin image, a
 * fatbin wrapper or cuLinkComplete's linked PTX (link.c); machine code alone is refused with advice), libraries (cuLibrary*: a library is
 * a module, its kernels are its functions), functions and their attributes, globals, kernel
 * launches (cuLaunchKernel with parameter pointers or a packed buffer, cuLaunchKernelEx with
 * attributes, cooperative launches) and the occupancy calculator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudadrv/cuapi.h"
#include "cudadrv/graph.h"
#include "fatbin/fatbin.h"

/* ---- loading ---- */
static void module_free(cu_driver *d, cu_module *m) {
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    cu_obj_del(d, m->funcs[i]);
    free(m->funcs[i]);
  }
  free(m->funcs);
  wv_module_unload(m->m);
  cu_obj_del(d, m);
  free(m);
}

/* The vm module of image (what cuModuleLoadData takes: PTX text, a fatbin, a fatbin wrapper, cuLinkComplete's
 * image, or an ELF cubin, which is refused), or NULL with why and the error CUDA gives; *arch: its PTX target. */
static wv_module *load_code(cu_driver *d, const void *image, uint32_t *arch, char *why, size_t whylen, CUresult *e) {
  uint32_t magic;
  memcpy(&magic, image, 4);
  wv_module *wm = NULL;
  why[0] = 0;
  *arch = 0;
  if (magic == WV_FATBIN_WRAPPER_MAGIC || magic == WV_FATBIN_MAGIC) {
    wm = wv_fatbin_load(d->vm, image, magic == WV_FATBIN_WRAPPER_MAGIC, (size_t)1 << 30, arch, why, whylen);
    *e = CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (!wm && strstr(why, "error:")) *e = CUDA_ERROR_INVALID_PTX;
    if (!wm && wv_fatbin_why_devside_sync(why)) *e = CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC;
  } else if (magic == 0x464c457fu) { /* "\x7fELF": a cubin */
    snprintf(why, whylen,
             "a cubin (machine code) was loaded, which warpvm cannot run: load PTX instead (nvcc -ptx, or a fatbin "
             "built with -arch=sm_XX so that it embeds PTX)");
    *e = CUDA_ERROR_NO_BINARY_FOR_GPU;
  } else if (cu_linked_image(image)) { /* cuLinkComplete's image */
    if (cu_link_load(d->vm, image, &wm, why, whylen) != WV_OK) wm = NULL;
    *e = CUDA_ERROR_INVALID_PTX;
  } else {
    const char *text = image;
    if (wv_module_load_string(d->vm, text, strlen(text), "module.ptx", &wm) != WV_OK) {
      snprintf(why, whylen, "%s", wv_last_error(d->vm));
      wm = NULL;
    }
    *e = CUDA_ERROR_INVALID_PTX;
  }
  return wm;
}

/* Load image as a new module. */
static CUresult load(cu_driver *d, const void *image, cu_module **out) {
  if (!image) return CUDA_ERROR_INVALID_VALUE;
  CUresult e = cu_check(d);
  if (e) return e;
  char why[1024];
  uint32_t arch;
  wv_module *wm = load_code(d, image, &arch, why, sizeof why, &e);
  if (!wm) {
    if (cu_first_time(d, why)) fprintf(stderr, "warpvm: cannot load the GPU code: %s\n", why);
    return e;
  }
  cu_module *m = calloc(1, sizeof *m);
  if (!m || cu_obj_add(d, m, CU_K_MODULE)) {
    free(m);
    wv_module_unload(wm);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  m->m = wm;
  m->arch = arch ? arch : 90;
  m->next = d->modules;
  d->modules = m;
  *out = m;
  return CUDA_SUCCESS;
}

static void unlink_module(cu_driver *d, cu_module *m) {
  for (cu_module **p = &d->modules; *p; p = &(*p)->next)
    if (*p == m) {
      *p = m->next;
      break;
    }
}

/* A primary context reset: modules are the context's and go; a library is independent of contexts
 * (CUDA 12's context-independent loading) and keeps its handles, its code loaded afresh so that its
 * variables are back to their initial values, as in a new context. */
void cu_reset_modules(cu_driver *d) {
  cu_module **p = &d->modules;
  while (*p) {
    cu_module *m = *p;
    wv_module *fresh = NULL;
    if (m->library) {
      char why[512];
      uint32_t arch;
      CUresult e;
      fresh = load_code(d, m->image, &arch, why, sizeof why, &e);
    }
    if (!fresh) {
      *p = m->next;
      module_free(d, m);
      continue;
    }
    for (uint32_t i = 0; i < m->nfuncs; i++) { /* the same code: every kernel is there again */
      cu_func *f = m->funcs[i];
      wv_kernel_get(fresh, f->name, &f->k);
      f->name = wv_kernel_name(f->k);
      f->max_dyn_shared = -1, f->carveout = 0;
    }
    wv_module_unload(m->m);
    m->m = fresh;
    p = &m->next;
  }
}

CUresult cu_module_from_fatbin(const void *wrapper, void **module) {
  cu_driver *d = cu_lock();
  if (!module) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  return cu_ret(load(d, wrapper, (cu_module **)module));
}

CU_EXPORT CUresult cuModuleLoadData(void **module, const void *image) {
  cu_driver *d = cu_lock();
  if (!module) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  return cu_ret(load(d, image, (cu_module **)module));
}

CU_EXPORT CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *opts, void **vals) {
  (void)n, (void)opts, (void)vals;
  return cuModuleLoadData(module, image);
}

CU_EXPORT CUresult cuModuleLoadFatBinary(void **module, const void *image) { return cuModuleLoadData(module, image); }

CU_EXPORT CUresult cuModuleLoad(void **module, const char *path) {
  if (!module || !path) return CUDA_ERROR_INVALID_VALUE;
  FILE *f = fopen(path, "rb");
  if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  char chunk[65536];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (len + n + 1 > cap) {
      cap = (len + n + 1) * 2;
      char *b = realloc(buf, cap);
      if (!b) {
        free(buf);
        fclose(f);
        return CUDA_ERROR_OUT_OF_MEMORY;
      }
      buf = b;
    }
    memcpy(buf + len, chunk, n);
    len += n;
  }
  fclose(f);
  if (!buf || len < 4) {
    free(buf);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  buf[len] = 0;
  CUresult e = cuModuleLoadData(module, buf);
  free(buf);
  return e;
}

CU_EXPORT CUresult cuModuleUnload(void *module) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, module, CU_K_MODULE)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_sync_point(d);
  unlink_module(d, module);
  module_free(d, module);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuModuleGetLoadingMode(int *mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = 2; /* CU_MODULE_LAZY_LOADING: what CUDA 12.2+ defaults to */
  return CUDA_SUCCESS;
}

/* The function of module m named name (made once, then the same handle). */
static CUresult get_func(cu_driver *d, cu_module *m, const char *name, cu_func **out) {
  if (!cu_obj_check(d, m, CU_K_MODULE)) return CUDA_ERROR_INVALID_HANDLE;
  if (!name || !out) return CUDA_ERROR_INVALID_VALUE;
  const wv_kernel *k;
  if (wv_kernel_get(m->m, name, &k) != WV_OK) return CUDA_ERROR_NOT_FOUND;
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->k == k) {
      *out = m->funcs[i];
      return CUDA_SUCCESS;
    }
  cu_func **nf = realloc(m->funcs, (m->nfuncs + 1) * sizeof *nf);
  if (!nf) return CUDA_ERROR_OUT_OF_MEMORY;
  m->funcs = nf;
  cu_func *f = calloc(1, sizeof *f);
  if (!f || cu_obj_add(d, f, CU_K_FUNC)) {
    free(f);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  f->mod = m, f->k = k, f->max_dyn_shared = -1;
  f->name = wv_kernel_name(k);
  m->funcs[m->nfuncs++] = f;
  *out = f;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  cu_driver *d = cu_lock();
  return cu_ret(get_func(d, module, name, (cu_func **)f));
}

CU_EXPORT CUresult cuModuleGetFunctionCount(unsigned *count, void *module) {
  cu_driver *d = cu_lock();
  if (!count) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, module, CU_K_MODULE)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *count = wv_module_kernel_count(((cu_module *)module)->m);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuModuleEnumerateFunctions(void **fns, unsigned n, void *module) {
  cu_driver *d = cu_lock();
  if (!fns) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, module, CU_K_MODULE)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_module *m = module;
  uint32_t total = wv_module_kernel_count(m->m);
  for (uint32_t i = 0; i < n && i < total; i++) {
    CUresult e = get_func(d, m, wv_kernel_name(wv_module_kernel_at(m->m, i)), (cu_func **)&fns[i]);
    if (e) return cu_ret(e);
  }
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, void *module, const char *name) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, module, CU_K_MODULE)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  if (!name) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  wv_devptr a;
  size_t n;
  if (wv_module_symbol(((cu_module *)module)->m, name, &a, &n) != WV_OK) return cu_ret(CUDA_ERROR_NOT_FOUND);
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return cu_ret(CUDA_SUCCESS);
}

/* ---- libraries: a library is a module, a kernel is a function ---- */
CU_EXPORT CUresult cuLibraryLoadData(void **lib, const void *code, void *jo, void *jv, unsigned nj, void *lo, void *lv,
                                     unsigned nl) {
  (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
  cu_driver *d = cu_lock();
  if (!lib) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  CUresult e = load(d, code, (cu_module **)lib);
  if (e == CUDA_SUCCESS) ((cu_module *)*lib)->library = 1, ((cu_module *)*lib)->image = code;
  return cu_ret(e);
}

CU_EXPORT CUresult cuLibraryLoadFromFile(void **lib, const char *path, void *jo, void *jv, unsigned nj, void *lo,
                                         void *lv, unsigned nl) {
  (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
  return cuModuleLoad(lib, path);
}

CU_EXPORT CUresult cuLibraryUnload(void *lib) { return cuModuleUnload(lib); }
CU_EXPORT CUresult cuLibraryGetKernel(void **k, void *lib, const char *name) { return cuModuleGetFunction(k, lib, name); }
CU_EXPORT CUresult cuLibraryGetModule(void **module, void *lib) {
  cu_driver *d = cu_lock();
  if (!module) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, lib, CU_K_MODULE)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *module = lib;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuLibraryGetKernelCount(unsigned *count, void *lib) { return cuModuleGetFunctionCount(count, lib); }
CU_EXPORT CUresult cuLibraryEnumerateKernels(void **ks, unsigned n, void *lib) {
  return cuModuleEnumerateFunctions(ks, n, lib);
}
CU_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, void *lib, const char *name) {
  return cuModuleGetGlobal_v2(dptr, bytes, lib, name);
}
CU_EXPORT CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, void *lib, const char *name) {
  return cuModuleGetGlobal_v2(dptr, bytes, lib, name);
}
CU_EXPORT CUresult cuKernelGetFunction(void **f, void *k) {
  cu_driver *d = cu_lock();
  if (!f) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, k, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *f = k;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuKernelGetLibrary(void **lib, void *k) {
  cu_driver *d = cu_lock();
  if (!lib) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, k, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *lib = ((cu_func *)k)->mod;
  return cu_ret(CUDA_SUCCESS);
}

/* ---- function attributes (CU_FUNC_ATTRIBUTE_*) ---- */
static CUresult func_attr(cu_driver *d, int *v, int attr, cu_func *f) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  if (!cu_obj_check(d, f, CU_K_FUNC)) return CUDA_ERROR_INVALID_HANDLE;
  switch (attr) {
  case 0: *v = (int)wv_kernel_max_threads(f->k); break;
  case 1: *v = (int)wv_kernel_static_shared(f->k); break;
  case 2: case 3: *v = 0; break;        /* const and local bytes */
  case 4: *v = 32; break;               /* registers: the occupancy calculator assumes 32 */
  case 5: case 6: *v = f->mod ? (int)f->mod->arch : 90; break; /* warpvm's runtime's kernels: no module */
  case 7: *v = 0; break;
  case 8: *v = wvcu_dyn_shared_limit(f->k, f->max_dyn_shared); break;
  case 9: *v = f->carveout ? f->carveout : -1; break;
  case 10: case 11: case 12: case 13: { /* cluster: must be set; the required width, height, depth */
    uint32_t c[3];
    int must;
    int fixed = wv_kernel_cluster(f->k, c, &must);
    *v = attr == 10 ? must : (int)(fixed ? c[attr - 11] : f->cluster[attr - 11]);
    break;
  }
  case 14: *v = f->nonportable_cluster; break;
  case 15: *v = f->cluster_policy; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult func_set_attr(cu_driver *d, cu_func *f, int attr, int v) {
  if (!cu_obj_check(d, f, CU_K_FUNC)) return CUDA_ERROR_INVALID_HANDLE;
  if (attr == 8) {
    if (v < 0 || (size_t)v + wv_kernel_static_shared(f->k) > WV_OPTIN_SHARED) return CUDA_ERROR_INVALID_VALUE;
    f->max_dyn_shared = v;
  } else if (attr == 9) {
    if (v < -1 || v > 100) return CUDA_ERROR_INVALID_VALUE;
    f->carveout = v;
  } else if (attr >= 11 && attr <= 13) { /* the cluster shape of launches that give none (a compiled-in one is fixed) */
    uint32_t c[3];
    if (wv_kernel_cluster(f->k, c, NULL)) return CUDA_ERROR_INVALID_VALUE; /* a compiled-in shape, as an H200 */
    if (v < 0) return CUDA_ERROR_INVALID_VALUE;
    f->cluster[attr - 11] = (uint32_t)v;
  } else if (attr == 14) {
    f->nonportable_cluster = v != 0;
  } else if (attr == 15) {
    if (v < 0 || v > 2) return CUDA_ERROR_INVALID_VALUE;
    f->cluster_policy = v;
  } else if (attr != 10) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  cu_driver *d = cu_lock();
  return cu_ret(func_attr(d, v, attr, f));
}
CU_EXPORT CUresult cuFuncSetAttribute(void *f, int attr, int v) {
  cu_driver *d = cu_lock();
  return cu_ret(func_set_attr(d, f, attr, v));
}
CU_EXPORT CUresult cuKernelGetAttribute(int *v, int attr, void *k, CUdevice dev) {
  if (dev) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(v, attr, k);
}
CU_EXPORT CUresult cuKernelSetAttribute(int attr, int v, void *k, CUdevice dev) {
  if (dev) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(k, attr, v);
}
CU_EXPORT CUresult cuFuncSetCacheConfig(void *f, int c) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  return cu_ret(c >= 0 && c <= 3 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
CU_EXPORT CUresult cuKernelSetCacheConfig(void *k, int c, CUdevice dev) {
  if (dev) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(k, c);
}
CU_EXPORT CUresult cuFuncSetSharedMemConfig(void *f, int c) { return cuFuncSetCacheConfig(f, c < 3 ? c : 9); }
CU_EXPORT CUresult cuFuncGetName(const char **name, void *f) {
  cu_driver *d = cu_lock();
  if (!name) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *name = wv_kernel_name(((cu_func *)f)->k);
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuKernelGetName(const char **name, void *k) { return cuFuncGetName(name, k); }
CU_EXPORT CUresult cuFuncGetModule(void **module, void *f) { return cuKernelGetLibrary(module, f); }
CU_EXPORT CUresult cuFuncIsLoaded(int *state, void *f) {
  cu_driver *d = cu_lock();
  if (!state) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *state = 1; /* CU_FUNCTION_LOADING_STATE_LOADED */
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuFuncLoad(void *f) {
  cu_driver *d = cu_lock();
  return cu_ret(cu_obj_check(d, f, CU_K_FUNC) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}
CU_EXPORT CUresult cuFuncGetParamInfo(void *f, size_t index, size_t *offset, size_t *size) {
  cu_driver *d = cu_lock();
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  const wv_kernel *k = ((cu_func *)f)->k;
  if (index >= wv_kernel_param_count(k)) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  wv_param_info p = wv_kernel_param(k, (uint32_t)index);
  if (offset) *offset = p.offset;
  if (size) *size = p.size;
  return cu_ret(CUDA_SUCCESS);
}
CU_EXPORT CUresult cuKernelGetParamInfo(void *k, size_t index, size_t *offset, size_t *size) {
  return cuFuncGetParamInfo(k, index, offset, size);
}

/* ---- launches ---- */
/* A launch that does not start: its error comes back from the launch and is never sticky; why is
 * said on stderr, once for each distinct reason. */
static CUresult refuse(cu_driver *d, const cu_func *f, CUresult e, const char *why) {
  char msg[768];
  snprintf(msg, sizeof msg, "warpvm: launch of kernel '%s' refused (CUresult %d): %s", wv_kernel_name(f->k), e, why);
  if (cu_first_time(d, msg)) fprintf(stderr, "%s\n", msg);
  return e;
}

#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

CUresult cu_launch(cu_driver *d, cu_func *f, wv_dim3 grid, wv_dim3 block, unsigned shared, void **params,
                   void **extra, int coop) {
  CUresult e = cu_check(d);
  if (e) return e;
  if (!cu_obj_check(d, f, CU_K_FUNC)) return CUDA_ERROR_INVALID_HANDLE;
  char why[512];
  switch (wvcu_launch_check(&d->prop, f->k, f->max_dyn_shared, grid, block, shared, coop, why, sizeof why)) {
  case WVCU_LAUNCH_OK: break;
  case WVCU_COOP_TOO_LARGE: return refuse(d, f, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, why);
  default: return refuse(d, f, CUDA_ERROR_INVALID_VALUE, why);
  }
  /* Arguments: an array of pointers to each value, or one packed buffer (extra). */
  uint32_t n = wv_kernel_param_count(f->k);
  void *stack_args[64], **args = params;
  if (!params && extra) {
    const uint8_t *buf = NULL;
    size_t size = 0;
    for (void **x = extra; *x != CU_LAUNCH_PARAM_END; x += 2) {
      if (x[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = x[1];
      else if (x[0] == CU_LAUNCH_PARAM_BUFFER_SIZE && x[1]) size = *(size_t *)x[1];
      else return CUDA_ERROR_INVALID_VALUE;
    }
    args = n <= 64 ? stack_args : malloc(n * sizeof *args);
    if (!args) return CUDA_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
      wv_param_info p = wv_kernel_param(f->k, i);
      if (!buf || p.offset + p.size > size) {
        if (args != stack_args) free(args);
        return refuse(d, f, CUDA_ERROR_INVALID_VALUE, "the packed parameter buffer is smaller than the parameters");
      }
      args[i] = (void *)(buf + p.offset);
    }
  } else if (n && !params) {
    return refuse(d, f, CUDA_ERROR_INVALID_VALUE, "no kernel parameters given");
  }
  if (!(coop & WV_LAUNCH_CLUSTER(0xff, 0xff, 0xff)) && f->cluster[0]) /* the shape cuFuncSetAttribute set */
    coop |= (int)wvcu_cluster_flags(f->cluster[0], f->cluster[1], f->cluster[2], f->nonportable_cluster);
  cu_flush_printf(d); /* CUDA flushes the printf buffer at the start of a launch */
  cu_hostreg_recheck(d);
  wv_status st = wv_launch_ex(d->vm, f->k, grid, block, shared, args, (uint32_t)coop); /* WV_LAUNCH_* */
  if (args != params && args != stack_args) free(args);
  switch (st) {
  case WV_OK: return CUDA_SUCCESS;
  case WV_ERR_LAUNCH: case WV_ERR_INVALID: case WV_ERR_UNSUPPORTED: case WV_ERR_CLUSTER:
    return refuse(d, f, cu_from_status(st), wv_last_error(d->vm));
  case WV_ERR_NOMEM: return refuse(d, f, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, wv_last_error(d->vm));
  default:
    fprintf(stderr, "warpvm: %s\n", wv_last_error(d->vm));
    if (d->pending == CUDA_SUCCESS) d->pending = cu_from_status(st);
    return CUDA_SUCCESS;
  }
}

/* warpvm's runtime's kernels as driver functions (for graph kernel nodes and captured launches): made on first
 * use in *slot, kept in step with the runtime's binding (its kernel after a reset, its dynamic shared memory
 * limit). Not part of any module. */
CU_EXPORT void *wvcu_func(void **slot, const wv_kernel *k, int max_dyn_shared) {
  cu_driver *d = cu_lock();
  cu_func *f = *slot;
  if (!f) {
    if (!(f = calloc(1, sizeof *f)) || cu_obj_add(d, f, CU_K_FUNC)) {
      free(f);
      cu_ret(CUDA_SUCCESS);
      return NULL;
    }
    *slot = f;
  }
  f->k = k, f->name = wv_kernel_name(k), f->max_dyn_shared = max_dyn_shared;
  cu_ret(CUDA_SUCCESS);
  return f;
}

/* A launch on a stream: now, or while the stream captures, a kernel node (its own copy of the arguments). */
static CUresult launch_on(void *stream, cu_func *f, wv_dim3 grid, wv_dim3 block, unsigned shared, void **params,
                          void **extra, int coop) {
  cu_driver *d = cu_lock();
  cu_stream *s;
  CUresult e = cu_check(d);
  if (!e) e = cu_stream_get(d, stream, "cuLaunchKernel", &s);
  if (e || !s || !s->capture) return cu_ret(e ? e : cu_launch(d, f, grid, block, shared, params, extra, coop));
  cu_kernel_params p = {f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, params, extra, NULL, NULL};
  cu_op op;
  if ((e = cu_kernel_op(d, &p, &op))) return cu_ret(e);
  op.u.k.coop = coop;
  e = cu_capture_op(d, s, &op);
  cu_op_free(d, &op);
  return cu_ret(e);
}

CU_EXPORT int wvcu_launch_flags(void *f, wv_dim3 grid, wv_dim3 block, unsigned shared, void *stream, void **args,
                                uint32_t flags) {
  return launch_on(stream, f, grid, block, shared, args, NULL, (int)flags);
}

CU_EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, void *stream, void **params, void **extra) {
  return launch_on(stream, f, (wv_dim3){gx, gy, gz}, (wv_dim3){bx, by, bz}, shared, params, extra, 0);
}

CU_EXPORT CUresult cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                             unsigned bz, unsigned shared, void *stream, void **params) {
  return launch_on(stream, f, (wv_dim3){gx, gy, gz}, (wv_dim3){bx, by, bz}, shared, params, NULL, 1);
}

/* CUlaunchConfig / CUlaunchAttribute (cuda.h): an attribute is an id padded to 8 bytes and a 64-byte value. */
typedef struct { int id; char pad[4]; union { int i; unsigned u3[3]; char raw[64]; } v; } cu_launch_attr;
typedef struct {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void *hStream;
  cu_launch_attr *attrs;
  unsigned numAttrs;
} cu_launch_config;
enum { CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };

CU_EXPORT CUresult cuLaunchKernelEx(const cu_launch_config *c, void *f, void **params, void **extra) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  uint32_t flags = 0;
  cu_driver *d = cu_lock();
  cu_func *fn = cu_obj_check(d, f, CU_K_FUNC) ? f : NULL;
  for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
    const cu_launch_attr *a = &c->attrs[i];
    if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->v.i) flags |= WV_LAUNCH_COOPERATIVE;
    else if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      flags |= wvcu_cluster_flags(a->v.u3[0], a->v.u3[1], a->v.u3[2], fn && fn->nonportable_cluster);
  }
  return cu_ret(launch_on(c->hStream, f, (wv_dim3){c->gridDimX, c->gridDimY, c->gridDimZ},
                          (wv_dim3){c->blockDimX, c->blockDimY, c->blockDimZ}, c->sharedMemBytes, params, extra,
                          (int)flags)); /* launch_on locks again: the lock is recursive */
}

/* ---- occupancy ---- */
/* cuOccupancyMaxActiveClusters: the cluster shape is the config's attribute, else the kernel's (compiled in or
 * set with cuFuncSetAttribute); a kernel with neither needs the attribute. */
CU_EXPORT CUresult cuOccupancyMaxActiveClusters(int *n, void *f, const cu_launch_config *c) {
  cu_driver *d = cu_lock();
  if (!n || !c) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_func *fn = f;
  uint32_t cl[3] = {fn->cluster[0], fn->cluster[1], fn->cluster[2]}, fixed[3];
  if (wv_kernel_cluster(fn->k, fixed, NULL)) memcpy(cl, fixed, sizeof cl);
  for (unsigned i = 0; c->attrs && i < c->numAttrs; i++)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) memcpy(cl, c->attrs[i].v.u3, sizeof cl);
  uint64_t size = (uint64_t)cl[0] * cl[1] * cl[2];
  if (!size || size > (fn->nonportable_cluster ? 16u : 8u)) return cu_ret(CUDA_ERROR_INVALID_CLUSTER_SIZE);
  int threads = (int)(c->blockDimX * c->blockDimY * c->blockDimZ);
  *n = wvcu_max_active_clusters(&d->prop, fn->k, threads, c->sharedMemBytes, (uint32_t)size);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuOccupancyMaxPotentialClusterSize(int *n, void *f, const cu_launch_config *c) {
  cu_driver *d = cu_lock();
  if (!n || !c) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_func *fn = f;
  int threads = (int)(c->blockDimX * c->blockDimY * c->blockDimZ);
  *n = wvcu_occupancy(&d->prop, fn->k, threads, c->sharedMemBytes) > 0 ? (fn->nonportable_cluster ? 16 : 8) : 0;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, void *f, int block, size_t dyn,
                                                                        unsigned flags) {
  (void)flags;
  cu_driver *d = cu_lock();
  if (!n) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  *n = wvcu_occupancy(&d->prop, ((cu_func *)f)->k, block, dyn);
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t dyn) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, dyn, 0);
}

typedef size_t (*block_to_smem)(int block);

CU_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size, void *f, block_to_smem fn,
                                                             size_t dyn, int limit, unsigned flags) {
  (void)flags;
  cu_driver *d = cu_lock();
  if (!min_grid || !block_size) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  const wv_kernel *k = ((cu_func *)f)->k;
  int max = (int)wv_kernel_max_threads(k);
  if (limit > 0 && limit < max) max = limit;
  int best = 0, best_block = 32;
  for (int b = max - max % 32; b >= 32; b -= 32) { /* the largest block reaching the best occupancy */
    int occ = wvcu_occupancy(&d->prop, k, b, fn ? fn(b) : dyn) * b;
    if (occ > best) best = occ, best_block = b;
  }
  *block_size = best_block;
  *min_grid = wvcu_occupancy(&d->prop, k, best_block, fn ? fn(best_block) : dyn) * d->prop.multiProcessorCount;
  return cu_ret(CUDA_SUCCESS);
}

CU_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, void *f, block_to_smem fn, size_t dyn,
                                                    int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, f, fn, dyn, limit, 0);
}

CU_EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *out, void *f, int nblocks, int block) {
  cu_driver *d = cu_lock();
  if (!out || nblocks <= 0) return cu_ret(CUDA_ERROR_INVALID_VALUE);
  if (!cu_obj_check(d, f, CU_K_FUNC)) return cu_ret(CUDA_ERROR_INVALID_HANDLE);
  cu_func *fn = f;
  *out = wvcu_avail_dyn_shared(&d->prop, fn->k, fn->max_dyn_shared, nblocks, block);
  return cu_ret(CUDA_SUCCESS);
}
