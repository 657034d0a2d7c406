
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    if (blocks < 1) blocks = 1;
    vector_add_kernel<<<(unsigned)blocks, threads, 0, stream>>>(a, b, c, n);
}
