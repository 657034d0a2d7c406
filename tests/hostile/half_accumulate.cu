// task: matmul
// expect: wrong
// Accumulates in half precision: fast on tensor-core thinking, wrong for a float32 contract.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>
__global__ void mm(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y, col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    __half acc = __float2half(0.f);
    for (int64_t i = 0; i < k; ++i) acc = __hadd(acc, __float2half(A[row * k + i] * B[i * n + col]));
    C[row * n + col] = __half2float(acc);
}
extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    dim3 threads(16, 16), blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    mm<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
