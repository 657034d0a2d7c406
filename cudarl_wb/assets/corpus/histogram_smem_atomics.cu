// Histogram of int32 values in [0, bins): each block counts into shared memory with fast shared
// atomics, then adds its private histogram to the global one. Values out of range are ignored.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void histogram_kernel(const int* __restrict__ values, int* __restrict__ counts, int64_t n, int64_t bins) {
    extern __shared__ int local[];
    for (int64_t b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int v = values[i];
        if (v >= 0 && v < bins) atomicAdd(&local[v], 1);
    }
    __syncthreads();
    for (int64_t b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&counts[b], local[b]);
}

extern "C" void launch(const int* values, int* counts, int64_t n, int64_t bins, cudaStream_t stream) {
    cudaMemsetAsync(counts, 0, bins * sizeof(int), stream);
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 512) blocks = 512;
    if (blocks < 1) blocks = 1;
    histogram_kernel<<<(unsigned)blocks, threads, bins * sizeof(int), stream>>>(values, counts, n, bins);
}
