// y = alpha * x, loading through the read-only path with inline PTX (ld.global.nc) and 128-bit vectors.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float4 load_nc(const float4* p) {
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
}

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, float alpha) {
    int64_t i4 = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, n4 = n / 4;
    if (i4 < n4) {
        float4 v = load_nc(reinterpret_cast<const float4*>(x) + i4);
        reinterpret_cast<float4*>(y)[i4] = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
    }
    if (i4 == 0) for (int64_t j = n4 * 4; j < n; ++j) y[j] = alpha * x[j];
}

extern "C" void launch(const float* x, float* y, int64_t n, float alpha, cudaStream_t stream) {
    int64_t n4 = n / 4;
    int64_t blocks = n4 > 0 ? (n4 + 255) / 256 : 1;
    if (n > 0) scale_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, n, alpha);
}
