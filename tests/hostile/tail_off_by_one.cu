// task: relu
// expect: wrong
// detail: tail
// Off by one at the tail: the bound is n - 1, so the last element is never written.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n - 1) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int threads = 256;
    relu_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, stream>>>(x, y, n);
}
