#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// 2 x 2 max pooling with stride 2: y[p, i, j] = max of x[p, 2i .. 2i+1, 2j .. 2j+1] for each plane
// p of the batch x channels planes. An odd last row or column of x is dropped (the output is
// floor(height / 2) x floor(width / 2)), as PyTorch does. One thread per output element.
__global__ void maxpool2d_kernel(const float* x, float* y, int64_t batch, int64_t channels, int64_t height,
                                 int64_t width) {
    int64_t ho = height / 2, wo = width / 2;
    int64_t total = batch * channels * ho * wo;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t j = idx % wo, i = (idx / wo) % ho, plane = idx / (wo * ho);
        const float* xp = x + plane * height * width + (2 * i) * width + 2 * j;
        float m = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[width], xp[width + 1]));
        y[idx] = m;
    }
}

extern "C" void launch(const float* x, float* y, int64_t batch, int64_t channels, int64_t height, int64_t width,
                       cudaStream_t stream) {
    int64_t total = batch * channels * (height / 2) * (width / 2);
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    maxpool2d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, batch, channels, height, width);
}
