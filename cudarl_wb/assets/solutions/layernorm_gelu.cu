#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// LayerNorm followed by exact GELU, in one pass over memory:
// z = (x[r, j] - mean_r) / sqrt(var_r + 1e-5) * gamma[j] + beta[j], y[r, j] = 0.5 z (1 + erf(z / sqrt(2))).
// One block per row; the normalised value goes straight into the GELU without a trip to memory.
// The sum of v over the block; every thread gets it. blockDim.x must be a power of two.
__device__ __forceinline__ float block_sum(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();                          // everyone has read partial[0] before it is reused
    return r;
}

__global__ void layernorm_gelu_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                      int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
    float mean = block_sum(s, partial) / (float)cols;
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) { float d = xr[j] - mean; q += d * d; }
    float inv = 1.f / sqrtf(block_sum(q, partial) / (float)cols + 1e-5f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        float z = (xr[j] - mean) * inv * gamma[j] + beta[j];
        yr[j] = 0.5f * z * (1.f + erff(z * 0.7071067811865476f));
    }
}

extern "C" void launch(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                       cudaStream_t stream) {
    if (rows <= 0) return;
    layernorm_gelu_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, gamma, beta, y, rows, cols);
}
