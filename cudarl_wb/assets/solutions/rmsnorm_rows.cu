#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[r, j] = x[r, j] / sqrt(mean_j x[r, j]^2 + 1e-6) * w[j]: one block per row, one reduction.
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

__global__ void rmsnorm_rows_kernel(const float* x, const float* w, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) q += xr[j] * xr[j];
    float inv = 1.f / sqrtf(block_sum(q, partial) / (float)cols + 1e-6f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = xr[j] * inv * w[j];
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    rmsnorm_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, w, y, rows, cols);
}
