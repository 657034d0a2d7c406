#include <cuda_runtime.h>
#include <stdint.h>

// A 1-D convolution (cross-correlation, as in PyTorch) without padding, stride 1:
// y[b, o, t] = sum_{c < c_in, i < kw} x[b, c, t + i] * w[o, c, i], for t < length - kw + 1.
// x is batch x c_in x length, w is c_out x c_in x kw, y is batch x c_out x (length - kw + 1).
// One thread per output element, a grid-stride loop over all of them.
__global__ void conv1d_kernel(const float* x, const float* w, float* y, int64_t batch, int64_t c_in, int64_t c_out,
                              int64_t length, int64_t kw) {
    int64_t lout = length - kw + 1;
    int64_t total = batch * c_out * lout;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t t = idx % lout, o = (idx / lout) % c_out, b = idx / (lout * c_out);
        float acc = 0.f;
        for (int64_t c = 0; c < c_in; ++c) {
            const float* xr = x + (b * c_in + c) * length + t;
            const float* wr = w + (o * c_in + c) * kw;
            for (int64_t i = 0; i < kw; ++i) acc += xr[i] * wr[i];
        }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t batch, int64_t c_in, int64_t c_out,
                       int64_t length, int64_t kw, cudaStream_t stream) {
    int64_t total = batch * c_out * (length - kw + 1);
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    conv1d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, w, y, batch, c_in, c_out, length, kw);
}
