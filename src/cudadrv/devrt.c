/*
 * devrt.c — warpvm's stand-in for the part of NVIDIA's device runtime (libcudadevrt.a) that
 * cooperative grids use: cudaCGGetIntrinsicHandle, cudaCGSynchronize and cudaCGSynchronizeGrid, as
 * one PTX unit that link.c puts in a link where libcudadevrt.a is added (numba-cuda links it for
 * `cuda.cg.this_grid().sync()`). NVIDIA's own PTX of these calls into the driver
 * (__cuda_syscall_CGS_*), which warpvm does not have.
 *
 * The handle of a grid is the address of the grid workspace {u32 wsSize, u32 barrier} that a
 * cooperative launch puts in %envreg1 (high) : %envreg2 (low) (docs/ARCHITECTURE.md, cooperative
 * launches); it is 0 outside a cooperative launch, and any scope but the grid's (1,
 * cudaCGScopeGrid) gets 0 too. cudaCGSynchronize(handle, flags) is the barrier CUDA's
 * cooperative_groups header runs on that workspace (details::sync_grids): every block's thread 0
 * adds 1 to the barrier word (block 0 adds 0x80000000 - (blocks - 1)), so the word's top bit flips
 * when the last block arrives, and waits for the flip; bar.sync before and after. It returns 0, or
 * 999 (cudaErrorUnknown, as NVIDIA's does) for a null handle.
 *
 * The PTX is nvcc 13.0's (-arch=sm_90 -rdc=true -O3) for this CUDA C, renamed from wv* to the CUDA
 * names (the CUDA headers declare them, so the source cannot define them under those names):
 *
 *   extern "C" __device__ unsigned long long wvCGGetIntrinsicHandle(int scope) {
 *     unsigned hi, lo;
 *     if (scope != 1) return 0;
 *     asm volatile("mov.u32 %0, %%envreg1;" : "=r"(hi));
 *     asm volatile("mov.u32 %0, %%envreg2;" : "=r"(lo));
 *     return (unsigned long long)hi << 32 | lo;
 *   }
 *   extern "C" __device__ int wvCGSynchronize(unsigned long long handle, unsigned flags) {
 *     if (!handle) return 999;
 *     unsigned *arrived = (unsigned *)handle + 1;
 *     unsigned expected = gridDim.x * gridDim.y * gridDim.z;
 *     bool cta_master = threadIdx.x + threadIdx.y + threadIdx.z == 0;
 *     bool gpu_master = blockIdx.x + blockIdx.y + blockIdx.z == 0;
 *     __syncthreads();
 *     if (cta_master) {
 *       unsigned nb = gpu_master ? 0x80000000u - (expected - 1) : 1;
 *       __threadfence();
 *       unsigned old, now;
 *       asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(arrived), "r"(nb) : "memory");
 *       do asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(arrived) : "memory");
 *       while (((old ^ now) & 0x80000000u) == 0);
 *     }
 *     __syncthreads();
 *     return 0;
 *   }
 *
 * cudaCGSynchronizeGrid is the same barrier.
 */
#include "cudadrv/cu.h"

#define SYNC_BODY(fn)                                   \
  "{\n"                                                 \
  ".reg .pred %p<5>;\n"                                 \
  ".reg .b32 %r<27>;\n"                                 \
  ".reg .b64 %rd<5>;\n"                                 \
  "ld.param.u64 %rd2, [" fn "_param_0];\n"              \
  "setp.eq.s64 %p1, %rd2, 0;\n"                         \
  "mov.u32 %r26, 999;\n"                                \
  "@%p1 bra $L__done;\n"                                \
  "mov.u32 %r4, %tid.y;\n"                              \
  "mov.u32 %r5, %tid.x;\n"                              \
  "add.s32 %r6, %r5, %r4;\n"                            \
  "mov.u32 %r7, %tid.z;\n"                              \
  "neg.s32 %r8, %r7;\n"                                 \
  "setp.ne.s32 %p2, %r6, %r8;\n"                        \
  "bar.sync 0;\n"                                       \
  "@%p2 bra $L__leave;\n"                               \
  "add.s64 %rd3, %rd2, 4;\n"                            \
  "mov.u32 %r11, %ctaid.z;\n"                           \
  "neg.s32 %r12, %r11;\n"                               \
  "mov.u32 %r13, %ctaid.x;\n"                           \
  "mov.u32 %r14, %ctaid.y;\n"                           \
  "add.s32 %r15, %r13, %r14;\n"                         \
  "setp.eq.s32 %p3, %r15, %r12;\n"                      \
  "mov.u32 %r16, %nctaid.z;\n"                          \
  "mov.u32 %r17, %nctaid.x;\n"                          \
  "mov.u32 %r18, %nctaid.y;\n"                          \
  "mul.lo.s32 %r19, %r17, %r18;\n"                      \
  "mul.lo.s32 %r20, %r19, %r16;\n"                      \
  "mov.u32 %r21, -2147483647;\n"                        \
  "sub.s32 %r22, %r21, %r20;\n"                         \
  "selp.b32 %r10, %r22, 1, %p3;\n"                      \
  "membar.gl;\n"                                        \
  "atom.add.release.gpu.u32 %r9, [%rd3], %r10;\n"       \
  "$L__wait:\n"                                         \
  "ld.acquire.gpu.u32 %r23, [%rd3];\n"                  \
  "xor.b32 %r24, %r23, %r9;\n"                          \
  "setp.gt.s32 %p4, %r24, -1;\n"                        \
  "@%p4 bra $L__wait;\n"                                \
  "$L__leave:\n"                                        \
  "bar.sync 0;\n"                                       \
  "mov.u32 %r26, 0;\n"                                  \
  "$L__done:\n"                                         \
  "st.param.b32 [func_retval0+0], %r26;\n"              \
  "ret;\n"                                              \
  "}\n"

static const char DEVRT_PTX[] =
  "//\n"
  "// warpvm's cooperative-groups device runtime (src/cudadrv/devrt.c)\n"
  "//\n"
  ".version 8.0\n"
  ".target sm_90\n"
  ".address_size 64\n"
  "\n"
  ".visible .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle(\n"
  ".param .b32 cudaCGGetIntrinsicHandle_param_0\n"
  ")\n"
  "{\n"
  ".reg .pred %p<2>;\n"
  ".reg .b32 %r<4>;\n"
  ".reg .b64 %rd<7>;\n"
  "ld.param.u32 %r1, [cudaCGGetIntrinsicHandle_param_0];\n"
  "setp.ne.s32 %p1, %r1, 1;\n"
  "mov.u64 %rd6, 0;\n"
  "@%p1 bra $L__other;\n"
  "mov.u32 %r2, %envreg1;\n"
  "mov.u32 %r3, %envreg2;\n"
  "cvt.u64.u32 %rd4, %r2;\n"
  "cvt.u64.u32 %rd5, %r3;\n"
  "bfi.b64 %rd6, %rd4, %rd5, 32, 32;\n"
  "$L__other:\n"
  "st.param.b64 [func_retval0+0], %rd6;\n"
  "ret;\n"
  "}\n"
  "\n"
  ".visible .func (.param .b32 func_retval0) cudaCGSynchronize(\n"
  ".param .b64 cudaCGSynchronize_param_0,\n"
  ".param .b32 cudaCGSynchronize_param_1\n"
  ")\n"
  SYNC_BODY("cudaCGSynchronize")
  "\n"
  ".visible .func (.param .b32 func_retval0) cudaCGSynchronizeGrid(\n"
  ".param .b64 cudaCGSynchronizeGrid_param_0,\n"
  ".param .b32 cudaCGSynchronizeGrid_param_1\n"
  ")\n"
  SYNC_BODY("cudaCGSynchronizeGrid");

const char *cu_devrt_ptx(size_t *len) {
  *len = sizeof DEVRT_PTX - 1;
  return DEVRT_PTX;
}
