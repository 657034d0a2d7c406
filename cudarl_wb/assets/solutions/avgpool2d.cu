#include <cuda_runtime.h>
#include <stdint.h>

// 3 x 3 average pooling, stride 1, zero padding 1 (the output keeps height and width): the sum of
// the 3 x 3 window around (i, j), zeros outside the image, divided by 9 everywhere (PyTorch's
// count_include_pad=True, so border outputs are smaller). One thread per output element.
__global__ void avgpool2d_kernel(const float* x, float* y, int64_t batch, int64_t channels, int64_t height,
                                 int64_t width) {
    int64_t total = batch * channels * height * width;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t j = idx % width, i = (idx / width) % height, plane = idx / (width * height);
        const float* xp = x + plane * height * width;
        float acc = 0.f;
        for (int64_t ii = i - 1; ii <= i + 1; ++ii) {
            if (ii < 0 || ii >= height) continue;
            for (int64_t jj = j - 1; jj <= j + 1; ++jj)
                if (jj >= 0 && jj < width) acc += xp[ii * width + jj];
        }
        y[idx] = acc / 9.f;
    }
}

extern "C" void launch(const float* x, float* y, int64_t batch, int64_t channels, int64_t height, int64_t width,
                       cudaStream_t stream) {
    int64_t total = batch * channels * height * width;
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    avgpool2d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, batch, channels, height, width);
}
