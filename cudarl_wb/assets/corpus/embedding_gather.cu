// Embedding lookup: out[i, :] = table[idx[i], :]. One block per looked-up row, so each row copy is
// a contiguous, coalesced read and write.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void embedding_kernel(const float* __restrict__ table, const int64_t* __restrict__ idx,
                                 float* __restrict__ out, int64_t n, int64_t dim) {
    int64_t i = blockIdx.x;
    const float* src = table + idx[i] * dim;
    float* dst = out + i * dim;
    for (int64_t d = threadIdx.x; d < dim; d += blockDim.x) dst[d] = src[d];
}

extern "C" void launch(const float* table, const int64_t* idx, float* out, int64_t n, int64_t dim,
                       int64_t vocab, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = dim >= 256 ? 256 : 128;
    embedding_kernel<<<(unsigned)n, threads, 0, stream>>>(table, idx, out, n, dim);
}
