// y[i] = sum_j x[i + j] w[j] (valid convolution, kernel length kw), input tile with halo in shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256
#define MAX_KW 64

__global__ void conv1d_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int64_t n, int64_t kw) {
    __shared__ float tile[THREADS + MAX_KW];
    __shared__ float wk[MAX_KW];
    int64_t out_n = n - kw + 1, base = blockIdx.x * (int64_t)THREADS;
    for (int i = threadIdx.x; i < THREADS + kw - 1; i += THREADS) tile[i] = base + i < n ? x[base + i] : 0.f;
    if (threadIdx.x < kw) wk[threadIdx.x] = w[threadIdx.x];
    __syncthreads();
    int64_t i = base + threadIdx.x;
    if (i >= out_n) return;
    float acc = 0.f;
    for (int j = 0; j < kw; ++j) acc = fmaf(tile[threadIdx.x + j], wk[j], acc);
    y[i] = acc;
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t n, int64_t kw, cudaStream_t stream) {
    int64_t out_n = n - kw + 1;
    if (out_n > 0 && kw <= MAX_KW) conv1d_kernel<<<(unsigned)((out_n + THREADS - 1) / THREADS), THREADS, 0, stream>>>(x, w, y, n, kw);
}
