#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// d[i] = a[i] * b[i] + c[i], with one rounding (fmaf)
// One thread per element in a grid-stride loop; 64-bit indices, so any n works.
__global__ void fma_kernel(const float* a, const float* b, const float* c, float* d, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        d[i] = fmaf(a[i], b[i], c[i]);
    }
}

extern "C" void launch(const float* a, const float* b, const float* c, float* d, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    fma_kernel<<<(unsigned)blocks, threads, 0, stream>>>(a, b, c, d, n);
}
