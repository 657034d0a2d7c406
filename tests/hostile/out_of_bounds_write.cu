// task: relu
// expect: wrong
// detail: out-of-bounds-write
// Writes 17 elements past the end of y (zeros): the outputs look right, the guard zone does not.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
    else if (i < n + 17) y[i] = 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int threads = 256;
    relu_kernel<<<(unsigned)((n + 17 + threads - 1) / threads), threads, 0, stream>>>(x, y, n);
}
