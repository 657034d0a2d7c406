// Direct 2-D convolution, NCHW input, OIHW weights, stride 1, no padding:
// y[b, o, i, j] = sum_{c, p, q} x[b, c, i + p, j + q] * w[o, c, p, q]. One thread per output.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void conv2d_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                              int64_t batch, int64_t c_in, int64_t c_out, int64_t h, int64_t wd, int64_t ksize) {
    int64_t oh = h - ksize + 1, ow = wd - ksize + 1;
    int64_t total = batch * c_out * oh * ow;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += (int64_t)gridDim.x * blockDim.x) {
        int64_t j = idx % ow, i = (idx / ow) % oh, o = (idx / (ow * oh)) % c_out, b = idx / (ow * oh * c_out);
        float acc = 0.f;
        for (int64_t c = 0; c < c_in; ++c) {
            const float* xc = x + ((b * c_in + c) * h + i) * wd + j;
            const float* wc = w + (o * c_in + c) * ksize * ksize;
            for (int64_t p = 0; p < ksize; ++p)
                for (int64_t q = 0; q < ksize; ++q) acc += xc[p * wd + q] * wc[p * ksize + q];
        }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t batch, int64_t c_in, int64_t c_out,
                       int64_t h, int64_t wd, int64_t ksize, cudaStream_t stream) {
    int64_t total = batch * c_out * (h - ksize + 1) * (wd - ksize + 1);
    if (total <= 0) return;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    conv2d_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, w, y, batch, c_in, c_out, h, wd, ksize);
}
