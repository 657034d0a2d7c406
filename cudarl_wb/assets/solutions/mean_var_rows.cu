#include <cuda_runtime.h>
#include <stdint.h>

// Two outputs per row: mean[r] = sum_j x[r, j] / cols and var[r] = sum_j (x[r, j] - mean[r])^2 / cols
// (the biased variance). Two passes over the row keep the variance accurate for any mean.
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

__global__ void mean_var_rows_kernel(const float* x, float* mean, float* var, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
    float mu = block_sum(s, partial) / (float)cols;
    float q = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) { float d = xr[j] - mu; q += d * d; }
    float v = block_sum(q, partial) / (float)cols;
    if (threadIdx.x == 0) { mean[row] = mu; var[row] = v; }
}

extern "C" void launch(const float* x, float* mean, float* var, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    mean_var_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, mean, var, rows, cols);
}
