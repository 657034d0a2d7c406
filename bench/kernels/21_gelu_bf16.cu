// GELU (erf form) on bfloat16, computed in fp32.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <math.h>

__global__ void gelu_bf16_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = __bfloat162float(x[i]);
        y[i] = __float2bfloat16(0.5f * v * (1.f + erff(v * 0.70710678118654752f)));
    }
}

extern "C" void launch(const __nv_bfloat16* x, __nv_bfloat16* y, int64_t n, cudaStream_t stream) {
    int64_t blocks = (n + 255) / 256;
    if (blocks > 4096) blocks = 4096;
    if (blocks > 0) gelu_bf16_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, n);
}
