
#include <cuda_runtime.h>
#include <stdint.h>

// One thread per output element, reading a row of A and a column of B from global memory.
__global__ void matmul_kernel(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += A[row * k + i] * B[i * n + col];
    C[row * n + col] = acc;
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    dim3 threads(16, 16);
    dim3 blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    if (m <= 0 || n <= 0) return;
    matmul_kernel<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
