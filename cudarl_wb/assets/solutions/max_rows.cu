#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[r] = max_j x[r, j]. One block per row, a strided slice per thread, then a tree in shared memory.
__global__ void max_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    partial[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) y[row] = partial[0];
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    max_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
