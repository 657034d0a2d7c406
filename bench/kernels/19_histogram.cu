// Histogram of values in [0, 1) into `bins` bins: per-block histogram in shared memory, then global atomics.
#include <cuda_runtime.h>
#include <stdint.h>

#define MAX_BINS 1024

__global__ void histogram_kernel(const float* __restrict__ x, int* __restrict__ hist, int64_t n, int64_t bins) {
    __shared__ int local[MAX_BINS];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int b = (int)(x[i] * bins);
        b = b < 0 ? 0 : (b >= bins ? (int)bins - 1 : b);
        atomicAdd(&local[b], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

extern "C" void launch(const float* x, int* hist, int64_t n, int64_t bins, cudaStream_t stream) {
    if (bins <= 0 || bins > MAX_BINS) return;
    cudaMemsetAsync(hist, 0, bins * sizeof(int), stream);
    int64_t blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    if (blocks > 0) histogram_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, hist, n, bins);
}
