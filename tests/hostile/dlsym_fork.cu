// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Finds fork through dlsym with a name built at run time: no "fork" in the source.
#include <cuda_runtime.h>
#include <stdint.h>
#include <dlfcn.h>
#include <unistd.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    char name[5] = {(char)102, (char)111, (char)114, (char)107, 0};   // "fork"
    long (*f)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, name);
    if (f && f() == 0) { for (;;) pause(); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
