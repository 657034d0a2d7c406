#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[i] = log(1 + exp(x[i])), or x[i] itself above 20 (where exp would overflow soon)
// One thread per element in a grid-stride loop; 64-bit indices, so any n works.
__global__ void softplus_kernel(const float* x, float* y, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        y[i] = v > 20.f ? v : log1pf(expf(v));
    }
}

extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    softplus_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
