#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// y[i] = x tanh(softplus(x)), softplus(x) = log(1 + exp(x)) (x itself above 20)
// One thread per element in a grid-stride loop; 64-bit indices, so any n works.
__global__ void mish_kernel(const float* x, float* y, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        float sp = v > 20.f ? v : log1pf(expf(v));
        y[i] = v * tanhf(sp);
    }
}

extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    mish_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
