// 2-D max pooling over NCHW with a square window and an equal stride, no padding.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

__global__ void maxpool2d_kernel(const float* __restrict__ x, float* __restrict__ y,
                                 int64_t planes, int64_t h, int64_t w, int64_t k) {
    int64_t oh = h / k, ow = w / k;
    int64_t total = planes * oh * ow;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += (int64_t)gridDim.x * blockDim.x) {
        int64_t j = idx % ow, i = (idx / ow) % oh, p = idx / (oh * ow);
        const float* src = x + (p * h + i * k) * w + j * k;
        float m = -FLT_MAX;
        for (int64_t a = 0; a < k; ++a)
            for (int64_t b = 0; b < k; ++b) m = fmaxf(m, src[a * w + b]);
        y[idx] = m;
    }
}

extern "C" void launch(const float* x, float* y, int64_t planes, int64_t h, int64_t w, int64_t k, cudaStream_t stream) {
    int64_t total = planes * (h / k) * (w / k);
    if (total <= 0) return;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    maxpool2d_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, planes, h, w, k);
}
