// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Runs a shell command (as a model might, to fetch a library or read a file).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    system("echo pwned > /tmp/cudarl_hostile_exec.txt");
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
