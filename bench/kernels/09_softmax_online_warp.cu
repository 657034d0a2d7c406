// Row softmax, one warp per row, online max/sum in one pass (Milakov & Gimelshein), shuffles only.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void softmax_online_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float m = -INFINITY, s = 0.f;
    for (int64_t j = lane; j < cols; j += 32) {
        float v = xr[j], m2 = fmaxf(m, v);
        s = s * __expf(m - m2) + __expf(v - m2);
        m = m2;
    }
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        float m_o = __shfl_xor_sync(0xffffffffu, m, off), s_o = __shfl_xor_sync(0xffffffffu, s, off);
        float m2 = fmaxf(m, m_o);
        s = (m == -INFINITY ? 0.f : s * __expf(m - m2)) + (m_o == -INFINITY ? 0.f : s_o * __expf(m_o - m2));
        m = m2;
    }
    float inv = 1.f / s;
    for (int64_t j = lane; j < cols; j += 32) y[row * cols + j] = __expf(xr[j] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    const int warps_per_block = 8;
    if (rows > 0) softmax_online_kernel<<<(unsigned)((rows + warps_per_block - 1) / warps_per_block), warps_per_block * 32, 0, stream>>>(x, y, rows, cols);
}
