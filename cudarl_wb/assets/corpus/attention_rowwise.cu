// Single-head attention, O = softmax(Q K^T / sqrt(d)) V, one block per query row. Scores for the
// row live in dynamic shared memory (seq floats), so seq is limited by the shared-memory size.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void attention_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                                 float* __restrict__ o, int64_t seq, int64_t d) {
    extern __shared__ float scores[];
    __shared__ float red[32];
    int64_t row = blockIdx.x;
    const float* qr = q + row * d;
    float scale = rsqrtf((float)d);
    float local_max = -INFINITY;
    for (int64_t j = threadIdx.x; j < seq; j += blockDim.x) {
        float s = 0.f;
        for (int64_t t = 0; t < d; ++t) s += qr[t] * k[j * d + t];
        s *= scale;
        scores[j] = s;
        local_max = fmaxf(local_max, s);
    }
    for (int off = 16; off > 0; off >>= 1) local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffff, local_max, off));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = local_max;
    __syncthreads();
    float m = -INFINITY;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) m = fmaxf(m, red[w]);
    __syncthreads();
    float local_sum = 0.f;
    for (int64_t j = threadIdx.x; j < seq; j += blockDim.x) {
        float e = __expf(scores[j] - m);
        scores[j] = e;
        local_sum += e;
    }
    for (int off = 16; off > 0; off >>= 1) local_sum += __shfl_xor_sync(0xffffffff, local_sum, off);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = local_sum;
    __syncthreads();
    float total = 0.f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total += red[w];
    float inv = 1.f / total;
    for (int64_t t = threadIdx.x; t < d; t += blockDim.x) {
        float acc = 0.f;
        for (int64_t j = 0; j < seq; ++j) acc += scores[j] * v[j * d + t];
        o[row * d + t] = acc * inv;
    }
}

extern "C" void launch(const float* q, const float* k, const float* v, float* o, int64_t seq, int64_t d,
                       cudaStream_t stream) {
    if (seq <= 0) return;
    size_t smem = seq * sizeof(float);
    if (smem > 48 * 1024) cudaFuncSetAttribute(attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    attention_kernel<<<(unsigned)seq, 128, smem, stream>>>(q, k, v, o, seq, d);
}
