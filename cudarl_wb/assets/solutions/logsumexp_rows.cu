#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[r] = log(sum_j exp(x[r, j])), computed as m + log(sum_j exp(x[r, j] - m)) with m the row's
// maximum, so no exponential overflows. One block per row, two tree reductions in shared memory.
__device__ __forceinline__ float block_max(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();                          // everyone has read partial[0] before it is reused
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

__global__ void logsumexp_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_max(m, partial);
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = block_sum(s, partial);
    if (threadIdx.x == 0) y[row] = m + logf(s);
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    logsumexp_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
