#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[i] = min(max(x[i], -1), 1)
// One thread per element in a grid-stride loop; 64-bit indices, so any n works.
__global__ void hardtanh_kernel(const float* x, float* y, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = fminf(fmaxf(x[i], -1.f), 1.f);
    }
}

extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    hardtanh_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
