#include <cuda_runtime.h>
#include <stdint.h>

// Depthwise 3x3 convolution, zero padding 1, stride 1: each channel has its own filter. x and y are
// batch x channels x height x width, weight is channels x 1 x 3 x 3. One thread per output element.
__global__ void depthwise_conv2d_kernel(const float* x, const float* weight, float* y, int64_t batch,
                                        int64_t channels, int64_t height, int64_t width) {
    int64_t hw = height * width, total = batch * channels * hw;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t j = idx % width, i = (idx / width) % height, plane = idx / hw, c = plane % channels;
        float acc = 0.f;
        for (int di = 0; di < 3; ++di)
            for (int dj = 0; dj < 3; ++dj) {
                int64_t ii = i + di - 1, jj = j + dj - 1;
                if (ii >= 0 && ii < height && jj >= 0 && jj < width)
                    acc += x[plane * hw + ii * width + jj] * weight[c * 9 + di * 3 + dj];
            }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* weight, float* y, int64_t batch, int64_t channels,
                       int64_t height, int64_t width, cudaStream_t stream) {
    int64_t total = batch * channels * height * width;
    if (total <= 0) return;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    depthwise_conv2d_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, weight, y, batch, channels, height, width);
}
