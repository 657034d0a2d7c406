// Cross-entropy per row from logits and int64 class targets: loss[r] = logsumexp(x[r]) - x[r, t[r]].
// One warp per row; the max is subtracted before exponentiating so large logits do not overflow.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void cross_entropy_kernel(const float* __restrict__ logits, const int64_t* __restrict__ target,
                                     float* __restrict__ loss, int64_t rows, int64_t classes) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = logits + row * classes;
    float m = -INFINITY;
    for (int64_t j = lane; j < classes; j += 32) m = fmaxf(m, xr[j]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float s = 0.f;
    for (int64_t j = lane; j < classes; j += 32) s += expf(xr[j] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) loss[row] = logf(s) + m - xr[target[row]];
}

extern "C" void launch(const float* logits, const int64_t* target, float* loss, int64_t rows, int64_t classes,
                       cudaStream_t stream) {
    int64_t blocks = (rows + 7) / 8;
    if (blocks < 1) return;
    cross_entropy_kernel<<<(unsigned)blocks, 256, 0, stream>>>(logits, target, loss, rows, classes);
}
