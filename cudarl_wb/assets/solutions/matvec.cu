#include <cuda_runtime.h>
#include <stdint.h>

// y = A x: A is m x k row-major, x has k entries, y has m. One thread per row. The threads of a
// warp read 32 different rows at once, so each load instruction touches 32 memory lines.
__global__ void matvec_kernel(const float* A, const float* x, float* y, int64_t m, int64_t k) {
    int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= m) return;
    const float* a = A + row * k;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += a[i] * x[i];
    y[row] = acc;
}

extern "C" void launch(const float* A, const float* x, float* y, int64_t m, int64_t k, cudaStream_t stream) {
    if (m <= 0) return;
    int threads = 64;                         // small blocks spread the m threads over more SMs
    int64_t blocks = (m + threads - 1) / threads;
    matvec_kernel<<<(unsigned)blocks, threads, 0, stream>>>(A, x, y, m, k);
}
