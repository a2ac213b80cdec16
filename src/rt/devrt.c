/*
 * devrt.c — CUDA's device runtime as builtins (builtins.def, WV_BF_DEVRT): the calls nvcc's CDP2 code
 * makes (__cudaCDP2…) and libcudadevrt's PTX entry points (cudaLaunchDevice, …), for each calling lane
 * in lane order. This file reads the arguments and writes the results; exec/cdp.c keeps the state
 * (launch slots, the grid's launches, its threads' last errors) and runs the launches.
 *   cudaGetParameterBuffer(V2)   a launch slot and its parameter buffer (NULL on failure)
 *   cudaLaunchDevice(V2)         the slot's grid joins the running grid's launches
 *   cudaGetLastError / Peek      the thread's last error (every failing call here sets it)
 *   cudaGetDevice, GetDeviceCount, DeviceGetAttribute, DeviceGetLimit, RuntimeGetVersion,
 *   DeviceGetCacheConfig, DeviceGetSharedMemConfig
 *                                the one device, as the host runtime answers (wv_devrt_hooks)
 *   cudaStreamCreateWithFlags / Destroy / WaitEvent, cudaEventCreateWithFlags / Record / Destroy
 *                                handles of the grid; launch order already satisfies every dependency
 *   cudaMalloc / cudaFree        device malloc and free, as libcudadevrt implements them
 *   cudaMemcpyAsync / MemsetAsync global memory, checked as libcudadevrt checks them, done when its turn
 *                                as a launch comes
 *   cudaGetErrorName / String    the host runtime's texts, kept in device memory (exec/cdp.c)
 */
#include "exec/cdp.h"
#include "rt/builtins.h"
#include "rt/vm_internal.h"

#define STREAM_NON_BLOCKING 1u /* cudaStreamNonBlocking: the documented flag of a device-side stream; an H200
                                  * also accepts 0 (tests/programs/cdp.cu), and so does warpvm */
#define EVENT_DISABLE_TIMING 2u /* cudaEventDisableTiming: required on the device */
#define MEMCPY_D2D 3u           /* cudaMemcpyDeviceToDevice and cudaMemcpyDefault: the copies the device makes */
#define MEMCPY_DEFAULT 4u
#define WV_CUDA_INVALID_MEMCPY_DIRECTION 21

/* Store n bytes through a generic pointer of the lane: WV_CUDA_INVALID_VALUE for NULL, -1 for a fault. */
static int put(wv_exec *x, int lane, uint64_t addr, const void *v, uint32_t n) {
  if (!addr) return WV_CUDA_INVALID_VALUE;
  uint8_t *p = wv_mem_xlate(x, WV_SPACE_GENERIC, addr, n, n, lane, WV_MEM_STORE);
  if (!p) return -1;
  memcpy(p, v, n);
  return 0;
}

static int put_i32(wv_exec *x, int lane, uint64_t addr, int32_t v) { return put(x, lane, addr, &v, 4); }
static int put_u64(wv_exec *x, int lane, uint64_t addr, uint64_t v) { return put(x, lane, addr, &v, 8); }

static void dim3_arg(wv_exec *x, const wv_callinfo *ci, uint32_t i, int lane, uint32_t d[3]) {
  wv_barg_bytes(x, ci, i, lane, d, 12);
}

/* A host-runtime answer through a hook (cudaErrorNotSupported without one). */
static int attribute(wv_exec *x, int lane, uint64_t out, int attr, int dev) {
  const wv_devrt_hooks *h = &x->vm->devrt.hooks;
  int v = 0, e = h->attribute ? h->attribute(h->user, attr, dev, &v) : WV_CUDA_NOT_SUPPORTED;
  return e ? e : put_i32(x, lane, out, v);
}

static int limit(wv_exec *x, int lane, uint64_t out, int which) {
  const wv_devrt_hooks *h = &x->vm->devrt.hooks;
  size_t v = 0;
  int e = h->limit ? h->limit(h->user, which, &v) : WV_CUDA_NOT_SUPPORTED;
  return e ? e : put_u64(x, lane, out, v);
}

static int version(wv_exec *x, int lane, uint64_t out) {
  int v = x->vm->devrt.hooks.runtime_version;
  return v ? put_i32(x, lane, out, v) : WV_CUDA_NOT_SUPPORTED;
}

static int cuda_malloc(wv_exec *x, int lane, uint64_t out, uint64_t size) {
  if (!out || !size) return WV_CUDA_INVALID_VALUE; /* as libcudadevrt: nothing allocated */
  uint64_t p = wv_dheap_malloc(x->vm, size, 16);
  if (!p) return WV_CUDA_MEMORY_ALLOCATION;
  int e = put_u64(x, lane, out, p);
  if (e) wv_dheap_free(x, lane, p);
  return e;
}

/* cudaMemcpyAsync / cudaMemsetAsync: checked as libcudadevrt checks them, then pending like a launch. */
static int mem_async(wv_exec *x, wv_cdp_grid *g, int kind, uint64_t dst, uint64_t src, uint64_t n, uint32_t dir,
                     uint64_t stream) {
  uint64_t sa;
  if (!n) return WV_CUDA_SUCCESS;
  if (kind == WV_CDP_COPY && dir != MEMCPY_D2D && dir != MEMCPY_DEFAULT) return WV_CUDA_INVALID_MEMCPY_DIRECTION;
  if (!dst || wv_mem_classify(dst, &sa) != WV_SPACE_GLOBAL) return WV_CUDA_INVALID_VALUE;
  if (kind == WV_CDP_COPY && (!src || wv_mem_classify(src, &sa) != WV_SPACE_GLOBAL)) return WV_CUDA_INVALID_VALUE;
  /* A device-side cudaMemsetAsync succeeds but leaves the memory as it was on an H200 with CUDA 13.0's
   * libcudadevrt (driver 580.159; tests/programs/cdp.cu, golden recorded 2026-11-26): warpvm does the same. */
  if (kind == WV_CDP_SET) return WV_CUDA_SUCCESS;
  return wv_cdp_copy(x, g, kind, dst, src, n, stream);
}

/* One lane's call: a cudaError_t (-1: a fault, in x); *ret is the result of the calls returning a pointer. */
static int one(wv_exec *x, wv_cdp_grid *g, const wv_callinfo *ci, int l, uint64_t *ret) {
  uint32_t grid[3], block[3];
  uint64_t a0 = wv_barg_u64(x, ci, 0, l), a1 = wv_barg_u64(x, ci, 1, l);
  switch (ci->builtin) {
  case WV_BUILTIN_CDP_GETPARAMBUF2:
    dim3_arg(x, ci, 1, l, grid);
    dim3_arg(x, ci, 2, l, block);
    return wv_cdp_take_slot(x, g, a0, grid, block, (uint32_t)wv_barg_u64(x, ci, 3, l), 0, ret);
  case WV_BUILTIN_CDP_GETPARAMBUF:
    if (a0 > 16 || (a0 & (a0 - 1))) return WV_CUDA_INVALID_VALUE; /* the buffers are 16-byte aligned */
    return wv_cdp_take_slot(x, g, 0, NULL, NULL, 0, a1, ret);
  case WV_BUILTIN_CDP_LAUNCH2: return wv_cdp_launch(x, g, l, a0, a1, 0, 0, NULL, NULL, 0);
  case WV_BUILTIN_CDP_LAUNCH:
    dim3_arg(x, ci, 2, l, grid);
    dim3_arg(x, ci, 3, l, block);
    return wv_cdp_launch(x, g, l, a1, wv_barg_u64(x, ci, 5, l), 1, a0, grid, block, (uint32_t)wv_barg_u64(x, ci, 4, l));
  case WV_BUILTIN_CDP_GETDEVICE: return put_i32(x, l, a0, 0);
  case WV_BUILTIN_CDP_GETDEVICECOUNT: return put_i32(x, l, a0, 1);
  case WV_BUILTIN_CDP_DEVICEGETATTRIBUTE: return attribute(x, l, a0, (int)a1, (int)wv_barg_u64(x, ci, 2, l));
  case WV_BUILTIN_CDP_DEVICEGETLIMIT: return limit(x, l, a0, (int)a1);
  case WV_BUILTIN_CDP_RUNTIMEGETVERSION: return version(x, l, a0);
  case WV_BUILTIN_CDP_DEVICEGETCACHECONFIG: return put_i32(x, l, a0, 0);     /* cudaFuncCachePreferNone */
  case WV_BUILTIN_CDP_DEVICEGETSHAREDMEMCONFIG: return put_i32(x, l, a0, 1); /* cudaSharedMemBankSizeFourByte */
  case WV_BUILTIN_CDP_STREAMCREATE:
    return (uint32_t)a1 > STREAM_NON_BLOCKING ? WV_CUDA_INVALID_VALUE : put_u64(x, l, a0, wv_cdp_handle(g));
  case WV_BUILTIN_CDP_EVENTCREATE:
    return !((uint32_t)a1 & EVENT_DISABLE_TIMING) ? WV_CUDA_INVALID_VALUE : put_u64(x, l, a0, wv_cdp_handle(g));
  case WV_BUILTIN_CDP_STREAMDESTROY: case WV_BUILTIN_CDP_EVENTDESTROY:
    return a0 ? WV_CUDA_SUCCESS : WV_CUDA_INVALID_RESOURCE_HANDLE;
  case WV_BUILTIN_CDP_EVENTRECORD: case WV_BUILTIN_CDP_EVENTRECORDFLAGS:
    return a0 ? WV_CUDA_SUCCESS : WV_CUDA_INVALID_RESOURCE_HANDLE;
  case WV_BUILTIN_CDP_STREAMWAITEVENT: return a1 ? WV_CUDA_SUCCESS : WV_CUDA_INVALID_RESOURCE_HANDLE;
  case WV_BUILTIN_CDP_MALLOC: return cuda_malloc(x, l, a0, a1);
  case WV_BUILTIN_CDP_FREE: return wv_dheap_free(x, l, a0) ? -1 : WV_CUDA_SUCCESS;
  case WV_BUILTIN_CDP_MEMCPYASYNC:
    return mem_async(x, g, WV_CDP_COPY, a0, a1, wv_barg_u64(x, ci, 2, l), (uint32_t)wv_barg_u64(x, ci, 3, l),
                     wv_barg_u64(x, ci, 4, l));
  case WV_BUILTIN_CDP_MEMSETASYNC:
    return mem_async(x, g, WV_CDP_SET, a0, (uint8_t)a1, wv_barg_u64(x, ci, 2, l), 0, wv_barg_u64(x, ci, 3, l));
  case WV_BUILTIN_CDP_GETERRORNAME: case WV_BUILTIN_CDP_GETERRORSTRING:
    *ret = wv_cdp_error_text(x->vm, (int)a0, ci->builtin == WV_BUILTIN_CDP_GETERRORNAME);
    return WV_CUDA_SUCCESS;
  default: return WV_CUDA_NOT_SUPPORTED;
  }
}

int wv_devrt_call(wv_exec *x, const wv_callinfo *ci, uint32_t mask) {
  wv_cdp_grid *g = x->vm->devrt.cur;
  if (!g) /* launch.c makes the state of every grid that reaches a device-runtime builtin */
    return wv_fault_set(x, WV_ERR_UNSUPPORTED, -1, 0, 0, "internal: a device-runtime call outside its grid");
  int last = ci->builtin == WV_BUILTIN_CDP_GETLASTERROR, peek = ci->builtin == WV_BUILTIN_CDP_PEEKATLASTERROR;
  int ptr = ci->builtin == WV_BUILTIN_CDP_GETPARAMBUF2 || ci->builtin == WV_BUILTIN_CDP_GETPARAMBUF ||
            ci->builtin == WV_BUILTIN_CDP_GETERRORNAME || ci->builtin == WV_BUILTIN_CDP_GETERRORSTRING;
  WV_FOR_LANES(mask, l, {
    uint64_t p = 0;
    int e;
    if (last || peek) {
      e = wv_cdp_last_error(x, g, l, last);
    } else {
      if ((e = one(x, g, ci, l, &p)) < 0) return -1;
      if (e) wv_cdp_set_error(x, g, l, e);
    }
    wv_bret_u64(x, ci, l, ptr ? p : (uint64_t)(uint32_t)e);
  });
  return 0;
}
