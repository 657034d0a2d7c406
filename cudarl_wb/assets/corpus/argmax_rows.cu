// Index of the largest value in each row (the first one on ties, as torch.argmax does), int64 out.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void argmax_kernel(const float* __restrict__ x, int64_t* __restrict__ out, int64_t rows, int64_t cols) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float best = -INFINITY;
    int64_t best_j = 0;
    for (int64_t j = lane; j < cols; j += 32) {
        float v = x[row * cols + j];
        if (v > best) { best = v; best_j = j; }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float v = __shfl_xor_sync(0xffffffff, best, o);
        int64_t j = __shfl_xor_sync(0xffffffff, best_j, o);
        if (v > best || (v == best && j < best_j)) { best = v; best_j = j; }
    }
    if (lane == 0) out[row] = best_j;
}

extern "C" void launch(const float* x, int64_t* out, int64_t rows, int64_t cols, cudaStream_t stream) {
    int64_t blocks = (rows + 7) / 8;
    if (blocks < 1) return;
    argmax_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, out, rows, cols);
}
