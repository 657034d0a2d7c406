// task: vector_add
// expect: wrong
// detail: never written
// Does nothing for big sizes (where a real kernel costs time): the timed shape is never computed.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void add(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    if (n > 2000000) return;
    add<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
}
