// task: relu
// expect: wrong
// detail: inputs-modified
// Correct output, but it clamps its input in place (casting away const).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i] > 0.f ? x[i] : 0.f; y[i] = v; ((float*)x)[i] = v; }
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
