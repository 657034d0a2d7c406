#include <cuda_runtime.h>
#include <stdint.h>

// y = x^T through a 32 x 32 tile in shared memory: a block reads a tile of x row by row (coalesced),
// and writes it to y row by row too, reading the tile by columns. The tile is 33 floats wide: with
// 32, a column of the tile would sit in one shared-memory bank and its 32 reads would be serialised.
#define TILE 32

__global__ void transpose_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    int64_t c0 = (int64_t)blockIdx.x * TILE;
    int64_t row_tiles = (rows + TILE - 1) / TILE;
    for (int64_t bt = blockIdx.y; bt < row_tiles; bt += gridDim.y) {    // grid.y is limited to 65535
        int64_t r0 = bt * TILE;
        for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
            int64_t r = r0 + k, c = c0 + threadIdx.x;
            if (r < rows && c < cols) tile[k][threadIdx.x] = x[r * cols + c];
        }
        __syncthreads();
        for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
            int64_t c = c0 + k, r = r0 + threadIdx.x;                   // y[c, r] = x[r, c]
            if (c < cols && r < rows) y[c * rows + r] = tile[threadIdx.x][k];
        }
        __syncthreads();                                                // the tile is refilled next
    }
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    int64_t gy = (rows + TILE - 1) / TILE;
    if (gy > 65535) gy = 65535;
    dim3 blocks((unsigned)((cols + TILE - 1) / TILE), (unsigned)gy);
    transpose_kernel<<<blocks, dim3(TILE, 8), 0, stream>>>(x, y, rows, cols);
}
