#include <cuda_runtime.h>
#include <stdint.h>

// A 3 x 3 convolution with zero padding 1 and stride 1 (the output has the input's height and width):
// y[b, o, i, j] = sum_{c, di, dj} x[b, c, i + di - 1, j + dj - 1] * weight[o, c, di, dj], reading
// zero outside the image. x is batch x c_in x height x width (NCHW), weight is c_out x c_in x 3 x 3.
// One thread per output element; neighbouring threads have neighbouring j, so the reads of x coalesce.
__global__ void conv2d_kernel(const float* x, const float* weight, float* y, int64_t batch, int64_t c_in,
                              int64_t c_out, int64_t height, int64_t width) {
    int64_t total = batch * c_out * height * width;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t j = idx % width, i = (idx / width) % height;
        int64_t o = (idx / (width * height)) % c_out, b = idx / (width * height * c_out);
        float acc = 0.f;
        for (int64_t c = 0; c < c_in; ++c) {
            const float* xp = x + (b * c_in + c) * height * width;
            const float* wp = weight + (o * c_in + c) * 9;
            for (int di = 0; di < 3; ++di) {
                int64_t ii = i + di - 1;
                if (ii < 0 || ii >= height) continue;
                for (int dj = 0; dj < 3; ++dj) {
                    int64_t jj = j + dj - 1;
                    if (jj < 0 || jj >= width) continue;
                    acc += xp[ii * width + jj] * wp[di * 3 + dj];
                }
            }
        }
        y[idx] = acc;
    }
}

extern "C" void launch(const float* x, const float* weight, float* y, int64_t batch, int64_t c_in, int64_t c_out,
                       int64_t height, int64_t width, cudaStream_t stream) {
    int64_t total = batch * c_out * height * width;
    if (total <= 0) return;
    int threads = 256;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    conv2d_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, weight, y, batch, c_in, c_out, height, width);
}
