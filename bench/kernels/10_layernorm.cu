// LayerNorm over the last dimension with affine weight and bias; one block per row, Welford-free two-pass.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float block_sum(float v, float* shared) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < blockDim.x / 32 ? shared[threadIdx.x] : 0.f;
    if (threadIdx.x < 32) for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    float total = shared[0];
    __syncthreads();
    return total;
}

__global__ void layernorm_kernel(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols) {
    __shared__ float shared[32];
    const float* xr = x + blockIdx.x * cols;
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
    float mean = block_sum(s, shared) / cols;
    float v = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) { float d = xr[j] - mean; v += d * d; }
    float rstd = rsqrtf(block_sum(v, shared) / cols + 1e-5f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) y[blockIdx.x * cols + j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}

extern "C" void launch(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows > 0) layernorm_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, gamma, beta, y, rows, cols);
}
