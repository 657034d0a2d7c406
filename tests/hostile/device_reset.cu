// task: relu
// expect: crashed|wrong
// detail: 
// Resets the device under the harness: every buffer and stream of the worker is gone.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    static int calls = 0;
    if (++calls == 2) cudaDeviceReset();
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
