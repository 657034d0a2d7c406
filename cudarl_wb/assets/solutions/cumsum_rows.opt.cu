#include <cuda_runtime.h>
#include <stdint.h>

// Inclusive prefix sum of each row, one block of 1024 threads per row, in chunks of 1024 columns.
// In a chunk: each warp scans its 32 values with shuffles (5 steps of __shfl_up_sync), warp 0 scans
// the 32 warp totals the same way, every thread adds the totals of the warps before it and the
// carry from earlier chunks. Reads and writes are coalesced, and all 1024 threads work.
__global__ void __launch_bounds__(1024) cumsum_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float warp_totals[32];
    int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    float carry = 0.f;                                  // the sum of all earlier chunks
    for (int64_t base = 0; base < cols; base += blockDim.x) {
        int64_t j = base + threadIdx.x;
        float v = j < cols ? xr[j] : 0.f;
        for (int o = 1; o < 32; o <<= 1) {              // inclusive scan inside the warp
            float u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) warp_totals[warp] = v;
        __syncthreads();
        if (warp == 0) {                                // scan of the warp totals
            float t = lane < nwarps ? warp_totals[lane] : 0.f;
            for (int o = 1; o < 32; o <<= 1) {
                float u = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= o) t += u;
            }
            if (lane < nwarps) warp_totals[lane] = t;
        }
        __syncthreads();
        if (warp > 0) v += warp_totals[warp - 1];
        if (j < cols) yr[j] = carry + v;
        carry += warp_totals[nwarps - 1];
        __syncthreads();                                // warp_totals is rewritten by the next chunk
    }
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows <= 0) return;
    cumsum_rows_kernel<<<(unsigned)rows, 1024, 0, stream>>>(x, y, rows, cols);
}
