// C = A B, 64x64 block tile, 8-deep K slices in shared memory, each thread computes a 4x4 micro-tile in registers.
#include <cuda_runtime.h>
#include <stdint.h>

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

__global__ void __launch_bounds__(256) matmul_reg_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                                         int64_t m, int64_t n, int64_t k) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int64_t row0 = blockIdx.y * (int64_t)BM, col0 = blockIdx.x * (int64_t)BN;
    float acc[TM][TN] = {};
    for (int64_t t = 0; t < k; t += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {        // A tile, stored transposed
            int r = i / BK, c = i % BK;
            As[c][r] = (row0 + r < m && t + c < k) ? A[(row0 + r) * k + t + c] : 0.f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = (t + r < k && col0 + c < n) ? B[(t + r) * n + col0 + c] : 0.f;
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
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            int64_t r = row0 + ty * TM + i, c = col0 + tx * TN + j;
            if (r < m && c < n) C[r * n + c] = acc[i][j];
        }
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    if (m > 0 && n > 0) matmul_reg_kernel<<<grid, (BM / TM) * (BN / TN), 0, stream>>>(A, B, C, m, n, k);
}
