// tma_tile.cu — the Tensor Memory Accelerator as the CUDA Programming Guide uses it: a tensor map made on the host
// with cuTensorMapEncodeTiled (obtained through cudaGetDriverEntryPoint, as real code gets it), passed to the
// kernel as a __grid_constant__ CUtensorMap; a block loads a tile with cp.async.bulk.tensor into shared memory,
// completing on a cuda::barrier with the transaction count, changes it, and stores it back with the
// shared-to-global tensor copy (bulk async-group). Swizzle modes none/32B/64B/128B (the shared layout each
// gives is printed as the positions of a few elements), tiles that hang over the tensor's edge (out-of-bounds
// elements read as zero and are not written back), and a float tensor whose out-of-bounds fill is NaN.
#include "check.h"

#include <cuda.h>
#include <cuda/barrier>

#include <vector>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int W = 100, H = 70;         // the tensor: H rows of W ints (a row is 400 bytes: a multiple of 16)
constexpr int TW = 32, TH = 16;        // the tile (box): 16 rows of 32 ints = 128 bytes a row

// Load the tile at (x, y), record where each element landed in shared memory (as the value at each shared
// word), add 1000 * y + x to every element and store the tile back.
__global__ void tile_kernel(const __grid_constant__ CUtensorMap map, int x, int y, int *seen, int bytes) {
  __shared__ alignas(1024) int smem[TH * TW];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(smem, &map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, bytes); /* the box's bytes */
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < TH * TW; i += blockDim.x) seen[i] = smem[i];
  for (int i = threadIdx.x; i < TH * TW; i += blockDim.x) smem[i] += 1000000;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&map, x, y, smem);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
  if (threadIdx.x == 0) (&bar)->~barrier();
}

// A float tile with NaN fill: load only, record the bits.
__global__ void float_kernel(const __grid_constant__ CUtensorMap map, int x, int y, unsigned *seen) {
  __shared__ alignas(128) float smem[8 * 8];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(smem, &map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < 64; i += blockDim.x) seen[i] = __float_as_uint(smem[i]);
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main() {
  begin();
  encode_fn encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
  check(q == cudaDriverEntryPointSuccess && encode != nullptr, "cuTensorMapEncodeTiled found");
  std::vector<int> h(W * H), back(W * H), seen(TH * TW);
  for (int i = 0; i < W * H; i++) h[i] = i;
  int *d, *dseen;
  CK(cudaMalloc(&d, W * H * sizeof(int)));
  CK(cudaMalloc(&dseen, TH * TW * sizeof(int)));
  const char *names[] = {"none", "32B", "64B", "128B"};
  CUtensorMapSwizzle sw[] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B,
                             CU_TENSOR_MAP_SWIZZLE_128B};
  struct { int x, y; } at[] = {{0, 0}, {40, 20}, {80, 60}, {-8, -4}};
  for (int s = 0; s < 4; s++) {
    CUtensorMap map;
    cuuint64_t dims[2] = {W, H}, strides[1] = {W * sizeof(int)};
    // the box's inner dimension in bytes may not exceed the swizzle span: 8 ints for 32B, 16 for 64B
    cuuint32_t box[2] = {s == 1 ? 8u : s == 2 ? 16u : (cuuint32_t)TW, TH}, estr[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        sw[s], CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    check(r == CUDA_SUCCESS, "encode swizzle %s", names[s]);
    for (auto &a : at) {
      CK(cudaMemcpy(d, h.data(), W * H * sizeof(int), cudaMemcpyHostToDevice));
      CK(cudaMemset(dseen, 0, TH * TW * sizeof(int)));
      tile_kernel<<<1, 128>>>(map, a.x, a.y, dseen, (int)(box[0] * TH * sizeof(int)));
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(seen.data(), dseen, TH * TW * sizeof(int), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(back.data(), d, W * H * sizeof(int), cudaMemcpyDeviceToHost));
      int bw = (int)box[0], n = bw * TH;
      printf("swizzle %s, tile at (%d,%d): shared words", names[s], a.x, a.y);
      for (int i : {0, 1, 3, 4, 7, bw, bw + 1, 2 * bw, 3 * bw + 2, 7 * bw + 5, n - 1}) printf(" %d", seen[i]);
      printf("\n");
      // every element of the tile inside the tensor appears once in shared memory; outside it reads 0
      long long sum = 0, want = 0;
      for (int i = 0; i < n; i++) sum += seen[i];
      int changed = 0, wrong = 0;
      for (int yy = 0; yy < H; yy++)
        for (int xx = 0; xx < W; xx++) {
          bool in = xx >= a.x && xx < a.x + bw && yy >= a.y && yy < a.y + TH;
          if (in) want += h[yy * W + xx];
          int v = back[yy * W + xx];
          if (in && v == h[yy * W + xx] + 1000000) changed++;
          else if (v != h[yy * W + xx]) wrong++;
        }
      check(sum == want, "  shared tile holds the tensor's elements (sum %lld)", sum);
      printf("  stored back: %d elements changed, %d wrong\n", changed, wrong);
    }
  }
  // float tensor, NaN-request fill
  float *df;
  unsigned *dfs;
  std::vector<float> hf(20 * 20);
  for (int i = 0; i < 400; i++) hf[i] = 0.5f * i;
  std::vector<unsigned> fs(64);
  CK(cudaMalloc(&df, 400 * sizeof(float)));
  CK(cudaMalloc(&dfs, 64 * sizeof(unsigned)));
  CK(cudaMemcpy(df, hf.data(), 400 * sizeof(float), cudaMemcpyHostToDevice));
  for (int fill = 0; fill < 2; fill++) {
    CUtensorMap map;
    cuuint64_t dims[2] = {20, 20}, strides[1] = {20 * sizeof(float)};
    cuuint32_t box[2] = {8, 8}, estr[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, df, dims, strides, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    check(r == CUDA_SUCCESS, "encode float map, fill %d", fill);
    float_kernel<<<1, 64>>>(map, 16, -3, dfs);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(fs.data(), dfs, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    printf("float tile at (16,-3), fill %d:", fill);
    for (int i : {0, 3, 4, 7, 24, 27, 28, 63}) printf(" %08x", fs[i]);
    printf("\n");
  }
  // what the encoder refuses
  {
    CUtensorMap map;
    cuuint64_t dims[2] = {W, H}, strides[1] = {W * sizeof(int) + 4}; /* not a multiple of 16 */
    cuuint32_t box[2] = {TW, TH}, estr[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("stride not a multiple of 16: %d\n", (int)r);
    strides[0] = W * sizeof(int);
    box[0] = 64; /* 256 bytes: more than the 128-byte swizzle span */
    r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("128B swizzle with a 256-byte box row: %d\n", (int)r);
    box[0] = 300; /* more than 256 elements */
    r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("box of 300: %d\n", (int)r);
  }
  CK(cudaFree(d));
  CK(cudaFree(dseen));
  CK(cudaFree(df));
  CK(cudaFree(dfs));
  return finish("tma_tile");
}
