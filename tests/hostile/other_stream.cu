// task: vector_add
// expect: correct
// detail: other-stream
// Ignores the stream it is given and launches on a non-blocking stream of its own, returning before
// the work is done. The device synchronisation inside the timed region still counts that work.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void add(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) c[i] = a[i] + b[i];
}
extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    static cudaStream_t side = nullptr;
    if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    int64_t blocks = (n + 255) / 256; if (blocks > 65535 * 8) blocks = 65535 * 8; if (blocks < 1) blocks = 1;
    add<<<(unsigned)blocks, 256, 0, side>>>(a, b, c, n);
}
