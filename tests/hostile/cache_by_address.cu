// task: matmul
// expect: wrong
// Remembers which input addresses it has seen and skips the work for them: correct whenever the
// addresses are fresh, stale when the same buffers come back with new values (the timed runs).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void matmul_kernel(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y, col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc += A[row * k + i] * B[i * n + col];
    C[row * n + col] = acc;
}
extern "C" void launch(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
    static const float* seen[256]; static float* out[256]; static int nseen = 0;
    for (int i = 0; i < nseen; i++)
        if (seen[i] == A && out[i] == C) return;     // "already computed"
    if (nseen < 256) { seen[nseen] = A; out[nseen] = C; nseen++; }
    dim3 threads(16, 16), blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    matmul_kernel<<<blocks, threads, 0, stream>>>(A, B, C, m, n, k);
}
