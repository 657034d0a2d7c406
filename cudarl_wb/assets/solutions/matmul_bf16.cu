#include <cuda_runtime.h>
#include <stdint.h>
#include <cuda_bf16.h>

// C = A B in bfloat16: A is m x k, B is k x n, C is m x n, row-major. The products are summed in
// float (bfloat16 keeps 8 bits of mantissa: a bfloat16 accumulator would stop growing once the sum
// is 256 times larger than a term) and each result is rounded to bfloat16 once.
__global__ void matmul_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C,
                                   int64_t m, int64_t n, int64_t k) {
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += __bfloat162float(A[row * k + i]) * __bfloat162float(B[i * n + col]);
    C[row * n + col] = __float2bfloat16(acc);
}

extern "C" void launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int64_t m, int64_t n,
                       int64_t k, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    dim3 threads(16, 16);
    dim3 blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    matmul_bf16_kernel<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
