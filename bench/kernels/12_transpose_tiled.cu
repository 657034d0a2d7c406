// y = x^T through a 32x33 shared tile: both reads and writes coalesced, no bank conflicts.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    int64_t c = blockIdx.x * (int64_t)TILE + threadIdx.x, r0 = blockIdx.y * (int64_t)TILE;
    for (int k = threadIdx.y; k < TILE; k += ROWS)
        if (r0 + k < rows && c < cols) tile[k][threadIdx.x] = x[(r0 + k) * cols + c];
    __syncthreads();
    int64_t r = blockIdx.y * (int64_t)TILE + threadIdx.x, c0 = blockIdx.x * (int64_t)TILE;
    for (int k = threadIdx.y; k < TILE; k += ROWS)
        if (c0 + k < cols && r < rows) y[(c0 + k) * rows + r] = tile[threadIdx.x][k];
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    dim3 block(TILE, ROWS);
    dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    if (rows > 0 && cols > 0) transpose_tiled_kernel<<<grid, block, 0, stream>>>(x, y, rows, cols);
}
