// LayerNorm over the last dimension with a weight and a bias: one block per row.
// Mean and variance come from one pass (sum and sum of squares, in float), then a second pass writes.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float2 warp_sum2(float2 v) {
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(0xffffffff, v.x, o);
        v.y += __shfl_xor_sync(0xffffffff, v.y, o);
    }
    return v;
}

__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                                 const float* __restrict__ bias, float* __restrict__ y,
                                 int64_t rows, int64_t cols, float eps) {
    __shared__ float2 partial[32];
    __shared__ float mean_s, rstd_s;
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float2 acc = make_float2(0.f, 0.f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float v = xr[j];
        acc.x += v;
        acc.y += v * v;
    }
    acc = warp_sum2(acc);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x >> 5;
        acc = lane < nwarps ? partial[lane] : make_float2(0.f, 0.f);
        acc = warp_sum2(acc);
        if (lane == 0) {
            float mean = acc.x / cols;
            float var = fmaxf(acc.y / cols - mean * mean, 0.f);
            mean_s = mean;
            rstd_s = rsqrtf(var + eps);
        }
    }
    __syncthreads();
    float mean = mean_s, rstd = rstd_s;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = (xr[j] - mean) * rstd * weight[j] + bias[j];
}

extern "C" void launch(const float* x, const float* weight, const float* bias, float* y,
                       int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    layernorm_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, weight, bias, y, rows, cols, 1e-5f);
}
