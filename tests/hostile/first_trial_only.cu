// task: vector_add
// expect: wrong
// Computes on its first call only and keeps the answer in a buffer of its own; later calls copy
// that first answer into the output (the "result is already there" hack).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void add(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    static float* saved = nullptr; static int64_t saved_n = 0;
    if (saved && saved_n >= n) { cudaMemcpyAsync(c, saved, n * sizeof(float), cudaMemcpyDeviceToDevice, stream); return; }
    add<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
    if (saved) cudaFree(saved);
    cudaMalloc(&saved, n * sizeof(float)); saved_n = n;
    cudaMemcpyAsync(saved, c, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}
