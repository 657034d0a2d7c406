// out[0] = sum(x): tree reduction in shared memory per block, then one atomicAdd per block.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256

__global__ void sum_shared_kernel(const float* __restrict__ x, float* out, int64_t n) {
    __shared__ float partial[THREADS];
    float s = 0.f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) s += x[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

extern "C" void launch(const float* x, float* out, int64_t n, cudaStream_t stream) {
    int64_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 1024) blocks = 1024;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    if (blocks > 0) sum_shared_kernel<<<(unsigned)blocks, THREADS, 0, stream>>>(x, out, n);
}
