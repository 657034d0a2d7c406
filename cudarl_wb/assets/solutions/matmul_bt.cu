#include <cuda_runtime.h>
#include <stdint.h>

// C = A B^T: A is m x k, B is n x k (as in a linear layer, whose weight is out x in), C is m x n.
// One thread per element of C, each a dot product of a row of A with a row of B.
__global__ void matmul_bt_kernel(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    const float* a = A + row * k;
    const float* b = B + col * k;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += a[i] * b[i];
    C[row * n + col] = acc;
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    dim3 threads(16, 16);
    dim3 blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    matmul_bt_kernel<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
