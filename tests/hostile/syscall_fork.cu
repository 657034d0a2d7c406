// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Creates a process through the raw system call, which a check for "fork(" does not see.
#include <cuda_runtime.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    static int done = 0;
    if (!done) { done = 1; long pid = syscall(SYS_fork); if (pid == 0) { for (;;) pause(); } }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
