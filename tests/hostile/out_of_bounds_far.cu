// task: relu
// expect: crashed
// Writes a terabyte past its buffer: an illegal address, a sticky error, the worker is replaced.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i + (1LL << 38)] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int threads = 256;
    relu_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(x, y, n);
}
