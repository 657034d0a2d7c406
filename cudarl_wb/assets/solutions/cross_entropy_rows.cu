#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

// loss[r] = logsumexp_j logits[r, j] - logits[r, target[r]]: the cross-entropy of each row of
// logits against its target class (an int64 index below `classes`). One block per row.
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

__global__ void cross_entropy_rows_kernel(const float* logits, const int64_t* target, float* loss,
                                          int64_t rows, int64_t classes) {
    __shared__ float partial[256];
    int64_t row = blockIdx.x;
    const float* xr = logits + row * classes;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_max(m, partial);
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < classes; j += blockDim.x) s += expf(xr[j] - m);
    s = block_sum(s, partial);
    if (threadIdx.x == 0) {
        int64_t t = target[row];
        loss[row] = (t >= 0 && t < classes) ? m + logf(s) - xr[t] : NAN;   // a bad index is a NaN, not a crash
    }
}

extern "C" void launch(const float* logits, const int64_t* target, float* loss, int64_t rows, int64_t classes,
                       cudaStream_t stream) {
    if (rows <= 0) return;
    cross_entropy_rows_kernel<<<(unsigned)rows, 256, 0, stream>>>(logits, target, loss, rows, classes);
}
