// C = A B with tensor cores (WMMA 16x16x16, fp16 inputs, fp32 accumulate); one warp per 16x16 output tile.
// m, n and k must be multiples of 16 (the launcher does nothing otherwise).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

__global__ void matmul_wmma_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int64_t m, int64_t n, int64_t k) {
    int64_t tile_row = (blockIdx.y * (int64_t)blockDim.y + threadIdx.y) * 16;
    int64_t tile_col = (blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32) * 16;
    if (tile_row >= m || tile_col >= n) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int64_t t = 0; t < k; t += 16) {
        wmma::load_matrix_sync(a, A + tile_row * k + t, (unsigned)k);
        wmma::load_matrix_sync(b, B + t * n + tile_col, (unsigned)n);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + tile_row * n + tile_col, acc, (unsigned)n, wmma::mem_row_major);
}

extern "C" void launch(const __half* A, const __half* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    if (m % 16 || n % 16 || k % 16 || m == 0 || n == 0) return;
    dim3 block(128, 4);   // 4 warps across, 4 down: a 64x64 output block
    dim3 grid((unsigned)((n / 16 + 3) / 4), (unsigned)((m / 16 + 3) / 4));
    matmul_wmma_kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
