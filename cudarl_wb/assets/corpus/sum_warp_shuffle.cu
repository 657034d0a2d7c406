// Sum of a float32 vector. Each thread accumulates a grid-stride slice, each warp reduces with
// shuffles (no shared memory, no __syncthreads), and one atomicAdd per warp writes the total.
#include <cuda_runtime.h>
#include <stdint.h>

__inline__ __device__ float warp_reduce_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void sum_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
    float acc = 0.f;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i];
    acc = warp_reduce_sum(acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

extern "C" void launch(const float* x, float* out, int64_t n, cudaStream_t stream) {
    cudaMemsetAsync(out, 0, sizeof(float), stream);   // the output starts as garbage
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;                  // enough to fill the GPU; the loop does the rest
    if (blocks < 1) blocks = 1;
    sum_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, out, n);
}
