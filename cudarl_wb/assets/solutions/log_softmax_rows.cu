#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[r, j] = x[r, j] - m - log(sum_k exp(x[r, k] - m)), m the row maximum. Subtracting the log of
// the sum (instead of taking the log of a softmax) keeps tiny probabilities exact.
__device__ __forceinline__ float block_max(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();
    return r;
}

__device__ __forceinline__ float block_sum(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();
    return r;
}

__global__ void log_softmax_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_max(m, partial);
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = block_sum(s, partial);
    float shift = m + logf(s);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = xr[j] - shift;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    log_softmax_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
