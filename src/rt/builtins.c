/*
 * builtins.c — the external device functions nvcc's PTX calls and warpvm provides:
 *   vprintf(fmt, args)       device printf: nvcc packs the arguments into a local buffer;
 *                            each calling lane's text goes to the vm's printf sink in lane order;
 *   __assertfail(msg, file, line, function, charsize)
 *                            a failed device assert: prints CUDA's message and ends the launch
 *                            with WV_ERR_ASSERT;
 *   malloc(size), free(ptr), __nv_aligned_device_malloc(size, align)
 *                            the device heap (new/delete compile to malloc/free): each calling
 *                            lane gets its own allocation in the vm's device memory, 16-byte
 *                            aligned, bounds-checked and never at a reused address; NULL once the
 *                            live total would pass the heap limit (wv_config.device_heap_bytes).
 *                            They outlive the launch until a kernel frees them. free(NULL) does
 *                            nothing; freeing anything else that malloc did not return (or twice)
 *                            is a device fault naming the address.
 *   cudaGraphSetConditional(handle, value)
 *                            sets a CUDA graph's condition: warpvm's runtime makes a conditional
 *                            handle the device address of the 32-bit condition word, so this stores
 *                            value there (a handle that is no such address is a device fault).
 * CUDA's device runtime (cudaLaunchDevice, device-side streams, cudaGetLastError, ...) is devrt.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "exec/printf_fmt.h"
#include "rt/builtins.h"
#include "rt/vm_internal.h"

#define ARGBUF_MAX 4096
#define FMT_MAX 4096

typedef struct rd { wv_exec *x; int lane; } rd;

static int read_str(void *user, uint64_t addr, char *buf, size_t cap) {
  rd *r = user;
  return wv_mem_read_cstr(r->x, addr, r->lane, buf, cap);
}

void wv_barg_bytes(wv_exec *x, const wv_callinfo *ci, uint32_t i, int lane, void *out, uint32_t n) {
  memset(out, 0, n);
  if (i < ci->nargs) memcpy(out, x->frame->params + (size_t)lane * x->fn->param_size + ci->arg_off[i], ci->arg_size[i] < n ? ci->arg_size[i] : n);
}

uint64_t wv_barg_u64(wv_exec *x, const wv_callinfo *ci, uint32_t i, int lane) {
  uint64_t v;
  wv_barg_bytes(x, ci, i, lane, &v, 8);
  return v;
}


/* Copy as much of [addr, addr+cap) as is readable (the argument buffer's size is not passed). */
static size_t read_block(wv_exec *x, uint64_t addr, int lane, uint8_t *buf, size_t cap) {
  wv_fault saved = x->fault;
  size_t n = 0;
  for (; n < cap; n += 8) {
    uint8_t *p = wv_mem_xlate(x, WV_SPACE_GENERIC, addr + n, 8, 1, lane, WV_MEM_PROBE);
    if (!p) break;
    memcpy(buf + n, p, 8);
  }
  x->fault = saved;
  return n;
}

static int do_vprintf(wv_exec *x, const wv_callinfo *ci, uint32_t mask) {
  char fmt[FMT_MAX];
  uint8_t args[ARGBUF_MAX];
  WV_FOR_LANES(mask, l, {
    uint64_t f = wv_barg_u64(x, ci, 0, l), a = wv_barg_u64(x, ci, 1, l);
    int flen = wv_mem_read_cstr(x, f, l, fmt, sizeof fmt);
    if (flen < 0) return wv_fault_set(x, WV_ERR_FAULT, l, 1, f, "printf format string is not readable");
    size_t alen = a ? read_block(x, a, l, args, sizeof args) : 0;
    rd r = {x, l};
    size_t n;
    unsigned st = 0;
    char *text = wv_printf_format_alloc(fmt, (size_t)flen, a ? args : NULL, alen, read_str, &r, &n, &st);
    if (!text) return wv_fault_set(x, WV_ERR_NOMEM, l, 0, 0, "out of host memory in printf");
    if (!a && (st & WV_PRINTF_ST_ARGS_SHORT)) { /* the GPU faults on a conversion with no arguments */
      free(text);
      return wv_fault_set(x, WV_ERR_FAULT, l, 0, 0, "printf format \"%.60s\" needs arguments but none were passed", fmt);
    }
    wv_out_printf(x, text, n);
    free(text);
    if (ci->nrets) { /* vprintf's result; nvcc's code does not read it */
      int32_t zero = 0;
      memcpy(x->frame->params + (size_t)l * x->fn->param_size + ci->ret_off[0], &zero, 4);
    }
  });
  return 0;
}

static int do_assert(wv_exec *x, const wv_callinfo *ci, uint32_t mask) {
  int l = __builtin_ctz(mask);
  char msg[512], file[512], func[256];
  if (wv_mem_read_cstr(x, wv_barg_u64(x, ci, 0, l), l, msg, sizeof msg) < 0) snprintf(msg, sizeof msg, "?");
  if (wv_mem_read_cstr(x, wv_barg_u64(x, ci, 1, l), l, file, sizeof file) < 0) snprintf(file, sizeof file, "?");
  if (wv_mem_read_cstr(x, wv_barg_u64(x, ci, 3, l), l, func, sizeof func) < 0) snprintf(func, sizeof func, "?");
  uint32_t line = (uint32_t)wv_barg_u64(x, ci, 2, l);
  const uint64_t *sp = x->warp->specials;
  char text[1600];
  int n = snprintf(text, sizeof text, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                   line, func, x->cta->ctaid[0], x->cta->ctaid[1], x->cta->ctaid[2], (unsigned)sp[WV_SP_TID_X * 32 + l],
                   (unsigned)sp[WV_SP_TID_Y * 32 + l], (unsigned)sp[WV_SP_TID_Z * 32 + l], msg);
  if (n > 0) wv_out_stderr(x, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
  return wv_fault_set(x, WV_ERR_ASSERT, l, 0, 0, "device-side assertion `%s` failed (%s:%u)", msg, file, line);
}

void wv_bret_u64(wv_exec *x, const wv_callinfo *ci, int lane, uint64_t v) {
  if (ci->nrets) memcpy(x->frame->params + (size_t)lane * x->fn->param_size + ci->ret_off[0], &v, ci->ret_size[0] < 8 ? ci->ret_size[0] : 8);
}

static uint64_t dheap_charge(uint64_t size) { return ((size ? size : 1) + 15u) & ~(uint64_t)15u; }

uint64_t wv_dheap_malloc(wv_vm *vm, uint64_t size, uint64_t align) {
  uint64_t charge = dheap_charge(size), p = 0;
  /* NULL: a bad alignment (not a power of two), over the limit, or out of host memory */
  if (align && !(align & (align - 1)) && align <= (1u << 20) && size <= vm->dheap_limit &&
      charge <= vm->dheap_limit - vm->dheap_used &&
      !wv_heap_alloc_kind(&vm->heap, size ? size : 1, (uint32_t)align, WV_ALLOC_DMALLOC, &p))
    vm->dheap_used += charge;
  return p;
}

int wv_dheap_free(wv_exec *x, int lane, uint64_t p) {
  wv_vm *vm = x->vm;
  if (!p) return 0;
  wv_alloc *a = wv_heap_find(&vm->heap, p);
  if (!a || a->kind != WV_ALLOC_DMALLOC)
    return wv_fault_set(x, WV_ERR_FAULT, lane, 1, p, "free of a pointer that is not a live allocation of device malloc (%s)",
                        a ? "memory device malloc did not allocate" : "a double free, or not the start of an allocation");
  uint64_t charge = dheap_charge(a->size);
  vm->dheap_used -= charge <= vm->dheap_used ? charge : vm->dheap_used;
  wv_heap_free(&vm->heap, p);
  return 0;
}

/* malloc(size) or, aligned, __nv_aligned_device_malloc(size, align): one allocation per lane. */
static int do_malloc(wv_exec *x, const wv_callinfo *ci, uint32_t mask, int aligned) {
  WV_FOR_LANES(mask, l, {
    uint64_t size = wv_barg_u64(x, ci, 0, l), align = aligned ? wv_barg_u64(x, ci, 1, l) : 16;
    wv_bret_u64(x, ci, l, wv_dheap_malloc(x->vm, size, align));
  });
  return 0;
}

static int do_free(wv_exec *x, const wv_callinfo *ci, uint32_t mask) {
  WV_FOR_LANES(mask, l, {
    if (wv_dheap_free(x, l, wv_barg_u64(x, ci, 0, l))) return -1;
  });
  return 0;
}

static int do_set_cond(wv_exec *x, const wv_callinfo *ci, uint32_t mask) {
  WV_FOR_LANES(mask, l, {
    uint32_t v = (uint32_t)wv_barg_u64(x, ci, 1, l);
    uint8_t *p = wv_mem_xlate(x, WV_SPACE_GLOBAL, wv_barg_u64(x, ci, 0, l), 4, 4, l, WV_MEM_STORE);
    if (!p) return -1; /* the fault is recorded */
    memcpy(p, &v, 4);
  });
  return 0;
}

int wv_builtin_call(wv_exec *x, const wv_insn *call, uint32_t mask) {
  const wv_callinfo *ci = call->aux;
  switch (ci->builtin) {
  case WV_BUILTIN_VPRINTF: return do_vprintf(x, ci, mask);
  case WV_BUILTIN_ASSERTFAIL: return do_assert(x, ci, mask);
  case WV_BUILTIN_MALLOC: return do_malloc(x, ci, mask, 0);
  case WV_BUILTIN_ALIGNED_MALLOC: return do_malloc(x, ci, mask, 1);
  case WV_BUILTIN_FREE: return do_free(x, ci, mask);
  case WV_BUILTIN_GRAPH_SET_COND: return do_set_cond(x, ci, mask);
  default:
    if (wv_builtin_flags(ci->builtin) & WV_BF_DEVRT) return wv_devrt_call(x, ci, mask);
    return wv_fault_set(x, WV_ERR_UNSUPPORTED, -1, 0, 0, "unknown builtin");
  }
}
