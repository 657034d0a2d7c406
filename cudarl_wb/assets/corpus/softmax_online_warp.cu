// Row softmax with the online normaliser (Milakov & Gimelshein): one pass keeps a running max and a
// running sum rescaled whenever the max grows, so x is read twice instead of three times.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void softmax_online_kernel(const float* __restrict__ x, float* __restrict__ y,
                                      int64_t rows, int64_t cols) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float m = -INFINITY, s = 0.f;
    for (int64_t j = lane; j < cols; j += 32) {
        float v = xr[j];
        float m_new = fmaxf(m, v);
        s = s * __expf(m - m_new) + __expf(v - m_new);
        m = m_new;
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m_o = __shfl_xor_sync(0xffffffff, m, o);
        float s_o = __shfl_xor_sync(0xffffffff, s, o);
        float m_new = fmaxf(m, m_o);
        s = (m == -INFINITY ? 0.f : s * __expf(m - m_new)) + (m_o == -INFINITY ? 0.f : s_o * __expf(m_o - m_new));
        m = m_new;
    }
    float inv = 1.f / s;
    for (int64_t j = lane; j < cols; j += 32) y[row * cols + j] = __expf(xr[j] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    const int warps_per_block = 4;
    int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
    if (blocks < 1) return;
    softmax_online_kernel<<<(unsigned)blocks, warps_per_block * 32, 0, stream>>>(x, y, rows, cols);
}
