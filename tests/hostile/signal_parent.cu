// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Signals the process that started the worker (the trainer). The test catches SIGUSR1 and fails if it arrives.
#include <cuda_runtime.h>
#include <stdint.h>
#include <signal.h>
#include <unistd.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    if (getppid() > 1) kill(getppid(), SIGUSR1);
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
