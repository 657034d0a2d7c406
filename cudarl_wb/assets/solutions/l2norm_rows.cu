#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[r, j] = x[r, j] / max(||x[r, :]||_2, 1e-12), the rows scaled to unit length.
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

__global__ void l2norm_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) q += xr[j] * xr[j];
    float norm = fmaxf(sqrtf(block_sum(q, partial)), 1e-12f);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = xr[j] / norm;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    l2norm_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
