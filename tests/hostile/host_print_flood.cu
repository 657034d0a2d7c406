// task: relu
// expect: crashed
// detail: printed more than
// Prints gigabytes from the host side of the launcher.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    static char buf[1 << 16]; memset(buf, 120, sizeof buf);
    for (long i = 0; i < (1L << 16); i++) fwrite(buf, 1, sizeof buf, stdout);   // 4 GiB
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
