// task: relu
// expect: crashed
// detail: host memory
// Allocates and touches host memory without bound.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    for (;;) { char* p = (char*)malloc(256 << 20); if (!p) break; memset(p, 1, 256 << 20); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
