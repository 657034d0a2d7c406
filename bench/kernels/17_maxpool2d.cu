// 2x2 max pooling with stride 2 over a batch of h x w planes (NCHW with N*C = planes).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void maxpool2x2_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t planes, int64_t h, int64_t w) {
    int64_t oh = h / 2, ow = w / 2, total = planes * oh * ow;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t p = i / (oh * ow), r = (i / ow) % oh, c = i % ow;
        const float* src = x + p * h * w + (2 * r) * w + 2 * c;
        y[i] = fmaxf(fmaxf(src[0], src[1]), fmaxf(src[w], src[w + 1]));
    }
}

extern "C" void launch(const float* x, float* y, int64_t planes, int64_t h, int64_t w, cudaStream_t stream) {
    int64_t total = planes * (h / 2) * (w / 2);
    int64_t blocks = (total + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    if (blocks > 0) maxpool2x2_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, planes, h, w);
}
