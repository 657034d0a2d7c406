#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// Row softmax with two passes over memory instead of three, and warp shuffles instead of a shared
// memory tree. Pass 1 keeps, per thread, a running maximum m and a running sum s of exp(x - m)
// (the "online softmax": when a larger value arrives, the sum so far is rescaled by exp(m_old - m)).
// The (m, s) pairs are merged across the warp with __shfl_xor_sync (5 steps, no barrier) and across
// the 8 warps through shared memory. Pass 2 writes exp(x - m) / s.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mm = fmaxf(m, m2);
    // an empty partial has m = -inf and s = 0; skip it, since exp(-inf - (-inf)) would be NaN
    float a = (m == -INFINITY) ? 0.f : s * expf(m - mm);
    float b = (m2 == -INFINITY) ? 0.f : s2 * expf(m2 - mm);
    m = mm;
    s = a + b;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
        merge(m, s, m2, s2);
    }
}

__global__ void softmax_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float warp_m[32];
    __shared__ float warp_s[32];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float m = -INFINITY, s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float v = xr[j];
        if (v > m) { s = (m == -INFINITY ? 0.f : s * expf(m - v)) + 1.f; m = v; }
        else s += expf(v - m);
    }
    warp_merge(m, s);                         // every lane now holds its warp's (m, s)
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (lane == 0) { warp_m[warp] = m; warp_s[warp] = s; }
    __syncthreads();
    m = lane < nwarps ? warp_m[lane] : -INFINITY;
    s = lane < nwarps ? warp_s[lane] : 0.f;
    warp_merge(m, s);                         // every warp merges the 8 warp results: no second barrier
    float inv = 1.f / s;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    softmax_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
