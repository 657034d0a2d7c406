// Sum over the last dimension: one block per row, warp shuffles inside each warp, then the
// first warp reduces the per-warp partials kept in shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
__device__ float block_reduce_sum(float v) {
    __shared__ float warp_sums[BLOCK / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.f;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;   // valid in thread 0
}

template <int BLOCK>
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float acc = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += BLOCK) acc += xr[j];
    acc = block_reduce_sum<BLOCK>(acc);
    if (threadIdx.x == 0) y[row] = acc;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    row_sum_kernel<256><<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
