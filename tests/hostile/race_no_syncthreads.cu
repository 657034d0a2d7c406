// task: matmul
// expect: wrong
// A tiled matmul with both __syncthreads() removed: warps read tiles other warps have not loaded
// yet, or have already overwritten with the next tile. 32 warps per block make the race bite.
#include <cuda_runtime.h>
#include <stdint.h>
#define T 32
__global__ void mm(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    __shared__ float As[T][T], Bs[T][T];
    int64_t row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.f;
    for (int64_t t = 0; t < k; t += T) {
        As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[(t + threadIdx.y) * n + col] : 0.f;
        /* __syncthreads(); missing */
        for (int i = 0; i < T; ++i) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        /* __syncthreads(); missing */
    }
    if (row < m && col < n) C[row * n + col] = acc;
}
extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    dim3 threads(T, T), blocks((unsigned)((n + T - 1) / T), (unsigned)((m + T - 1) / T));
    mm<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
