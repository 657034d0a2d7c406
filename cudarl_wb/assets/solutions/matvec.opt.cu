#include <cuda_runtime.h>
#include <stdint.h>

// y = A x with one warp per row: the 32 lanes read 32 neighbouring floats of the row (one
// coalesced line per load), each keeps a partial dot product, and five shuffle steps add them.
// Reading A, the only big operand, at full bandwidth is all a matrix-vector product can do.
__global__ void matvec_kernel(const float* A, const float* x, float* y, int64_t m, int64_t k) {
    int lane = threadIdx.x & 31;
    int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    if (row >= m) return;                     // the same for all 32 lanes, so whole warps leave
    const float* a = A + row * k;
    float acc = 0.f;
    for (int64_t i = lane; i < k; i += 32) acc += a[i] * x[i];
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) y[row] = acc;
}

extern "C" void launch(const float* A, const float* x, float* y, int64_t m, int64_t k, cudaStream_t stream) {
    if (m <= 0) return;
    int threads = 256;                        // 8 rows per block
    int64_t blocks = (m * 32 + threads - 1) / threads;
    matvec_kernel<<<(unsigned)blocks, threads, 0, stream>>>(A, x, y, m, k);
}
