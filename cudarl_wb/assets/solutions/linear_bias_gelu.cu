#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// A linear layer with bias and exact GELU in one kernel: y[r, c] = gelu(bias[c] + sum_i x[r, i] * w[c, i]),
// gelu(z) = 0.5 z (1 + erf(z / sqrt(2))). x is m x k, w is n x k, bias has n entries, y is m x n.
__global__ void linear_bias_gelu_kernel(const float* x, const float* w, const float* bias, float* y, int64_t m,
                                        int64_t n, int64_t k) {
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    const float* xr = x + row * k;
    const float* wr = w + col * k;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += xr[i] * wr[i];
    float z = acc + bias[col];
    y[row * n + col] = 0.5f * z * (1.f + erff(z * 0.7071067811865476f));
}

extern "C" void launch(const float* x, const float* w, const float* bias, float* y, int64_t m, int64_t n, int64_t k,
                       cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    dim3 threads(16, 16);
    dim3 blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    linear_bias_gelu_kernel<<<blocks, threads, 0, stream>>>(x, w, bias, y, m, n, k);
}
