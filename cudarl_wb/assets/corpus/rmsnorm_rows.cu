// RMSNorm: y = x / sqrt(mean(x^2) + eps) * weight, one warp per row (rows are short, so a whole
// block per row would leave most threads idle).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                               float* __restrict__ y, int64_t rows, int64_t cols) {
    int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float ss = 0.f;
    for (int64_t j = lane; j < cols; j += 32) ss += xr[j] * xr[j];
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, o);
    float scale = rsqrtf(ss / (float)cols + 1e-6f);
    for (int64_t j = lane; j < cols; j += 32) y[row * cols + j] = xr[j] * scale * weight[j];
}

extern "C" void launch(const float* x, const float* weight, float* y, int64_t rows, int64_t cols,
                       cudaStream_t stream) {
    const int threads = 256;                 // 8 rows per block
    int64_t blocks = (rows * 32 + threads - 1) / threads;
    if (blocks < 1) return;
    rmsnorm_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, weight, y, rows, cols);
}
