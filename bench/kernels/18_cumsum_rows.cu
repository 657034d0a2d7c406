// Inclusive prefix sum along each row: one block per row, chunks of 1024 scanned in shared memory
// (Hillis-Steele) with a running carry between chunks.
#include <cuda_runtime.h>
#include <stdint.h>

#define CHUNK 1024

__global__ void cumsum_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    __shared__ float buf[2][CHUNK];
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    float carry = 0.f;
    for (int64_t start = 0; start < cols; start += CHUNK) {
        int64_t j = start + threadIdx.x;
        int cur = 0;
        buf[cur][threadIdx.x] = j < cols ? xr[j] : 0.f;
        __syncthreads();
        for (int off = 1; off < CHUNK; off <<= 1) {
            float v = buf[cur][threadIdx.x];
            if (threadIdx.x >= off) v += buf[cur][threadIdx.x - off];
            buf[1 - cur][threadIdx.x] = v;
            cur = 1 - cur;
            __syncthreads();
        }
        if (j < cols) yr[j] = buf[cur][threadIdx.x] + carry;
        carry += buf[cur][CHUNK - 1];
        __syncthreads();
    }
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows > 0) cumsum_rows_kernel<<<(unsigned)rows, CHUNK, 0, stream>>>(x, y, rows, cols);
}
