// task: relu
// expect: timed-out
// Spins forever on the GPU; the launch returns at once, the synchronisation never does. The spin reads
// the clock, which the compiler may not remove (a loop on a local `volatile int` was optimised away).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    long long start = clock64();
    while (clock64() >= start) { }
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
