#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>
#include <cuda_fp16.h>

// RMSNorm in half precision: y = x / sqrt(mean(x^2) + 1e-6) * w. Values are read as half, every
// sum is kept in float (a half accumulator loses digits after a few hundred terms and overflows at
// 65504), and each output is rounded to half once.
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

__global__ void rmsnorm_fp16_kernel(const __half* x, const __half* w, __half* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const __half* xr = x + row * cols;
    __half* yr = y + row * cols;
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) { float v = __half2float(xr[j]); q += v * v; }
    float inv = 1.f / sqrtf(block_sum(q, partial) / (float)cols + 1e-6f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __float2half(__half2float(xr[j]) * inv * __half2float(w[j]));
}

extern "C" void launch(const __half* x, const __half* w, __half* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    rmsnorm_fp16_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, w, y, rows, cols);
}
