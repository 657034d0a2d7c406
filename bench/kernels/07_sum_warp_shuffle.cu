// out[0] = sum(x): warp shuffles inside each warp, one shared slot per warp, one atomicAdd per block.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void sum_warp_kernel(const float* __restrict__ x, float* out, int64_t n) {
    __shared__ float warp_totals[32];
    float s = 0.f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) s += x[i];
    s = warp_sum(s);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_totals[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < (blockDim.x + 31) / 32 ? warp_totals[lane] : 0.f;
        s = warp_sum(s);
        if (lane == 0) atomicAdd(out, s);
    }
}

extern "C" void launch(const float* x, float* out, int64_t n, cudaStream_t stream) {
    const int threads = 512;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 2048) blocks = 2048;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    if (blocks > 0) sum_warp_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, out, n);
}
