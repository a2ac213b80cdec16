/*
 * register.c — the registration ABI nvcc's host code calls from static constructors:
 * __cudaRegisterFatBinary (parse the fatbin, pick its best PTX, load it as a warpvm module),
 * __cudaRegisterFunction / Var / ManagedVar / HostVar (bind host shadows to PTX symbols),
 * __cudaRegisterFatBinaryEnd, __cudaInitModule, __cudaUnregisterFatBinary; and the lookups the
 * rest of the runtime uses (host function → kernel, host variable → device symbol).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart/cudart.h"
#include "fatbin/fatbin.h"

static cr_fatbin *fatbin_of(cudart *r, void **handle) {
  for (cr_fatbin *f = r->fatbins; f; f = f->next)
    if ((void **)f == handle) return f;
  return NULL;
}

/* Load the best PTX of every unit as one module (fb->nmods 0 or 1; fatbin/load.c). */
static void load_fatbin(cudart *r, cr_fatbin *fb, const void *wrapper) {
  wv_module *m = wv_fatbin_load(r->vm, wrapper, 1, 0, &fb->arch, fb->why, sizeof fb->why);
  fb->nmods = 0;
  if (m) fb->mods[fb->nmods++] = m;
}

/* The module of fb that defines kernel `name`, or NULL. */
static wv_module *module_with_kernel(cr_fatbin *fb, const char *name, const wv_kernel **k) {
  for (uint32_t i = 0; i < fb->nmods; i++)
    if (wv_kernel_get(fb->mods[i], name, k) == WV_OK) return fb->mods[i];
  *k = NULL;
  return NULL;
}

WV_EXPORT void **__cudaRegisterFatBinary(void *wrapper) {
  cudart *r = wv_cr();
  cr_fatbin *fb = calloc(1, sizeof *fb);
  if (!fb) {
    fprintf(stderr, "warpvm: out of memory registering a fatbin\n");
    exit(1);
  }
  fb->wrapper = wrapper;
  load_fatbin(r, fb, wrapper);
  if (!fb->nmods) fprintf(stderr, "warpvm: cannot load the program's GPU code: %s\n", fb->why);
  fb->next = r->fatbins;
  r->fatbins = fb;
  r->fatbins_live++;
  wv_cr_unlock();
  return (void **)fb;
}

/* Managed variables: nvcc's host code reads them through a pointer the runtime fills in. */
static void bind_managed(cudart *r, cr_fatbin *fb) {
  for (uint32_t i = 0; fb && i < r->nvars; i++) {
    cr_var *v = &r->vars[i];
    wv_devptr a;
    size_t n;
    if (v->fb == fb && v->managed && v->managed_slot && wv_cr_var_addr(r, v, &a, &n) == cudaSuccess)
      *v->managed_slot = (void *)(uintptr_t)a;
  }
}

WV_EXPORT void __cudaRegisterFatBinaryEnd(void **handle) {
  cudart *r = wv_cr();
  bind_managed(r, fatbin_of(r, handle));
  wv_cr_unlock();
}

/* cudaDeviceReset: a new context — every module is loaded afresh (variables back to their initial values). */
void wv_cr_reload_modules(cudart *r) {
  for (cr_fatbin *fb = r->fatbins; fb; fb = fb->next) {
    for (uint32_t i = 0; i < fb->nmods; i++) wv_module_unload(fb->mods[i]);
    fb->why[0] = 0;
    load_fatbin(r, fb, fb->wrapper);
    bind_managed(r, fb);
  }
  for (uint32_t i = 0; i < r->nfuncs; i++) {
    cr_func *f = r->funcs[i];
    f->max_dyn_shared = -1;
    f->carveout = 0;
    f->mod = module_with_kernel(f->fb, f->name, &f->k);
  }
}

WV_EXPORT char __cudaInitModule(void **handle) {
  cudart *r = wv_cr();
  cr_fatbin *fb = fatbin_of(r, handle);
  char ok = fb && fb->nmods;
  wv_cr_unlock();
  return ok;
}

WV_EXPORT void __cudaUnregisterFatBinary(void **handle) {
  cudart *r = wv_cr();
  if (fatbin_of(r, handle) && --r->fatbins_live == 0) {
    /* The program is exiting (nvcc registers this with atexit): CUDA flushes printf here. */
    wv_cr_flush_printf(r);
  }
  wv_cr_unlock();
}

WV_EXPORT void __cudaRegisterFunction(void **handle, const char *host_fn, char *device_fn, const char *device_name,
                                      int thread_limit, void *tid, void *bid, dim3 *bdim, dim3 *gdim, int *wsize) {
  (void)device_fn, (void)thread_limit, (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
  cudart *r = wv_cr();
  cr_fatbin *fb = fatbin_of(r, handle);
  cr_func *f = calloc(1, sizeof *f);
  if (r->nfuncs == r->capfuncs) {
    uint32_t nc = r->capfuncs ? 2 * r->capfuncs : 64;
    cr_func **n = realloc(r->funcs, nc * sizeof *n);
    if (!n) { free(f); f = NULL; }
    else { r->funcs = n; r->capfuncs = nc; }
  }
  if (!f || !fb || !(f->name = strdup(device_name))) {
    free(f);
    wv_cr_unlock();
    return;
  }
  f->host_fn = host_fn;
  f->fb = fb;
  f->max_dyn_shared = -1; /* = the default: 48 KB less static shared */
  f->mod = module_with_kernel(fb, device_name, &f->k);
  r->funcs[r->nfuncs++] = f;
  wv_cr_unlock();
}

static void add_var(void **handle, const void *host, void **slot, const char *name, size_t size, int constant,
                    int managed) {
  cudart *r = wv_cr();
  cr_fatbin *fb = fatbin_of(r, handle);
  if (fb && r->nvars == r->capvars) {
    uint32_t nc = r->capvars ? 2 * r->capvars : 64;
    cr_var *n = realloc(r->vars, nc * sizeof *n);
    if (n) { r->vars = n; r->capvars = nc; }
  }
  if (fb && r->nvars < r->capvars) {
    cr_var *v = &r->vars[r->nvars];
    *v = (cr_var){.host_var = host, .name = strdup(name), .fb = fb, .size = size, .constant = constant,
                  .managed = managed, .managed_slot = slot};
    if (v->name) r->nvars++;
  }
  wv_cr_unlock();
}

WV_EXPORT void __cudaRegisterVar(void **handle, char *host_var, char *device_addr, const char *device_name, int ext,
                                 size_t size, int constant, int global) {
  (void)device_addr, (void)ext, (void)global;
  add_var(handle, host_var, NULL, device_name, size, constant, 0);
}

WV_EXPORT void __cudaRegisterManagedVar(void **handle, void **host_ptr_addr, char *device_addr, const char *device_name,
                                        int ext, size_t size, int constant, int global) {
  (void)device_addr, (void)ext, (void)global;
  add_var(handle, host_ptr_addr, host_ptr_addr, device_name, size, constant, 1);
}

WV_EXPORT void __cudaRegisterHostVar(void **handle, const char *device_name, char *host_var, size_t size) {
  add_var(handle, host_var, NULL, device_name, size, 0, 0);
}

WV_EXPORT void __cudaRegisterTexture(void **handle, const void *host_var, const void **device_addr,
                                     const char *device_name, int dim, int norm, int ext) {
  (void)handle, (void)host_var, (void)device_addr, (void)device_name, (void)dim, (void)norm, (void)ext;
}

WV_EXPORT void __cudaRegisterSurface(void **handle, const void *host_var, const void **device_addr,
                                     const char *device_name, int dim, int ext) {
  (void)handle, (void)host_var, (void)device_addr, (void)device_name, (void)dim, (void)ext;
}

/* ---- lookups ---- */
cr_func *wv_cr_func_find(cudart *r, const void *host_fn) {
  if (!host_fn) return NULL;
  for (uint32_t i = 0; i < r->nfuncs; i++)
    if (r->funcs[i]->host_fn == host_fn || (const void *)r->funcs[i] == host_fn) return r->funcs[i];
  return NULL;
}

cr_var *wv_cr_var_find(cudart *r, const void *host_var) {
  for (uint32_t i = 0; i < r->nvars; i++)
    if (r->vars[i].host_var == host_var) return &r->vars[i];
  return NULL;
}

cudaError_t wv_cr_var_addr(cudart *r, cr_var *v, wv_devptr *addr, size_t *size) {
  (void)r;
  for (uint32_t i = 0; i < v->fb->nmods; i++)
    if (wv_module_symbol(v->fb->mods[i], v->name, addr, size) == WV_OK) return cudaSuccess;
  return cudaErrorInvalidSymbol;
}

cudaError_t wv_cr_func_kernel(cudart *r, cr_func *f) {
  if (f->k) return cudaSuccess;
  if (!f->fb->nmods) /* said at registration */
    return wv_fatbin_why_devside_sync(f->fb->why) ? cudaErrorUnsupportedDevSideSync : cudaErrorNoKernelImageForDevice;
  char what[64];
  snprintf(what, sizeof what, "no PTX for %p", (const void *)f);
  if (wv_cr_first_time(r, what)) fprintf(stderr, "warpvm: kernel %s is not in the program's PTX\n", f->name);
  return cudaErrorInvalidDeviceFunction;
}

void *wv_cr_func_cu(cr_func *f) { return wvcu_func(&f->cuf, f->k, f->max_dyn_shared); }

cr_func *wv_cr_func_of_cu(cudart *r, const void *cuf) {
  for (uint32_t i = 0; cuf && i < r->nfuncs; i++)
    if (r->funcs[i]->cuf == cuf) return r->funcs[i];
  return NULL;
}

WV_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *out, const void *host_fn) {
  cudart *r = wv_cr();
  cr_func *f = wv_cr_func_find(r, host_fn);
  if (!out || !f) return wv_cr_ret(cudaErrorInvalidDeviceFunction);
  *out = f;
  return wv_cr_ret(cudaSuccess);
}

WV_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *out, const void *host_fn) { return __cudaGetKernel(out, host_fn); }

WV_EXPORT cudaError_t cudaGetFuncBySymbol(void **out, const void *host_fn) {
  return __cudaGetKernel((cudaKernel_t *)out, host_fn);
}
