// Inclusive prefix sum along each row: one block per row walks the row in chunks of 1024; inside a
// chunk a warp scan (__shfl_up_sync) is followed by a scan of the 32 warp totals, and a carry moves
// the running total from one chunk to the next.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void cumsum_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    __shared__ float warp_totals[32];
    __shared__ float carry;
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) carry = 0.f;
    __syncthreads();
    for (int64_t base = 0; base < cols; base += blockDim.x) {
        int64_t j = base + threadIdx.x;
        float v = j < cols ? xr[j] : 0.f;
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffff, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) warp_totals[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float t = lane < (int)(blockDim.x >> 5) ? warp_totals[lane] : 0.f;
            for (int o = 1; o < 32; o <<= 1) {
                float u = __shfl_up_sync(0xffffffff, t, o);
                if (lane >= o) t += u;
            }
            warp_totals[lane] = t;
        }
        __syncthreads();
        float prefix = carry + (warp > 0 ? warp_totals[warp - 1] : 0.f);
        if (j < cols) yr[j] = v + prefix;
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1) carry = v + prefix;
        __syncthreads();
    }
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    cumsum_kernel<<<(unsigned)rows, 1024, 0, stream>>>(x, y, rows, cols);
}
