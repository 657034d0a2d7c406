// task: relu
// expect: crashed|timed-out
// detail:
// Raises the device printf buffer to 1 GiB and fills it from every thread: gigabytes of output at
// the next synchronisation.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
    if (i < (1 << 20)) for (int r = 0; r < 64; r++) printf("%lld xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", (long long)i);
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    cudaDeviceSetLimit(cudaLimitPrintfFifoSize, (size_t)1 << 30);
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
