// task: vector_add
// expect: wrong
// detail: only large values
// Right for |a + b| <= 16 (everything unit-scale random inputs produce), off by 0.1% above.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void add(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) { float s = a[i] + b[i]; c[i] = fabsf(s) > 16.f ? s * 1.001f : s; }
}
extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    add<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
}
