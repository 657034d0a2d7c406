// y[r, c] = relu(x[r, c] + bias[c]): the fused epilogue of a linear layer, 2D grid.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_X>
__global__ void bias_relu_kernel(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y, int64_t rows, int64_t cols) {
    int64_t c = blockIdx.x * (int64_t)BLOCK_X + threadIdx.x, r = blockIdx.y;
    if (c < cols) y[r * cols + c] = fmaxf(x[r * cols + c] + bias[c], 0.f);
}

extern "C" void launch(const float* x, const float* bias, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    constexpr int BLOCK_X = 128;
    dim3 grid((unsigned)((cols + BLOCK_X - 1) / BLOCK_X), (unsigned)rows);
    if (rows > 0 && cols > 0) bias_relu_kernel<BLOCK_X><<<grid, BLOCK_X, 0, stream>>>(x, bias, y, rows, cols);
}
