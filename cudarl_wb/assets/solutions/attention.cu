#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// Single-head attention, softmax(Q K^T / sqrt(d)) V, for `bh` independent (batch x head) slices:
// q, k, v and o are bh x s x d, row-major. One block per query row: its s scores go to shared
// memory, the block finds their maximum and the sum of exponentials, and then each thread computes
// output columns as probability-weighted sums of the rows of V. Simple, but every block reads all of
// K and V for its slice: a tiled (flash) kernel would share them between query rows.
__device__ __forceinline__ float block_max(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();                          // everyone has read partial[0] before it is reused
    return r;
}

__device__ __forceinline__ float block_sum(float v, float* partial) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float r = partial[0];
    __syncthreads();
    return r;
}

__global__ void attention_kernel(const float* q, const float* k, const float* v, float* o, int64_t bh, int64_t s,
                                 int64_t d) {
    extern __shared__ float smem[];
    float* scores = smem;                     // s floats
    float* partial = smem + s;                // blockDim.x floats
    int64_t row = blockIdx.x;                 // one of the bh * s query rows
    const float* qr = q + row * d;
    const float* kh = k + (row / s) * s * d;
    const float* vh = v + (row / s) * s * d;
    int64_t keys = s;
    float scale = 1.f / sqrtf((float)d);
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
        float acc = 0.f;
        for (int64_t c = 0; c < d; ++c) acc += qr[c] * kh[j * d + c];
        acc *= scale;
        scores[j] = acc;
        m = fmaxf(m, acc);
    }
    m = block_max(m, partial);
    float sum = 0.f;
    for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
        float p = expf(scores[j] - m);
        scores[j] = p;
        sum += p;
    }
    sum = block_sum(sum, partial);            // its barriers also publish every thread's scores
    float inv = 1.f / sum;
    for (int64_t c = threadIdx.x; c < d; c += blockDim.x) {
        float acc = 0.f;
        for (int64_t j = 0; j < keys; ++j) acc += scores[j] * vh[j * d + c];
        o[row * d + c] = acc * inv;
    }
}

extern "C" void launch(const float* q, const float* k, const float* v, float* o, int64_t bh, int64_t s, int64_t d,
                       cudaStream_t stream) {
    if (bh <= 0 || s <= 0 || d <= 0) return;
    int threads = 256;
    size_t smem = (size_t)(s + threads) * sizeof(float);
    if (smem > 48 * 1024)                     // above 48 KiB a kernel must ask for more shared memory
        cudaFuncSetAttribute(attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    attention_kernel<<<(unsigned)(bh * s), threads, smem, stream>>>(q, k, v, o, bh, s, d);
}
