// z = alpha * x + y
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void saxpy_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z, int64_t n, float alpha) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) z[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void launch(const float* x, const float* y, float* z, int64_t n, float alpha, cudaStream_t stream) {
    const int threads = 256;
    if (n > 0) saxpy_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(x, y, z, n, alpha);
}
