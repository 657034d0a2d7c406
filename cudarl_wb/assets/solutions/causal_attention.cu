#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// Causal attention, one warp per query row i: only the scores of keys j <= i are computed.
__global__ void causal_attention_kernel(const float* q, const float* k, const float* v, float* o, int64_t s, int64_t d) {
    extern __shared__ float p[];              // the row's scores, then its probabilities
    int64_t row = blockIdx.x, keys = row % s + 1;
    const float* kh = k + (row / s) * s * d;
    const float* vh = v + (row / s) * s * d;
    float scale = 1.f / sqrtf((float)d), m = -INFINITY, sum = 0.f;
    for (int64_t j = threadIdx.x; j < keys; j += 32) {
        float acc = 0.f;
        for (int64_t c = 0; c < d; ++c) acc += q[row * d + c] * kh[j * d + c];
        p[j] = acc * scale;
        m = fmaxf(m, p[j]);
    }
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    for (int64_t j = threadIdx.x; j < keys; j += 32) { p[j] = expf(p[j] - m); sum += p[j]; }
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    __syncwarp();                             // all of p is written before any lane reads it all
    for (int64_t c = threadIdx.x; c < d; c += 32) {
        float acc = 0.f;
        for (int64_t j = 0; j < keys; ++j) acc += p[j] * vh[j * d + c];
        o[row * d + c] = acc / sum;
    }
}

extern "C" void launch(const float* q, const float* k, const float* v, float* o, int64_t bh, int64_t s, int64_t d,
                       cudaStream_t stream) {
    if (bh <= 0 || s <= 0 || d <= 0) return;
    size_t smem = (size_t)s * sizeof(float);
    if (smem > 48 * 1024)                     // more than 48 KiB of shared memory must be asked for
        cudaFuncSetAttribute(causal_attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    causal_attention_kernel<<<(unsigned)(bh * s), 32, smem, stream>>>(q, k, v, o, s, d);
}
