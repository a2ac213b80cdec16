// spinlock.cu — a lock taken by every lane of one warp in turn (the Volta whitepaper's
// starvation-free pattern). PTX: nvcc -arch=sm_80 -ptx -O3 spinlock.cu -o spinlock.ptx
__device__ int lock = 0;
extern "C" __global__ void spinlock(int *counter) {
  // Each lane takes the lock in turn: the Volta whitepaper's starvation-free pattern.
  while (atomicCAS(&lock, 0, 1) != 0) {}
  __threadfence();
  counter[0] += 1;          // plain read-modify-write, protected by the lock
  counter[1 + threadIdx.x] = counter[0];
  __threadfence();
  atomicExch(&lock, 0);
}
