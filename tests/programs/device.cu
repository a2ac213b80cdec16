// device.cu — device management: count/set/get, properties and attributes (which must agree), flags,
// synchronize, reset, versions; and the command line reaching main() (run as `device alpha 42`).
#include "check.h"

#include <cstdlib>

__global__ void fill(int *out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

static bool run_fill(int v) {  // a kernel round trip on the current device
  int *d = nullptr, h[64];
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) return false;
  fill<<<2, 32>>>(d, v);
  bool ok = cudaGetLastError() == cudaSuccess && cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess;
  for (int i = 0; i < 64 && ok; i++) ok = h[i] == v + i % 32;
  return cudaFree(d) == cudaSuccess && ok;
}

static void attr_matches(cudaDeviceAttr a, const char *name, long long prop) {
  int v = -1;
  cudaError_t e = cudaDeviceGetAttribute(&v, a, 0);
  check(e == cudaSuccess && v == prop, "cudaDeviceGetAttribute(%s) == props", name);
}
#define ATTR(a, field) attr_matches(a, #a, (long long)(p.field))

int main(int argc, char **argv) {
  begin();
  check(argc == 3, "argc == 3");
  check(argc > 1 && strcmp(argv[1], "alpha") == 0, "argv[1] == \"alpha\"");
  check(argc > 2 && atoi(argv[2]) == 42, "argv[2] == \"42\"");

  // Flags first: they are meant to be set before the device is used.
  CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  unsigned flags = 0;
  CK(cudaGetDeviceFlags(&flags));
  check((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync, "device flags include BlockingSync");

  int count = 0;
  CK(cudaGetDeviceCount(&count));
  check(count >= 1, "device count >= 1");
  CK(cudaSetDevice(0));
  int dev = -1;
  CK(cudaGetDevice(&dev));
  check(dev == 0, "cudaGetDevice == 0");
  check_err(cudaSetDevice(count), cudaErrorInvalidDevice, "cudaSetDevice(count)");
  cudaGetLastError();
  dev = -1;
  CK(cudaGetDevice(&dev));
  check(dev == 0, "still device 0 after a bad cudaSetDevice");

  int rt = 0, drv = 0;
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  check(rt > 0, "runtime version > 0");
  check(drv > 0, "driver version > 0");
  check(drv >= rt, "driver version >= runtime version");

  cudaDeviceProp p = {};
  memset(&p, 0, sizeof p);
  CK(cudaGetDeviceProperties(&p, 0));
  check(p.name[0] != 0 && strlen(p.name) < sizeof p.name, "props.name is a non-empty string");
  check(p.warpSize == 32, "props.warpSize == 32");
  check(p.maxThreadsPerBlock == 1024, "props.maxThreadsPerBlock == 1024");
  check(p.maxThreadsDim[0] == 1024 && p.maxThreadsDim[1] == 1024 && p.maxThreadsDim[2] == 64,
        "props.maxThreadsDim == {1024, 1024, 64}");
  check(p.maxGridSize[0] == 2147483647 && p.maxGridSize[1] == 65535 && p.maxGridSize[2] == 65535,
        "props.maxGridSize == {2^31-1, 65535, 65535}");
  check(p.major * 10 + p.minor >= 80, "compute capability >= 8.0");
  check(p.multiProcessorCount > 0, "props.multiProcessorCount > 0");
  check(p.totalGlobalMem > ((size_t)1 << 30), "props.totalGlobalMem > 1 GiB");
  check(p.sharedMemPerBlock == 48 * 1024, "props.sharedMemPerBlock == 48 KiB");
  check(p.sharedMemPerBlockOptin >= 100 * 1024, "props.sharedMemPerBlockOptin >= 100 KiB");
  check(p.sharedMemPerMultiprocessor >= p.sharedMemPerBlockOptin,
        "sharedMemPerMultiprocessor >= sharedMemPerBlockOptin");
  check(p.totalConstMem == 64 * 1024, "props.totalConstMem == 64 KiB");
  check(p.regsPerBlock == 65536, "props.regsPerBlock == 65536");
  check(p.maxThreadsPerMultiProcessor >= 1024, "props.maxThreadsPerMultiProcessor >= 1024");
  check(p.unifiedAddressing == 1, "props.unifiedAddressing == 1");
  check(p.managedMemory == 1, "props.managedMemory == 1");
  check(p.cooperativeLaunch == 1, "props.cooperativeLaunch == 1");
  check(p.canMapHostMemory == 1, "props.canMapHostMemory == 1");

  ATTR(cudaDevAttrWarpSize, warpSize);
  ATTR(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock);
  ATTR(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]);
  ATTR(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]);
  ATTR(cudaDevAttrMaxGridDimX, maxGridSize[0]);
  ATTR(cudaDevAttrMaxGridDimY, maxGridSize[1]);
  ATTR(cudaDevAttrMultiProcessorCount, multiProcessorCount);
  ATTR(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock);
  ATTR(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin);
  ATTR(cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor);
  ATTR(cudaDevAttrComputeCapabilityMajor, major);
  ATTR(cudaDevAttrComputeCapabilityMinor, minor);
  ATTR(cudaDevAttrTotalConstantMemory, totalConstMem);
  ATTR(cudaDevAttrMaxRegistersPerBlock, regsPerBlock);
  ATTR(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor);
  ATTR(cudaDevAttrUnifiedAddressing, unifiedAddressing);
  ATTR(cudaDevAttrManagedMemory, managedMemory);
  ATTR(cudaDevAttrCooperativeLaunch, cooperativeLaunch);
  int v = 0;
  check_err(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, count), cudaErrorInvalidDevice,
            "cudaDeviceGetAttribute on device count");
  check_err(cudaGetDeviceProperties(&p, count), cudaErrorInvalidDevice, "cudaGetDeviceProperties on device count");
  cudaGetLastError();

  check(run_fill(100), "kernel round trip");
  CK(cudaDeviceSynchronize());

  // A reset destroys the context; the next call makes a fresh one that works as before.
  CK(cudaDeviceReset());
  check(run_fill(200), "kernel round trip after cudaDeviceReset");
  CK(cudaDeviceSynchronize());
  check_err(cudaGetLastError(), cudaSuccess, "cudaGetLastError at the end");
  return finish("device");
}
