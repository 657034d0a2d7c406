#include <cuda_runtime.h>
#include <stdint.h>

// C = A B with shared-memory tiling and register blocking. A block of 256 threads computes a
// 64 x 64 tile of C. For each slice of 16 along k it copies a 64 x 16 tile of A and a 16 x 64 tile
// of B into shared memory (coalesced, zero outside the matrices so no size has to divide anything),
// then each thread multiplies them into its own 4 x 4 patch of C held in registers. Every value
// loaded from global memory is reused 64 times from shared memory and every shared value 4 times
// from registers: the naive kernel reads A and B from memory once per multiply-add.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    __shared__ float As[BK][BM + 4];           // A's tile, transposed: As[kk][row]
    __shared__ float Bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int64_t row0 = (int64_t)blockIdx.y * BM, col0 = (int64_t)blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    for (int64_t k0 = 0; k0 < k; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += blockDim.x) {
            int r = e / BK, c = e % BK;         // consecutive threads read consecutive k: coalesced
            int64_t gr = row0 + r, gc = k0 + c;
            As[c][r] = (gr < m && gc < k) ? A[gr * k + gc] : 0.f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += blockDim.x) {
            int r = e / BN, c = e % BN;
            int64_t gr = k0 + r, gc = col0 + c;
            Bs[r][c] = (gr < k && gc < n) ? B[gr * n + gc] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();                        // the tiles are overwritten in the next step
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int64_t r = row0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int64_t c = col0 + tx * TN + j;
            if (r < m && c < n) C[r * n + c] = acc[i][j];
        }
    }
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    dim3 blocks((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    matmul_tiled_kernel<<<blocks, 256, 0, stream>>>(A, B, C, m, n, k);
}
