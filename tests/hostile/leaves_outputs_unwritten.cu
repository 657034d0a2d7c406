// task: relu
// expect: wrong
// detail: never written
// Writes only the even elements: the odd ones keep the NaN the harness put there.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = 2 * (blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    relu_kernel<<<(unsigned)((n / 2 + 256) / 256), 256, 0, stream>>>(x, y, n);
}
