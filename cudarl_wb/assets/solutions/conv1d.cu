#include <cuda_runtime.h>
#include <stdint.h>

// A 1-D convolution (cross-correlation, as in PyTorch) without padding, stride 1:
// y[b, o, t] = sum_{c < cin, i < kw} x[b, c, t + i] * w[o, c, i], for t < length - kw + 1.
// x is batch x cin x length, w is cout x cin x kw, y is batch x cout x (length - kw + 1).
// One thread per output element, a grid-stride loop over all of them.
__global__ void conv1d_kernel(const float* x, const float* w, float* y, int64_t batch, int64_t cin, int64_t cout,
                              int64_t length, int64_t kw) {
    int64_t lout = length - kw + 1;
    int64_t total = batch * cout * lout;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t t = idx % lout, o = (idx / lout) % cout, b = idx / (lout * cout);
        float acc = 0.f;
        for (int64_t c = 0; c < cin; ++c) {
            const float* xr = x + (b * cin + c) * length + t;
            const float* wr = w + (o * cin + c) * kw;
            for (int64_t i = 0; i < kw; ++i) acc += xr[i] * wr[i];
        }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* w, float* y, int64_t batch, int64_t cin, int64_t cout,
                       int64_t length, int64_t kw, cudaStream_t stream) {
    int64_t total = batch * cout * (length - kw + 1);
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    conv1d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, w, y, batch, cin, cout, length, kw);
}
