#include <cuda_runtime.h>
#include <stdint.h>

// y[0] = sum_i x[i], using the whole GPU. Many blocks each sum a grid-stride slice; inside a block,
// warp shuffles add 32 values without shared memory or barriers (5 steps), the 8 warp sums meet in
// shared memory, and one atomicAdd per block adds the block's sum to y, which the launcher zeroes
// first on the same stream. The order of the additions varies from run to run, so the last bits of
// the result do too: fine within the tolerance, but not bitwise reproducible.
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void sum_all_kernel(const float* x, float* y, int64_t n) {
    __shared__ float warp_sums[32];
    float acc = 0.f;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) acc += x[i];
    acc = warp_sum(acc);                      // every lane takes part: blockDim.x is a multiple of 32
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.f;
        acc = warp_sum(acc);
        if (lane == 0) atomicAdd(y, acc);
    }
}

extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    cudaMemsetAsync(y, 0, sizeof(float), stream);
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;         // enough to fill every SM several times over
    sum_all_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
