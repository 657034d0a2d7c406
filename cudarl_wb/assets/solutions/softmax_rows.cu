
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// One block per row: find the max, sum the exponentials, then write. Shared memory holds partials.
__global__ void softmax_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    extern __shared__ float partial[];
    int64_t row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    partial[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    m = partial[0];
    __syncthreads();

    float sum = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(xr[j] - m);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.f / partial[0];
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    int threads = 256;
    if (rows <= 0) return;
    softmax_rows_kernel<<<(unsigned)rows, threads, threads * sizeof(float), stream>>>(x, y, rows, cols);
}
