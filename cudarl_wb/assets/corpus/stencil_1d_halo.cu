// 1-D stencil y[i] = sum_{r=-R..R} w[r + R] * x[i + r] (zero outside the vector). Each block loads
// its slice plus a halo of R elements on each side into shared memory once.
#include <cuda_runtime.h>
#include <stdint.h>

#define RADIUS 3
#define BLOCK 256

__global__ void stencil_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int64_t n) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int64_t g = blockIdx.x * (int64_t)BLOCK + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = g < n ? x[g] : 0.f;
    if (threadIdx.x < RADIUS) {
        int64_t left = g - RADIUS, right = g + BLOCK;
        s[l - RADIUS] = left >= 0 ? x[left] : 0.f;
        s[l + BLOCK] = right < n ? x[right] : 0.f;
    }
    __syncthreads();
    if (g >= n) return;
    float acc = 0.f;
#pragma unroll
    for (int r = -RADIUS; r <= RADIUS; ++r) acc += w[r + RADIUS] * s[l + r];
    y[g] = acc;
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
    int64_t blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks < 1) return;
    stencil_kernel<<<(unsigned)blocks, BLOCK, 0, stream>>>(x, w, y, n);
}
