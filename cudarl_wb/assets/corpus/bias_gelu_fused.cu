// Fused epilogue: y = gelu(x + bias) with the bias broadcast over rows. Doing both in one kernel
// reads and writes the matrix once instead of twice.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y,
                                 int64_t rows, int64_t cols) {
    int64_t total = rows * cols;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += stride) {
        float v = x[i] + bias[i % cols];
        y[i] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    }
}

extern "C" void launch(const float* x, const float* bias, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    int64_t total = rows * cols;
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 4) blocks = 65535 * 4;
    bias_gelu_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, bias, y, rows, cols);
}
