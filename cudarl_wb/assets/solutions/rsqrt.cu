#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[i] = 1 / sqrt(x[i]) for positive x
// One thread per element in a grid-stride loop; 64-bit indices, so any n works.
__global__ void rsqrt_kernel(const float* x, float* y, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = 1.f / sqrtf(x[i]);
    }
}

extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    rsqrt_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
