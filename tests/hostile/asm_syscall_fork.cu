// task: relu
// expect: crashed
// detail: 
// escape: yes
// Creates a process with a raw `syscall` instruction (fork); the child would spin for ever and outlive
// the job if the sandbox let it. The test checks that no process of the worker's group is left.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
static long raw0(long nr) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
    return ret;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    long pid = raw0(57);                                           // fork
    if (pid == 0) { for (;;) raw0(34); }                           // the child: pause, for ever
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
