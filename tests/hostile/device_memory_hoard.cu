// task: relu
// expect: crashed
// detail: device-memory-leak
// Takes every byte of device memory it can and never gives it back, then computes correctly.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    static int done = 0;
    if (!done) { done = 1; void* p; while (cudaMalloc(&p, 1ull << 30) == cudaSuccess) { } cudaGetLastError(); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
