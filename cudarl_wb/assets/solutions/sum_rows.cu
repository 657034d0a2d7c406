#include <cuda_runtime.h>
#include <stdint.h>

// y[r] = sum_j x[r, j]. One block per row: each thread sums a strided slice of the row, then the
// block adds the partial sums pairwise in shared memory (a tree, log2(256) = 8 steps).
__global__ void sum_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float acc = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) acc += xr[j];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[row] = partial[0];
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    sum_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, rows, cols);
}
