// async_pipeline.cu — the five cuda::pipeline patterns of cuda-pipeline-async-copy.zh.md, as written there,
// with a concrete compute() and extern "C" entry points (the text's templates are instantiated below).
//   Parameters (all kernels): (int *out, const int *in, size_t size, size_t batch_sz); dynamic shared memory
//   as the text's comments say.
//   compute(out, s) (block-wide patterns): out[r] = s[r] * 3 + s[(r + 1) % n] ^ (r << 8), r = thread rank:
//     it reads a neighbour's copied element, so the whole stage must have landed.
//   pipe_single_stage:       stages_count 1, make_pipeline(block, &shared_state), cuda::memcpy_async(block, ...).
//   pipe_two_stage:          prologue, pipelined loop, epilogue (with_staging).
//   pipe_unified2/3:         with_staging_unified<2>, <3>.
//   pipe_specialized2:       even ranks produce (one int each, cuda::pipeline_role), odd ranks consume:
//                            out = v * 7 - 3 + batch. Needs blockDim = 2 * size / (batch_sz * gridDim).
//   pipe_scope_thread2:      cuda::pipeline<thread_scope_thread> per thread + block.sync(); a second
//                            block.sync() after compute() keeps the next copy from racing with the neighbour read.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

__device__ __forceinline__ void compute(int *global_out, int const *shared_in) {
  auto block = cg::this_thread_block();
  unsigned r = block.thread_rank(), n = block.size();
  global_out[r] = (shared_in[r] * 3 + shared_in[(r + 1) % n]) ^ (int)(r << 8);
}

__device__ __forceinline__ void compute1(int *global_out, int shared_in, int batch) {
  *global_out = shared_in * 7 - 3 + batch;
}

extern "C" __global__ void pipe_single_stage(int *global_out, int const *global_in, size_t size, size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  constexpr size_t stages_count = 1;
  extern __shared__ int shared[];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  auto pipeline = cuda::make_pipeline(block, &shared_state);
  auto block_batch = [&](size_t batch) -> int {
    return block.group_index().x * block.size() + grid.size() * batch;
  };
  for (size_t batch = 0; batch < batch_sz; ++batch) {
    size_t global_idx = block_batch(batch);
    pipeline.producer_acquire();
    cuda::memcpy_async(block, shared, global_in + global_idx, sizeof(int) * block.size(), pipeline);
    pipeline.producer_commit();
    pipeline.consumer_wait();
    compute(global_out + global_idx, shared);
    pipeline.consumer_release();
  }
}

extern "C" __global__ void pipe_two_stage(int *global_out, int const *global_in, size_t size, size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  constexpr size_t stages_count = 2;
  extern __shared__ int shared[];
  size_t shared_offset[stages_count] = {0, block.size()};
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  auto pipeline = cuda::make_pipeline(block, &shared_state);
  auto block_batch = [&](size_t batch) -> int {
    return block.group_index().x * block.size() + grid.size() * batch;
  };
  if (batch_sz == 0) return;
  pipeline.producer_acquire();
  cuda::memcpy_async(block, shared + shared_offset[0], global_in + block_batch(0), sizeof(int) * block.size(), pipeline);
  pipeline.producer_commit();
  for (size_t batch = 1; batch < batch_sz; ++batch) {
    size_t compute_stage_idx = (batch - 1) % 2;
    size_t copy_stage_idx = batch % 2;
    size_t global_idx = block_batch(batch);
    pipeline.producer_acquire();
    cuda::memcpy_async(block, shared + shared_offset[copy_stage_idx], global_in + global_idx, sizeof(int) * block.size(),
                       pipeline);
    pipeline.producer_commit();
    pipeline.consumer_wait();
    // the text passes global_out + global_idx here (the batch just fetched); the computed stage is batch-1
    compute(global_out + block_batch(batch - 1), shared + shared_offset[compute_stage_idx]);
    pipeline.consumer_release();
  }
  pipeline.consumer_wait();
  compute(global_out + block_batch(batch_sz - 1), shared + shared_offset[(batch_sz - 1) % 2]);
  pipeline.consumer_release();
}

template <size_t stages_count>
__device__ __forceinline__ void with_staging_unified(int *global_out, int const *global_in, size_t size,
                                                     size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  extern __shared__ int shared[];
  size_t shared_offset[stages_count];
  for (int s = 0; s < stages_count; ++s) shared_offset[s] = s * block.size();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  auto pipeline = cuda::make_pipeline(block, &shared_state);
  auto block_batch = [&](size_t batch) -> int {
    return block.group_index().x * block.size() + grid.size() * batch;
  };
  for (size_t compute_batch = 0, fetch_batch = 0; compute_batch < batch_sz; ++compute_batch) {
    for (; fetch_batch < batch_sz && fetch_batch < (compute_batch + stages_count); ++fetch_batch) {
      pipeline.producer_acquire();
      size_t shared_idx = fetch_batch % stages_count;
      size_t batch_idx = fetch_batch;
      size_t block_batch_idx = block_batch(batch_idx);
      cuda::memcpy_async(block, shared + shared_offset[shared_idx], global_in + block_batch_idx,
                         sizeof(int) * block.size(), pipeline);
      pipeline.producer_commit();
    }
    pipeline.consumer_wait();
    int shared_idx = compute_batch % stages_count;
    int batch_idx = compute_batch;
    compute(global_out + block_batch(batch_idx), shared + shared_offset[shared_idx]);
    pipeline.consumer_release();
  }
}
extern "C" __global__ void pipe_unified2(int *o, int const *i, size_t size, size_t b) { with_staging_unified<2>(o, i, size, b); }
extern "C" __global__ void pipe_unified3(int *o, int const *i, size_t size, size_t b) { with_staging_unified<3>(o, i, size, b); }

template <size_t stages_count>
__device__ __forceinline__ void with_specialized_staging_unified(int *global_out, int const *global_in, size_t size,
                                                                 size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  const cuda::pipeline_role thread_role =
      block.thread_rank() % 2 == 0 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  const int thread_idx = block.thread_rank() / 2;
  auto elements_per_batch = size / batch_sz;
  auto elements_per_batch_per_block = elements_per_batch / grid.group_dim().x;
  extern __shared__ int shared[];
  size_t shared_offset[stages_count];
  for (int s = 0; s < stages_count; ++s) shared_offset[s] = s * elements_per_batch_per_block;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  cuda::pipeline pipeline = cuda::make_pipeline(block, &shared_state, thread_role);
  auto block_batch = [&](size_t batch) -> int {
    return elements_per_batch * batch + elements_per_batch_per_block * blockIdx.x;
  };
  for (size_t compute_batch = 0, fetch_batch = 0; compute_batch < batch_sz; ++compute_batch) {
    for (; fetch_batch < batch_sz && fetch_batch < (compute_batch + stages_count); ++fetch_batch) {
      if (thread_role == cuda::pipeline_role::producer) {
        pipeline.producer_acquire();
        size_t shared_idx = fetch_batch % stages_count;
        size_t batch_idx = fetch_batch;
        size_t global_batch_idx = block_batch(batch_idx) + thread_idx;
        size_t shared_batch_idx = shared_offset[shared_idx] + thread_idx;
        cuda::memcpy_async(shared + shared_batch_idx, global_in + global_batch_idx, sizeof(int), pipeline);
        pipeline.producer_commit();
      }
    }
    if (thread_role == cuda::pipeline_role::consumer) {
      pipeline.consumer_wait();
      size_t shared_idx = compute_batch % stages_count;
      size_t global_batch_idx = block_batch(compute_batch) + thread_idx;
      size_t shared_batch_idx = shared_offset[shared_idx] + thread_idx;
      compute1(global_out + global_batch_idx, *(shared + shared_batch_idx), (int)compute_batch);
      pipeline.consumer_release();
    }
  }
}
extern "C" __global__ void pipe_specialized2(int *o, int const *i, size_t size, size_t b) {
  with_specialized_staging_unified<2>(o, i, size, b);
}

template <size_t stages_count>
__device__ __forceinline__ void with_staging_scope_thread(int *global_out, int const *global_in, size_t size,
                                                          size_t batch_sz) {
  auto grid = cg::this_grid();
  auto block = cg::this_thread_block();
  auto thread = cg::this_thread();
  extern __shared__ int shared[];
  size_t shared_offset[stages_count];
  for (int s = 0; s < stages_count; ++s) shared_offset[s] = s * block.size();
  cuda::pipeline<cuda::thread_scope_thread> pipeline = cuda::make_pipeline();
  auto block_batch = [&](size_t batch) -> int {
    return block.group_index().x * block.size() + grid.size() * batch;
  };
  for (size_t compute_batch = 0, fetch_batch = 0; compute_batch < batch_sz; ++compute_batch) {
    for (; fetch_batch < batch_sz && fetch_batch < (compute_batch + stages_count); ++fetch_batch) {
      pipeline.producer_acquire();
      size_t shared_idx = fetch_batch % stages_count;
      size_t batch_idx = fetch_batch;
      size_t thread_batch_idx = block_batch(batch_idx) + threadIdx.x;
      cuda::memcpy_async(thread, shared + shared_offset[shared_idx] + threadIdx.x, global_in + thread_batch_idx,
                         sizeof(int), pipeline);
      pipeline.producer_commit();
    }
    pipeline.consumer_wait();
    block.sync();
    int shared_idx = compute_batch % stages_count;
    int batch_idx = compute_batch;
    compute(global_out + block_batch(batch_idx), shared + shared_offset[shared_idx]);
    block.sync();
    pipeline.consumer_release();
  }
}
extern "C" __global__ void pipe_scope_thread2(int *o, int const *i, size_t size, size_t b) {
  with_staging_scope_thread<2>(o, i, size, b);
}
