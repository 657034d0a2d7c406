#include <cuda_runtime.h>
#include <stdint.h>

// c = a + b with 16-byte loads: each thread moves a float4 (four floats) per instruction, so a
// warp issues a quarter of the memory instructions for the same bytes. float4 needs 16-byte aligned
// addresses: the launcher checks the pointers, takes the float4 path for the first n/4*4 elements,
// and a scalar kernel does the tail (and everything, if a pointer is not aligned).
__global__ void add_float4_kernel(const float4* a, const float4* b, float4* c, int64_t n4) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 u = a[i], v = b[i];
        c[i] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
    }
}

__global__ void add_tail_kernel(const float* a, const float* b, float* c, int64_t start, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

static unsigned grid_for(int64_t work, int threads) {
    int64_t blocks = (work + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    return (unsigned)(blocks < 1 ? 1 : blocks);
}

extern "C" void launch(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;
    int threads = 256;
    bool aligned = (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) & 15) == 0;
    int64_t n4 = aligned ? n / 4 : 0;
    if (n4 > 0)
        add_float4_kernel<<<grid_for(n4, threads), threads, 0, stream>>>(
            (const float4*)a, (const float4*)b, (float4*)c, n4);
    if (n - 4 * n4 > 0)
        add_tail_kernel<<<grid_for(n - 4 * n4, threads), threads, 0, stream>>>(a, b, c, 4 * n4, n);
}
