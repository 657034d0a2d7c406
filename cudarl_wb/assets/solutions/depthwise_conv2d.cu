#include <cuda_runtime.h>
#include <stdint.h>

// A depthwise 3 x 3 convolution, zero padding 1, stride 1: each channel has its own 3 x 3 filter
// and sees only itself. y[b, c, i, j] = sum_{di, dj} x[b, c, i + di - 1, j + dj - 1] * weight[c, di, dj].
// x and y are batch x channels x height x width; weight is channels x 1 x 3 x 3. One thread per output.
__global__ void depthwise_conv2d_kernel(const float* x, const float* weight, float* y, int64_t batch,
                                        int64_t channels, int64_t height, int64_t width) {
    int64_t total = batch * channels * height * width;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t j = idx % width, i = (idx / width) % height;
        int64_t plane = idx / (width * height);            // b * channels + c
        int64_t c = plane % channels;
        const float* xp = x + plane * height * width;
        const float* wp = weight + c * 9;
        float acc = 0.f;
        for (int di = 0; di < 3; ++di) {
            int64_t ii = i + di - 1;
            if (ii < 0 || ii >= height) continue;
            for (int dj = 0; dj < 3; ++dj) {
                int64_t jj = j + dj - 1;
                if (jj < 0 || jj >= width) continue;
                acc += xp[ii * width + jj] * wp[di * 3 + dj];
            }
        }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* weight, float* y, int64_t batch, int64_t channels,
                       int64_t height, int64_t width, cudaStream_t stream) {
    int64_t total = batch * channels * height * width;
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    depthwise_conv2d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, weight, y, batch, channels, height, width);
}
