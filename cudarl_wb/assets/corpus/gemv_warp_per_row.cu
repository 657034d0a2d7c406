// y = A x for a row-major m×k matrix: one warp per row, float4 loads where the row is 16-byte
// aligned (k % 4 == 0), a scalar loop otherwise, and a shuffle reduction at the end.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void gemv_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                            int64_t m, int64_t k) {
    int64_t row = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= m) return;
    const float* a = A + row * k;
    float acc = 0.f;
    if ((k & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        for (int64_t j = lane; j < k / 4; j += 32) {
            float4 av = a4[j], xv = x4[j];
            acc += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
        for (int64_t j = lane; j < k; j += 32) acc += a[j] * x[j];
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) y[row] = acc;
}

extern "C" void launch(const float* A, const float* x, float* y, int64_t m, int64_t k, cudaStream_t stream) {
    int64_t blocks = (m + 7) / 8;
    if (blocks < 1) return;
    gemv_kernel<<<(unsigned)blocks, 256, 0, stream>>>(A, x, y, m, k);
}
