// C = A B with 32x32 tiles of A and B staged in shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 32

__global__ void matmul_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t m, int64_t n, int64_t k) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
    int64_t row = blockIdx.y * (int64_t)TILE + threadIdx.y, col = blockIdx.x * (int64_t)TILE + threadIdx.x;
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
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    if (m > 0 && n > 0) matmul_tiled_kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
