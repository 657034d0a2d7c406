// C = A·B with 32×32 tiles staged through shared memory: every element of A and B is read from
// global memory m/32 or n/32 times instead of n or m times.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 32

__global__ void matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                    int64_t m, int64_t n, int64_t k) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];   // +1 avoids bank conflicts on the column reads
    int64_t row = blockIdx.y * TILE + threadIdx.y;
    int64_t col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int64_t t = 0; t < k; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[(t + threadIdx.y) * n + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TILE; ++i) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = acc;
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    dim3 threads(TILE, TILE);
    dim3 blocks((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    matmul_tiled_kernel<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
